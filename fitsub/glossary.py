"""Glossary and do-not-translate list: names and terms the model must not touch.

A glossary file is UTF-8 text, one entry per line:

    source<TAB>target     the source term is always written as `target`
    term                  a term alone on a line is kept as it is (a name, a brand)

Blank lines and lines starting with ``#`` are skipped. Terms match case-sensitively, as whole
words (not inside a longer word), the longest term first.

Terms are protected like markup: before translation each occurrence is replaced by a
placeholder the model copies, and after translation the placeholder is replaced by the target
term. The placeholder is ``[1]``, ``[2]``… (one per occurrence, skipping any that the text
already holds). Measured on the shipped en→it model (`models/en-it`, beam 5) over 126 sentences
(36 templates with one term, 8 with two, and 82 sample sentences with their last word replaced),
outputs holding every placeholder exactly once (`experiments/placeholders/run.py`; first
candidate, and any of the five best):

    placeholder    budget 1.0×   budget 1.2×   unconstrained
    [1] [2]         105 / 113     124 / 125      125 / 126
    QZ1 QZ2         103 / 111     123 / 125      125 / 126
    1001 1002       101 / 111     119 / 124      124 / 126
    Q1 Q2           100 / 110     125 / 125      122 / 125
    NE1 NE2          99 / 110     124 / 125      123 / 126
    X1 X2            99 / 108     120 / 122      121 / 124

(at a 1.0× budget the misses are mostly the model dropping the last words to fit). The
pipeline takes the first of the n-best candidates that holds every placeholder and reports a
term still missing.

The budget counts the restored term: the model is asked for the budget minus what restoring
adds (target length − placeholder length per occurrence), and every length check (split over
cues, fits) is made on the restored text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fitsub.errors import InputError
from fitsub.units import char_length


@dataclass(frozen=True)
class Term:
    """One glossary entry: the source term, its target (itself when kept) and its file line."""

    source: str
    target: str
    line: int = 0


def placeholder(k: int) -> str:
    """The k-th placeholder (k >= 1): ``[k]``."""
    return f"[{k}]"


@dataclass(frozen=True)
class Shielded:
    """A text whose glossary terms are replaced by placeholders, and how to put them back."""

    text: str  # what the model translates
    slots: tuple[tuple[str, Term], ...] = ()  # (placeholder, term) per occurrence, in order

    @property
    def extra_chars(self) -> int:
        """Characters restoring adds to a translation that copies every placeholder once."""
        return sum(char_length(t.target) - char_length(ph) for ph, t in self.slots)

    def complete(self, translated: str) -> bool:
        """Whether `translated` holds every placeholder exactly once."""
        return all(translated.count(ph) == 1 for ph, _ in self.slots)

    def restore(self, translated: str) -> tuple[str, tuple[str, ...]]:
        """The translation with every placeholder replaced by its target term, and the source
        terms whose placeholder the translation lost."""
        targets = dict(self.slots)
        lost = tuple(term.source for ph, term in self.slots if ph not in translated)
        if not targets:
            return translated, lost
        # one pass: a target term that looks like a placeholder ("Foo → [2]") is never read
        # again as one
        pattern = re.compile("|".join(re.escape(ph) for ph in sorted(targets, key=len)[::-1]))
        return pattern.sub(lambda m: targets[m.group(0)].target, translated), lost


@dataclass(frozen=True)
class Glossary:
    """Terms to protect from translation (see the module docstring)."""

    terms: tuple[Term, ...]
    path: str = ""
    _pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ordered = sorted(self.terms, key=lambda t: -char_length(t.source))
        alternatives = "|".join(re.escape(t.source) for t in ordered)
        pattern = rf"(?<!\w)(?:{alternatives})(?!\w)" if ordered else r"(?!x)x"
        object.__setattr__(self, "_pattern", re.compile(pattern))

    def shield(self, text: str, keep: Sequence[tuple[int, int]] = ()) -> Shielded:
        """`text` with each occurrence of a term replaced by its own placeholder, and each span
        of `keep` (words never translated: Markdown code, URLs) by one kept as written."""
        return shield(text, self, keep)


def shield(text: str, glossary: Glossary | None, keep: Sequence[tuple[int, int]] = ()) -> Shielded:
    """`text` with the terms of `glossary` (if any) and the spans of `keep` (sorted, apart)
    replaced by placeholders, numbered in text order; a span of `keep` comes back as written."""
    if not keep and (glossary is None or glossary._pattern.search(text) is None):
        return Shielded(text)
    by_source = {} if glossary is None else {t.source: t for t in glossary.terms}
    slots: list[tuple[str, Term]] = []
    k = 0

    def slot(term: Term) -> str:
        nonlocal k
        k += 1
        while placeholder(k) in text:  # never reuse what the text already says
            k += 1
        slots.append((placeholder(k), term))
        return placeholder(k)

    def terms(piece: str) -> str:
        if glossary is None:
            return piece
        return glossary._pattern.sub(lambda m: slot(by_source[m.group(0)]), piece)

    out: list[str] = []
    pos = 0
    for a, b in keep:
        out += [terms(text[pos:a]), slot(Term(text[a:b], text[a:b]))]
        pos = b
    out.append(terms(text[pos:]))
    return Shielded("".join(out), tuple(slots))


def parse_glossary(text: str, path: str | Path | None = None) -> Glossary:
    """Parse glossary text; `InputError` naming the file and line for a bad entry."""
    terms: list[Term] = []
    seen: dict[str, Term] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) > 2:
            raise InputError(
                path,
                f"expected 'source<TAB>target' or a term alone, found {len(fields)} columns",
                number,
            )
        source = fields[0].strip()
        target = fields[-1].strip()
        if not source or not target:
            which = "source" if not source else "target"
            raise InputError(path, f"empty {which} term", number)
        if source in seen and seen[source].target != target:
            raise InputError(
                path,
                f"{source!r} is given two targets ({seen[source].target!r} on line "
                f"{seen[source].line} and {target!r})",
                number,
            )
        if source not in seen:
            seen[source] = Term(source, target, number)
            terms.append(seen[source])
    return Glossary(tuple(terms), "" if path is None else str(path))


def load_glossary(path: Path) -> Glossary:
    """Read a glossary file (UTF-8, a BOM allowed); `InputError` if missing or bad."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, "glossary file not found")
    if not path.is_file():
        raise InputError(path, "glossary is not a file")
    try:
        data = path.read_bytes()
    except OSError as err:
        raise InputError(path, f"cannot read the glossary: {err.strerror or err}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise InputError(path, "glossary is not UTF-8 text", line) from None
    glossary = parse_glossary(text, path)
    if not glossary.terms:
        raise InputError(path, "glossary has no terms")
    return glossary
