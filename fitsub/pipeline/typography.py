"""Typography that follows the source and the target language: ellipses kept, no doubled
spaces, quotation marks of the target language (issue 43, part 4).

A small model writes ".." for the source's "...", or drops the ellipsis that opens a cue
continuing a sentence ("...and I had no idea" → "..e non avevo idea"). `follow_source` puts
the source's own ellipsis back where the translation has a run of one, two or four and more
dots (or none at all, for an opening one) at the same end of the line, and squeezes runs of
spaces to one. Nothing else is touched: the words, the other punctuation and the length (an
ellipsis added costs characters, so the caller checks the budget: `fitsub.pipeline.assemble`).

**Quotation marks** (`target_quotes`): when the source quotes (a double quotation mark of any
style outside its markup), the translation's double quotation marks become the target
language's own (`QUOTES`), whatever style the model wrote ("…", “…”, « … »): Italian «…»
(Treccani, *La grammatica italiana*, "virgolette": the low marks are the common ones for
quotations and direct speech), Spanish «…» (Real Academia Española, *Ortografía de la lengua
española* 3.4.8, "Las comillas": angular marks first, “…” and ‘…’ only inside them), German „…“
(the German low-high pair; Duden's rule, as in the Netflix German Timed Text Style Guide's
examples), French « … » with a no-break space inside (the Imprimerie nationale's *Lexique des
règles typographiques*: a no-break space after « and before », the rule the Netflix French
Timed Text Style Guide follows for its spaced punctuation, "comprendre !"). The words are
never touched; Italian, Spanish and German marks replace one character by one, French ones add
a no-break space on each inner side (the caller checks the budget, and the line breaking never
breaks at a no-break space: `fitsub.reflow`). Marks inside tags or ASS override blocks are
left alone, single quotation marks too (in English they are apostrophes as well), and so are
marks that do not pair up as opening, closing, opening, ...: the rule would misread them.
Converted by default: the model writes whatever marks its training text had, mixed within one
file, and a subtitler would otherwise fix each quotation by hand; a copy of the source
(`--model identity`, a name) is never changed (`fitsub.pipeline.typeset`).
"""

from __future__ import annotations

import re

_END_ELLIPSIS = re.compile(r"(\.\.\.|…)([\"'”’»)\]]*)\s*$")
_START_ELLIPSIS = re.compile(r"^\s*([\"'“‘«(\[]*)(\.\.\.|…)")
_END_DOTS = re.compile(r"\.+([\"'”’»)\]]*)$")
_START_DOTS = re.compile(r"^([\"'“‘«(\[]*)\.+\s*")
_SPACES = re.compile(r"(?<=\S)  +(?=\S)")


def follow_source(source: str, text: str) -> str:
    """`text` with the source's ellipses at its ends and single spaces (module docstring)."""
    out = _SPACES.sub(" ", text.strip())
    if not out:
        return text
    end = _END_ELLIPSIS.search(source)
    if end is not None and not _END_ELLIPSIS.search(out):
        dots = _END_DOTS.search(out)
        if dots is not None:
            out = out[: dots.start()] + end.group(1) + dots.group(1)
        elif out[-1:].isalnum():
            out += end.group(1)
    start = _START_ELLIPSIS.search(source)
    if start is not None and not _START_ELLIPSIS.search(out):
        dots = _START_DOTS.search(out)
        rest = out[dots.end() :] if dots is not None else out
        lead = dots.group(1) if dots is not None else ""
        if rest[:1].isalnum() or dots is not None:
            out = lead + start.group(2) + rest
    return out


# Quotation marks per target language (issue 43, part 4; `target_quotes`): the opening and the
# closing mark of a quotation, a no-break space inside the French ones.
QUOTES: dict[str, tuple[str, str]] = {
    "it": ("«", "»"),
    "de": ("„", "“"),
    "fr": ("«\u00a0", "\u00a0»"),
    "es": ("«", "»"),
}
_DOUBLE = '"“”„«»‟'  # double quotation marks of any language (single ones are apostrophes too)
_MARKUP = re.compile(r"<[^>]*>|\{[^}]*\}")  # tags and ASS override blocks: never touched
_INSIDE = " \u00a0\u202f"  # spaces a quotation mark may have on its inner side


def target_quotes(source: str, text: str, lang: str | None) -> str:
    """`text` with its double quotation marks in the conventions of language `lang` when the
    source quotes too (module docstring); unchanged when the marks do not pair up."""
    pair = QUOTES.get(lang or "")
    if pair is None or not any(c in _DOUBLE for c in _MARKUP.sub("", source)):
        return text
    tagged = [False] * len(text)
    for m in _MARKUP.finditer(text):
        tagged[m.start() : m.end()] = [True] * (m.end() - m.start())
    marks = [i for i, c in enumerate(text) if c in _DOUBLE and not tagged[i]]
    if not marks or len(marks) % 2:
        return text
    opens = [_opens(text, i, tagged) for i in marks]
    if opens != [k % 2 == 0 for k in range(len(marks))]:
        return text  # not open, close, open, close ...: a mark the rule would misread
    out, last = [], 0
    for i, is_open in zip(marks, opens, strict=True):
        if is_open:
            out.append(text[last:i] + pair[0])
            last = i + 1
            while last < len(text) and text[last] in _INSIDE:
                last += 1
        else:
            out.append(text[last:i].rstrip(_INSIDE) + pair[1])
            last = i + 1
    return "".join(out) + text[last:]


def _opens(text: str, i: int, tagged: list[bool]) -> bool:
    """Whether the double quotation mark at `text[i]` opens a quotation: « and „ always, »
    never; a straight or curly one when nothing or a space, a bracket or a dash precedes it
    (markup passed over)."""
    c = text[i]
    if c in "«„":
        return True
    if c == "»":
        return False
    j = i - 1
    while j >= 0 and tagged[j]:
        j -= 1
    before = text[j] if j >= 0 else " "
    return before.isspace() or before in "([{-–—/"
