"""`over-budget` only on a line over its budget (issue 58): a fallback the search took for
another reason (English left, a cut word) that fits its budget is not flagged over it."""

from __future__ import annotations

from fitsub.budget import Budget
from fitsub.pipeline.assemble import SegmentResult, flag_segments
from fitsub.pipeline.summary import needs_review
from fitsub.quality.registry import OVER_BUDGET


def _seg(fitted: str, model_fits: bool, chars: int = 51) -> SegmentResult:
    budget = Budget(
        source_chars=48,
        ratio_limit=None,
        layout_limit=84,
        speed_limit=chars,
        chars=chars,
        binding="speed",
        too_small=False,
    )
    return SegmentResult(
        index=0,
        id="11",
        source="Dad always kept it behind the salt, and so do I.",
        budget=budget,
        fitted=fitted,
        model_fits=model_fits,
    )


def _over(r: SegmentResult) -> str | None:
    (out,) = flag_segments([r], lang="fr")
    return next((f.detail for f in out.flags if f.name == OVER_BUDGET), None)


def test_a_fallback_within_its_budget_is_not_over_it() -> None:
    # samples/film.srt cue 11 into French: no candidate passed (one kept "Dad" in English), the
    # fallback shown fits: 48 characters, budget 51; it was flagged over-budget before
    fallback = _seg("Dad l'a toujours gardé derrière le sel, et donc.", model_fits=False)
    assert fallback.fits and _over(fallback) is None
    assert not needs_review(fallback)  # no flag of its own here: nothing to count


def test_a_fallback_over_its_budget_is_flagged_and_says_why() -> None:
    over = _seg("Papa l'a toujours gardé derrière le sel, et moi aussi.", model_fits=False)
    assert _over(over) == "54 chars, budget 51; no translation fit, shortest shown"
    assert needs_review(over)
    long_fit = _seg("Papa l'a toujours gardé derrière le sel, et moi aussi.", model_fits=True)
    assert _over(long_fit) == "54 chars, budget 51"
