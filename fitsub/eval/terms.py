"""Does a translation use an accepted form of a term? The matcher of the term checks.

A term's accepted forms are one field, separated by ``|`` (``ape|api``). A form matches

- as a whole word: not preceded or followed by a letter, digit or underscore (``\\w``), so
  ``api`` is found in ``un'api`` and ``l'alveare`` gives ``alveare``, but ``ape`` is not found
  in ``apertura``;
- case-insensitively (``str.casefold``: ``FUSS`` matches ``Fuß``), on NFC-normalised text, so a
  decomposed ``é`` matches a composed one; accents are kept: ``cafe`` does not match ``café``;
- as a stem with a trailing ``*`` (prefix match: ``Biene*`` matches ``Bienen`` and
  ``Bienenstock``), as a word ending with a leading ``*`` (``*honig`` matches ``Waldhonig``);
- across any whitespace when it has several words (``pommes de terre``).

`experiments/dialogue/term_check.py` scores the term lists with it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache

SEPARATOR = "|"


def normalize(text: str) -> str:
    """NFC, then casefolded: the form both a text and a form are compared in."""
    return unicodedata.normalize("NFC", text).casefold()


def parse_forms(field: str) -> tuple[str, ...]:
    """The accepted forms of one ``a|b|c*`` field, blanks dropped."""
    return tuple(f.strip() for f in field.split(SEPARATOR) if f.strip())


@lru_cache(maxsize=4096)
def form_pattern(form: str) -> re.Pattern[str]:
    """The regular expression of one accepted form (``*`` at either end: stem or ending)."""
    prefix = form.endswith("*")
    suffix = form.startswith("*")
    core = form.strip("*").strip()
    if not core:
        raise ValueError(f"an accepted form needs more than '*': {form!r}")
    words = [re.escape(w) for w in normalize(core).split()]
    body = r"\s+".join(words)
    return re.compile(
        r"(?<!\w)" + (r"\w*" if suffix else "") + body + (r"\w*" if prefix else "") + r"(?!\w)"
    )


def find_spans(text: str, forms: Iterable[str]) -> list[tuple[int, int]]:
    """The places in `text` (normalised) where any form matches, overlaps merged, in order."""
    norm = normalize(text)
    spans = sorted(m.span() for f in forms for m in form_pattern(f).finditer(norm))
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def count_matches(text: str, forms: Sequence[str]) -> int:
    """How many separate occurrences of accepted forms `text` holds."""
    return len(find_spans(text, forms))


def matches(text: str, forms: Sequence[str]) -> bool:
    """Whether `text` holds at least one accepted form."""
    return count_matches(text, forms) > 0
