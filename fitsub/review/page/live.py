"""What the review page needs to judge an edited line as the reviewer types, and the severity
of a segment.

Each flag's severity, meaning and live recount come from the flag registry
(`fitsub.quality.registry`), passed to the page as JSON (`page_checks`). A segment's severity is
that of its worst flag (`worst`); the page colours rows by it and counts each.

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

from fitsub.quality.flags import names_of, numbers, words
from fitsub.quality.numbers import reader_tables
from fitsub.quality.registry import FLAGS, LEGEND, QUALITY_FLAGS, RECHECKED, SEVERITIES, severity_of


def worst(flags: list[str]) -> str | None:
    """The severity of a segment with `flags` (its worst flag's); None without flags."""
    found = {severity_of(name) for name in flags}
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
    """What the page's checks share: each flag's severity, meaning and live recount (the
    registry's), the live recounts in the registry's order, the severities (worst first) and
    their legend, the number-word reader and the flags `fitsub apply` rechecks."""
    return {
        "flags": {
            k.name: {
                "severity": k.severity,
                "meaning": k.meaning,
                "live": k.live,
                "live_part": k.live_part,
            }
            for k in FLAGS.values()
        },
        "live": [[k.name, k.live] for k in QUALITY_FLAGS if k.live is not None],
        "severities": list(SEVERITIES),
        "legend": LEGEND,
        "rechecked": list(RECHECKED),
        "numwords": None if lang is None else reader_tables(lang),
    }
