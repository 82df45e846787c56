"""Consistency over a file, after fitting: one rendering per recurring name (`fitsub.pipeline.names`)
and the typography of the source (`fitsub.pipeline.typography`), cue by cue within each cue's budget
(issue 43, part 4). Applied to the fitted and to the unconstrained turns alike, so a kept
translation stays the unconstrained one shown beside it."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

from fitsub.pipeline.alternatives import typeset_alternatives
from fitsub.pipeline.names import entries, recurring_names, unify
from fitsub.pipeline.plan import PlannedSegment
from fitsub.pipeline.share import CueTexts
from fitsub.pipeline.typography import follow_source, target_quotes
from fitsub.units import char_length


def in_order(by_turn: Mapping[int, str]) -> list[str]:
    """A cue's per-turn texts in turn order."""
    return [by_turn[t] for t in sorted(by_turn)]


def _within(p: PlannedSegment, old: Mapping[int, str], new: Mapping[int, str]) -> bool:
    """Whether a cue's new turns fit its budget, or are no longer than its old ones."""

    def chars(turns: Mapping[int, str]) -> int:
        return sum(char_length(t) for t in turns.values()) + len(turns) - 1

    return p.budget is not None and chars(new) <= max(p.budget.chars, chars(old))


def typeset(
    planned: Sequence[PlannedSegment],
    got: CueTexts,
    exempt: Collection[str],
    lang: str | None = None,
) -> None:
    """Every cue's fitted and unconstrained turns made consistent over the file: one rendering
    per recurring name (`fitsub.pipeline.names`; glossary terms `exempt`), the typography of its
    source (`fitsub.pipeline.typography.follow_source`: ellipses kept, single spaces) and of the
    target language `lang` (`target_quotes`); a fitted cue changes only where it stays within
    its budget (an ellipsis put back, French quotation marks cost characters: without the
    quotation marks when only they do not fit). A cue that is its source word for word (a copy)
    keeps its quotation marks."""
    sources = {
        i: p.protected.turn_texts for i, p in enumerate(planned) if p.protected and i in got.turns
    }
    names = recurring_names([" ".join(t) for t in sources.values()], exempt)
    entry_of: dict[int, dict[str, str]] = {}
    for name in names:
        has = [i for i, t in sources.items() if re.search(rf"\b{re.escape(name)}\b", " ".join(t))]
        entry = entries([name], [" ".join(in_order(got.turns[i])) for i in has])
        for i in has:
            entry_of.setdefault(i, {}).update(entry)
    for i, by_turn in got.turns.items():
        src, here = dict(enumerate(sources.get(i, ()))), entry_of.get(i, {})
        copy = " ".join(in_order(by_turn)).split() == " ".join(sources.get(i, ())).split()
        quoted = None if copy else lang
        for to in (quoted, None):
            new = _fix(src, by_turn, here, to)
            if _within(planned[i], by_turn, new):
                got.turns[i] = new
                break
        budget = planned[i].budget
        if i in got.alternatives and budget is not None:
            alts = typeset_alternatives(got.alternatives[i], src.get(0, ""), budget.chars, lang)
            got.alternatives[i] = alts
        if i in got.free:
            free = got.free[i]
            same = " ".join(in_order(free)).split() == " ".join(sources.get(i, ())).split()
            got.free[i] = _fix(src, free, here, None if same else lang)


def _fix(
    src: Mapping[int, str],
    by_turn: Mapping[int, str],
    entry_of: Mapping[str, str],
    lang: str | None,
) -> dict[int, str]:
    """A cue's turns with its names unified over the whole cue (`unify`), then each turn set in
    the typography of its source turn."""
    order = sorted(by_turn)
    named = dict(
        zip(order, unify(in_order(by_turn), " ".join(in_order(src)), entry_of), strict=True)
    )
    return {
        t: target_quotes(src.get(t, ""), follow_source(src.get(t, ""), named[t]), lang)
        for t in order
    }
