"""Before / after figures of a translated document (the comparison's summary line and JSON)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from fitsub.pipeline.assemble import SegmentResult
from fitsub.pipeline.share import GROUP_PATHS, KEPT_WHOLE, SINGLE
from fitsub.quality.flags import count_flags
from fitsub.quality.registry import TOO_SHORT, TOO_SMALL


@dataclass(frozen=True)
class Summary:
    """Before / after figures for the comparison."""

    segments: int
    translated: int
    fitted_within: float  # share of translated segments within budget, fitted
    unconstrained_within: float | None  # the same for the unconstrained translations
    fitted_ratio: float  # mean fitted chars / source chars
    unconstrained_ratio: float | None
    flagged: int  # segments that need a look: `needs_review` (the review page counts the same)
    flag_counts: dict[str, int] = field(default_factory=dict)  # segments per quality flag
    too_small: int = 0  # segments whose budget is below a plausible translation (`Budget`)
    too_short: int = 0  # cues on screen too briefly to be read, whatever the text (`Budget`)
    multi_cue_sentences: int = 0  # sentences running across two or more cues
    kept_whole: int = 0  # of those, translated whole (not cue by cue): see `KEPT_WHOLE`
    group_paths: dict[str, int] = field(default_factory=dict)  # multi-cue sentences per path
    refitted: int = 0  # segments translated again under their budget (the rest: kept as is)

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return dict(self.__dict__)


def budget_flags(r: SegmentResult) -> list[str]:
    """The budget's own warnings on a segment: `too-small` and `too-short` (`fitsub.budget`)."""
    b = r.budget
    if b is None:
        return []
    return [name for name, on in ((TOO_SMALL, b.too_small), (TOO_SHORT, b.too_short)) if on]


def needs_review(r: SegmentResult) -> bool:
    """Whether a translated segment is flagged: a quality flag, a budget warning (`too-small`,
    `too-short`: a cue too brief to read is flagged whatever its text), or its text over its
    budget (or, dubbing, outside its speaking window).

    The one definition of "flagged": the summary, the JSON report and the review page use it.
    """
    return r.budget is not None and (bool(r.flags) or bool(budget_flags(r)) or not r.fits)


def summarize_results(results: Sequence[SegmentResult]) -> Summary:
    """The share within budget and the mean length ratio, before and after fitting."""
    tr = [r for r in results if r.budget is not None]
    n = len(tr)

    def mean(xs: list[float]) -> float:
        return sum(xs) / len(xs) if xs else 0.0

    src = [max(r.budget.source_chars, 1) for r in tr if r.budget is not None]
    has_free = n > 0 and all(r.unconstrained is not None for r in tr)
    paths = {r.group: r.group_path for r in tr if r.group_path != SINGLE}
    return Summary(
        segments=len(results),
        translated=n,
        fitted_within=mean([float(r.fits) for r in tr]),
        unconstrained_within=mean([float(bool(r.unconstrained_fits)) for r in tr])
        if has_free
        else None,
        fitted_ratio=mean([r.fitted_chars / s for r, s in zip(tr, src, strict=True)]),
        unconstrained_ratio=(
            mean([(r.unconstrained_chars or 0) / s for r, s in zip(tr, src, strict=True)])
            if has_free
            else None
        ),
        flagged=sum(1 for r in tr if needs_review(r)),
        flag_counts=count_flags([r.flags for r in tr]),
        too_small=sum(1 for r in tr if r.budget is not None and r.budget.too_small),
        too_short=sum(1 for r in tr if r.budget is not None and r.budget.too_short),
        multi_cue_sentences=len(paths),
        kept_whole=sum(1 for path in paths.values() if path in KEPT_WHOLE),
        group_paths={
            name: sum(1 for path in paths.values() if path == name) for name in GROUP_PATHS[1:]
        },
        refitted=sum(1 for r in tr if r.refitted),
    )
