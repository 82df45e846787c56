"""A document's budgets added up: what `fitsub budget` reports before translating, and the
fitting mode a report states."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from fitsub.budget.ratio import MODES
from fitsub.budget.segment import BINDINGS, Budget


@dataclass(frozen=True)
class BudgetSummary:
    """What a pre-flight check reports over a document's budgets."""

    segments: int
    too_small: int
    too_short: int
    binding_counts: dict[str, int]
    mode_counts: dict[str, int]  # segments per fitting mode (`MODES`)
    source_chars: int  # total over segments
    budget_chars: int  # total over segments
    mean_budget_ratio: float | None  # mean of chars / source_chars over non-empty sources
    min_budget_ratio: float | None

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict (unit: characters)."""
        return {
            "unit": "char",
            "segments": self.segments,
            "too_small": self.too_small,
            "too_short": self.too_short,
            "binding_counts": dict(self.binding_counts),
            "mode_counts": dict(self.mode_counts),
            "source_chars": self.source_chars,
            "budget_chars": self.budget_chars,
            "mean_budget_ratio": self.mean_budget_ratio,
            "min_budget_ratio": self.min_budget_ratio,
        }


def summarize_budgets(budgets: Sequence[Budget]) -> BudgetSummary:
    """Counts, totals and budget/source ratios over `budgets` (every binding counted, even at 0)."""
    counts = {name: 0 for name in BINDINGS}
    modes = {name: 0 for name in MODES}
    for b in budgets:
        counts[b.binding] += 1
        modes[b.mode] += 1
    ratios = [b.chars / b.source_chars for b in budgets if b.source_chars > 0]
    return BudgetSummary(
        segments=len(budgets),
        too_small=sum(1 for b in budgets if b.too_small),
        too_short=sum(1 for b in budgets if b.too_short),
        binding_counts=counts,
        mode_counts=modes,
        source_chars=sum(b.source_chars for b in budgets),
        budget_chars=sum(b.chars for b in budgets),
        mean_budget_ratio=sum(ratios) / len(ratios) if ratios else None,
        min_budget_ratio=min(ratios) if ratios else None,
    )


def fitting_mode(budgets: Iterable[Budget | None], asked: str) -> str:
    """A document's fitting mode as its budgets apply it (each budget's mode is decided once, by
    `segment_budget`): the one mode of all of them, "mixed" when they differ, `asked` when no
    segment has a budget. Slides with no box and no `--ratio` are isometric at ratio 1.0."""
    modes = {b.mode for b in budgets if b is not None}
    if not modes:
        return asked
    return modes.pop() if len(modes) == 1 else "mixed"
