"""Before / after figures of a translated document (the comparison's summary line and JSON)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from fitsub.flags import count_flags
from fitsub.pipeline.assemble import SegmentResult
from fitsub.pipeline.share import GROUP_PATHS, KEPT_WHOLE, SINGLE


@dataclass(frozen=True)
class Summary:
    """Before / after figures for the comparison."""

    segments: int
    translated: int
    fitted_within: float  # share of translated segments within budget, fitted
    unconstrained_within: float | None  # the same for the unconstrained translations
    fitted_ratio: float  # mean fitted chars / source chars
    unconstrained_ratio: float | None
    flagged: int  # segments with a quality flag, a budget too small, or no hypothesis fit
    flag_counts: dict[str, int] = field(default_factory=dict)  # segments per quality flag
    multi_cue_sentences: int = 0  # sentences running across two or more cues
    kept_whole: int = 0  # of those, translated whole (not cue by cue): see `KEPT_WHOLE`
    group_paths: dict[str, int] = field(default_factory=dict)  # multi-cue sentences per path
    refitted: int = 0  # segments translated again under their budget (the rest: kept as is)

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return dict(self.__dict__)


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
        flagged=sum(
            1
            for r in tr
            if (r.budget is not None and (r.budget.too_small or r.budget.too_short))
            or not r.model_fits
            or r.flags
        ),
        flag_counts=count_flags([r.flags for r in tr]),
        multi_cue_sentences=len(paths),
        kept_whole=sum(1 for path in paths.values() if path in KEPT_WHOLE),
        group_paths={
            name: sum(1 for path in paths.values() if path == name) for name in GROUP_PATHS[1:]
        },
        refitted=sum(1 for r in tr if r.refitted),
    )
