"""A cue or slide line split into the words to translate and the markup to put back."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

from fitsub.markup.inline import InlineTag, Span, insert_inline
from fitsub.markup.project import project, remap
from fitsub.markup.tags import strip_markup
from fitsub.units import char_length

SPACE = re.compile(r"\s+")
BREAKING = re.compile(r"[^\S\u00a0\u202f\u2007]+")  # whitespace but the no-break spaces
# A speaker label: upper case with a colon ("JOHN: "), or a name in brackets before the words
# as SDH exports write it ("[Alba] ", "[Mr. Reyes] "; a sound effect, "[door slams]", is not).
LABEL = re.compile(
    r"[A-Z][A-Z0-9 .'\-]{1,30}:[ \t]+|\[[A-Z][a-z][\w.'\-]*(?: [A-Z][\w.'\-]*){0,2}\][ \t]+(?=\S)"
)
BRACKETS = {"[": "]", "(": ")"}  # a sound effect or caption wholly in brackets
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


@dataclass(frozen=True)
class Turn:
    """One speaker turn: the markup before and after its words, the words, the markup inside
    them (`fitsub.markup.inline`), the markup it lost (song signs in mid-turn) and the spans of
    its words never translated (Markdown code spans and URLs: `fitsub.markup.md_inline`)."""

    prefix: str
    plain: str
    suffix: str
    lost: tuple[str, ...] = ()
    inline: tuple[InlineTag, ...] = ()
    keep: tuple[Span, ...] = ()

    @property
    def kept_texts(self) -> tuple[str, ...]:
        """The words of each `keep` span."""
        return tuple(self.plain[a:b] for a, b in self.keep)


@dataclass(frozen=True)
class Protected:
    """A cue or slide line split into translatable words and the markup around them.

    `plain` is every turn's words joined by a space; `turns` holds them per speaker turn;
    `prefix` / `suffix` wrap the whole cue; `escape` says whether &, < and > in a translation
    must be written as entities; `original` is returned unchanged when there is nothing to
    translate.
    """

    plain: str
    turns: tuple[Turn, ...]
    prefix: str = ""
    suffix: str = ""
    escape: bool = False
    original: str = ""

    @property
    def turn_texts(self) -> tuple[str, ...]:
        """The words of each speaker turn (one element unless the cue is a dialogue)."""
        return tuple(turn.plain for turn in self.turns)

    @property
    def is_dialogue(self) -> bool:
        """Whether the cue has two or more speaker turns to translate separately."""
        return len(self.turns) > 1

    @property
    def joinable(self) -> bool:
        """Whether the cue may share a sentence with its neighbours.

        Not a dialogue, a sound effect (``[applause]``), a speaker label or a song line
        (``♪ … ♪``): those are units of their own, translated alone.
        """
        if len(self.turns) != 1 or not self.plain:
            return False
        turn = self.turns[0]
        edges = f"{self.prefix}{turn.prefix}{turn.suffix}{self.suffix}"
        if any(ch in edges for ch in "♪♫"):
            return False
        return not any(ch in turn.prefix for ch in BRACKETS) and LABEL.search(turn.prefix) is None

    @property
    def markup_chars(self) -> int:
        """Visible characters of the markup restored around the words, on subtitles.

        Dialogue dashes and their spaces, song signs, brackets, speaker labels: the viewer
        reads them with the translation (`fitsub.budget` counts them against line and speed).
        """
        parts = [self.prefix, self.suffix, *(t.prefix + t.suffix for t in self.turns)]
        return sum(char_length(html.unescape(strip_markup(part))) for part in parts)

    @property
    def lost(self) -> tuple[str, ...]:
        """Mid-sentence markup that `restore` drops (see the module docstring)."""
        return tuple(tag for turn in self.turns for tag in turn.lost)

    @property
    def inline(self) -> tuple[InlineTag, ...]:
        """The tags inside the words of every turn, in turn order."""
        return tuple(tag for turn in self.turns for tag in turn.inline)

    def restore(self, translated: str) -> str:
        """Put the markup back around a translation of `plain`."""
        if not self.plain.strip():
            return self.original
        if len(self.turns) == 1:
            return self.restore_turns([translated])
        return self.restore_turns(_split_sentences(translated, len(self.turns)))

    def restore_turns(
        self, translated: Sequence[str], spans: Sequence[Sequence[Span]] | None = None
    ) -> str:
        """Put the markup back around one translation per turn; turns go on separate lines.

        Each turn's inline tags go on `spans[turn]` (offsets in its translation, from
        `fitsub.markup.project.project`); without `spans` they are projected here, from the
        translation alone (exact on the source's own words, else around copied words, else
        around the whole turn)."""
        if not self.plain.strip():
            return self.original
        if len(translated) != len(self.turns):
            raise ValueError(
                f"restore_turns: {len(translated)} translations for {len(self.turns)} turns"
            )
        lines = []
        for k, (turn, text) in enumerate(zip(self.turns, translated, strict=True)):
            # a translation's no-break spaces are kept (French « … »: fitsub.pipeline.typography)
            words = "\n".join(
                BREAKING.sub(" ", line).strip(" ") for line in text.strip().split("\n")
            )
            if turn.inline:
                placed = (
                    spans[k] if spans is not None else project(turn.plain, turn.inline, text).spans
                )
                at = [
                    (remap(text, words, a, True), remap(text, words, b, a == b)) for a, b in placed
                ]
                words = insert_inline(words, turn.inline, at, self.escape)
            elif self.escape:
                words = words.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            lines.append(f"{turn.prefix}{words}{turn.suffix}")
        return f"{self.prefix}{chr(10).join(lines)}{self.suffix}"


def _split_sentences(text: str, n: int) -> list[str]:
    """Split a translation into n turns at sentence ends (surplus joins the last turn).

    With fewer sentences than turns, the translation's own line breaks are used when there are
    exactly n lines; otherwise the missing turns are left empty.
    """
    flat = SPACE.sub(" ", text).strip()
    parts = [p for p in _SENTENCE_END.split(flat) if p]
    if len(parts) < n and text.strip().count("\n") == n - 1:
        parts = text.strip().split("\n")
    if len(parts) >= n:
        return parts[: n - 1] + [" ".join(parts[n - 1 :])]
    return parts + [""] * (n - len(parts))
