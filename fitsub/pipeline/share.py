"""Share back: a unit's translation split over its cues, and what each cue and turn receives.

A sentence translated once is shared among its cues in proportion to their budgets
(`fitsub.pipeline.across_cues.distribute`); when that overflows a cue, words move between the cues
(`fitsub.pipeline.across_cues.resplit`). The path a sentence took is one of `GROUP_PATHS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from fitsub.budget import Limits, line_room
from fitsub.lengthpred.policy import Requested
from fitsub.lengthpred.policy import share as cue_share
from fitsub.pipeline.across_cues import distribute, resplit
from fitsub.pipeline.alternatives import Alternative
from fitsub.pipeline.plan import PlannedSegment
from fitsub.pipeline.work import Unit
from fitsub.reflow import fits_layout, reflow
from fitsub.units import char_length

SINGLE = "single"  # a sentence in one cue (or a dialogue turn)
WHOLE = "whole"
RESPLIT = "re-split"
RETRANSLATED = "re-translated"
PER_CUE = "per-cue"
GROUP_PATHS: tuple[str, ...] = (SINGLE, WHOLE, RESPLIT, RETRANSLATED, PER_CUE)
KEPT_WHOLE: tuple[str, ...] = (WHOLE, RESPLIT, RETRANSLATED)


def pad_split(text: str, k: int) -> list[str]:
    """`text` over k parts when `distribute` cannot (fewer words than parts): a word each."""
    words = text.split()
    return [*words[: k - 1], " ".join(words[k - 1 :]), *[""] * max(0, k - len(words))][:k]


@dataclass
class CueTexts:
    """What each cue gets: fitted and unconstrained words per turn, and how it got them."""

    turns: dict[int, dict[int, str]] = field(default_factory=dict)
    free: dict[int, dict[int, str]] = field(default_factory=dict)
    model_fits: dict[int, bool] = field(default_factory=dict)
    path: dict[int, str] = field(default_factory=dict)
    group: dict[int, int] = field(default_factory=dict)
    terms_lost: dict[int, tuple[str, ...]] = field(default_factory=dict)
    asked: dict[int, dict[int, Requested]] = field(default_factory=dict)
    refitted: dict[int, bool] = field(default_factory=dict)  # translated again under a budget
    alternatives: dict[int, tuple[Alternative, ...]] = field(default_factory=dict)  # per cue

    def accept(
        self,
        u: Unit,
        parts: Sequence[str],
        fits: bool,
        lost: tuple[str, ...],
        free: str | None,
        path: str,
        refitted: bool = True,
    ) -> None:
        """Give each cue of `u` its part (and its part of the unconstrained text `free`);
        `refitted`: the part comes from a request under the budget (False: the unconstrained
        translation was kept)."""
        free_parts = None
        if free is not None:
            free_parts = distribute(free, u.cue_budgets) or pad_split(free, len(u.cues))
        for k, i in enumerate(u.cues):
            self.turns.setdefault(i, {})[u.turn] = parts[k]
            self.model_fits[i] = self.model_fits.get(i, True) and fits
            self.path[i] = path
            self.group[i] = u.group
            self.refitted[i] = self.refitted.get(i, False) or refitted
            if refitted and u.asked is not None:  # a cue's share of its sentence's request
                self.asked.setdefault(i, {})[u.turn] = cue_share(
                    u.asked, u.cue_budgets[k], u.budget
                )
            if free_parts is not None:
                self.free.setdefault(i, {})[u.turn] = free_parts[k]
        if lost:
            self.terms_lost[u.cues[0]] = self.terms_lost.get(u.cues[0], ()) + lost


@dataclass(frozen=True)
class CueFit:
    """Whether text fits a cue (its budget and, for subtitles, its lines), and the split of a
    sentence's translation that fits every cue of its unit."""

    planned: Sequence[PlannedSegment]
    timed: bool
    limits: Limits
    lang: str

    def part_fits(self, cue: int, part: str, chars: int | None = None) -> bool:
        """Whether `part` fits cue `cue`: its budget (`chars` when given: a dubbing line's
        corrected one) and, for subtitles, its lines."""
        p = self.planned[cue]
        if p.budget is None or p.protected is None:
            return False
        if char_length(part) > (p.budget.chars if chars is None else chars):
            return False
        if not self.timed:
            return True
        room = line_room(p.protected, self.limits)
        lines = self.limits.lines
        return fits_layout(reflow(part, room, lines, lang=self.lang), room, lines)

    def _as_source(self, u: Unit, text: str) -> list[str] | None:
        """`text` split where the source's cues split, when it is the source word for word."""
        sources = []
        for c in u.cues:
            prot = self.planned[c].protected
            sources.append(" ".join(prot.turn_texts).split() if prot is not None else [])
        words = text.split()
        if words != [w for ws in sources for w in ws]:
            return None
        parts, start = [], 0
        for ws in sources:
            parts.append(" ".join(words[start : start + len(ws)]))
            start += len(ws)
        return parts

    def share(self, u: Unit, text: str) -> tuple[list[str] | None, str]:
        """Parts of `text` that fit every cue of `u`, and the path that found them. A text that
        is the sentence's source word for word (a name, `--model identity`) keeps the source's
        cue boundaries, fitting or not (a cue over its budget is flagged, never re-split)."""
        parts = self._as_source(u, text)
        if parts is not None:
            return parts, WHOLE
        parts = distribute(text, u.cue_budgets)
        if parts is not None and all(
            self.part_fits(i, x) for i, x in zip(u.cues, parts, strict=True)
        ):
            return parts, WHOLE
        parts = resplit(text, u.cue_budgets, lambda k, x: self.part_fits(u.cues[k], x))
        return parts, RESPLIT
