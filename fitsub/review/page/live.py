"""What the review page needs to judge an edited line as the reviewer types, and the severity
of each flag.

Severity (`severity`): a flag is an *error* (the translation is wrong or suspect: `cut-word`,
`number-changed`, `meaning-reversed`, `untranslated`, `dropped-content`, `repeated-token`, `unknown-word`,
`low-quality`, and any flag this module does not know), *over budget* (`over-budget`: the
text is too long, not wrong), or *timing* (`too-short`, `too-small`: the cue's slot, whatever
its text). A segment's severity is that of its worst flag; the page colours rows by it and
counts each.

Live checks (`row_checks`): besides the lengths, the page recounts the flags that depend only
on the edited text and facts fixed by the source, exactly as `fitsub.quality.flags` computes
them: `number-changed` (the source's numbers, read here once, against the numbers of the text,
read by the page's port of `numbers` with the target language's number words of
`fitsub.quality.numbers.reader_tables`) and the number-and-name part of `dropped-content` (the source
numbers and names the unconstrained translation kept). `untranslated` and `meaning-reversed`
are rechecked by `fitsub apply --source` (`fitsub.quality.recheck`, the names in `page_checks`):
the page marks them "edited — rechecked by apply (with --source)". The others need the model
(the quality score, `unknown-word`'s lexicon, `cut-word`'s vocabulary, the word links) and are
marked "edited — not rechecked".
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from fitsub.quality.flags import OVER_BUDGET, names_of, numbers, words
from fitsub.quality.numbers import reader_tables
from fitsub.quality.recheck import RECHECKED

ERROR, BUDGET, TIMING = "error", "budget", "timing"
SEVERITIES: tuple[str, ...] = (ERROR, BUDGET, TIMING)  # worst first
_NOT_ERRORS = {OVER_BUDGET: BUDGET, "too-short": TIMING, "too-small": TIMING}
LEGEND = {
    ERROR: "errors: a wrong or suspect translation (number, reversed meaning, dropped content, "
    "untranslated, cut or unknown word, low quality score)",
    BUDGET: "over budget: the text is longer than its budget",
    TIMING: "timing only: the cue is too short on screen or its budget too small, whatever "
    "its text (merge or retime it)",
}


def severity(flag: str) -> str:
    """`error`, `budget` or `timing` (see the module docstring)."""
    return _NOT_ERRORS.get(flag, ERROR)


def worst(flags: list[str]) -> str | None:
    """The severity of a segment with `flags` (its worst flag's); None without flags."""
    found = {severity(name) for name in flags}
    return next((s for s in SEVERITIES if s in found), None)


def severity_counts(flag_lists: list[list[str]]) -> dict[str, int]:
    """Segments by their severity (every severity present, 0 when none)."""
    counts = dict.fromkeys(SEVERITIES, 0)
    for flags in flag_lists:
        s = worst(flags)
        if s is not None:
            counts[s] += 1
    return counts


def row_checks(source: str, unconstrained: str | None, lang: str | None) -> dict[str, Any]:
    """Per segment, the facts the page checks an edit against: `nums`, the source's numbers
    (`number-changed`); `keep` and `names`, the source numbers and names the unconstrained
    translation kept (`dropped-content`: "lost …")."""
    nums = numbers(source, "en" if lang else None)
    if not unconstrained:
        return {"nums": nums, "keep": [], "names": []}
    free_words = set(words(unconstrained))
    names = list(dict.fromkeys(n for n in names_of(source) if n in free_words))
    keep = Counter(numbers(unconstrained, lang)) & Counter(numbers(source))
    return {"nums": nums, "keep": sorted(keep.elements()), "names": names}


def page_checks(lang: str | None) -> dict[str, Any]:
    """What the page's checks share: the severities, the legend, the number-word reader and
    the flags `fitsub apply` rechecks."""
    return {
        "rechecked": list(RECHECKED),
        "severity": dict(_NOT_ERRORS),
        "legend": LEGEND,
        "numwords": None if lang is None else reader_tables(lang),
    }
