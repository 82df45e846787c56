"""Length tokens follow the thresholds; perturbation stays inside its window."""

from __future__ import annotations

import random

import pytest
import torch

from fitsub.nmt.lengths import LENGTH_TOKENS, fit_thresholds, length_class, perturb


def test_thresholds_are_the_tercile_quantiles() -> None:
    ratios = [i / 100 for i in range(50, 150)]  # 0.50 .. 1.49, uniform
    lo, hi = fit_thresholds(ratios)
    assert lo == pytest.approx(0.83, abs=0.01)
    assert hi == pytest.approx(1.16, abs=0.01)


def test_thresholds_split_the_data_into_three_near_equal_groups() -> None:
    rng = random.Random(0)
    pairs = [(rng.randint(5, 80), rng.randint(5, 100)) for _ in range(3000)]
    th = fit_thresholds([t / s for s, t in pairs])
    counts = {tok: 0 for tok in LENGTH_TOKENS}
    for s, t in pairs:
        counts[length_class(s, t, th)] += 1
    for n in counts.values():
        assert abs(n - 1000) < 120


def test_length_class_follows_thresholds_at_the_boundaries() -> None:
    th = (0.9, 1.1)
    assert length_class(100, 89, th) == "<short>"
    assert length_class(100, 90, th) == "<normal>"  # ratio == t_short is normal
    assert length_class(100, 110, th) == "<normal>"  # ratio == t_long is normal
    assert length_class(100, 111, th) == "<long>"
    assert length_class(0, 3, th) == "<long>"  # empty source counts as 1 char


def test_fit_thresholds_rejects_no_data() -> None:
    with pytest.raises(ValueError):
        fit_thresholds([])


@pytest.mark.parametrize(("mode", "low"), [("symmetric", -3), ("positive", 0)])
def test_perturbation_covers_exactly_its_window(mode: str, low: int) -> None:
    gen = torch.Generator().manual_seed(0)
    lengths = torch.full((4000,), 50)
    noisy = perturb(lengths, 3, mode, gen)
    deltas = set((noisy - lengths).tolist())
    assert deltas == set(range(low, 4))


def test_perturbation_clamps_to_one_and_keeps_missing_lengths() -> None:
    gen = torch.Generator().manual_seed(1)
    lengths = torch.tensor([1, 2, -1, 3] * 500)
    noisy = perturb(lengths, 4, "symmetric", gen)
    assert int(noisy[lengths >= 0].min()) == 1
    assert torch.equal(noisy[lengths < 0], lengths[lengths < 0])
    assert torch.equal(perturb(lengths, 0), lengths)


def test_perturbation_is_reproducible_with_a_generator() -> None:
    lengths = torch.arange(1, 100)
    a = perturb(lengths, 2, "symmetric", torch.Generator().manual_seed(7))
    b = perturb(lengths, 2, "symmetric", torch.Generator().manual_seed(7))
    assert torch.equal(a, b)


def test_perturbation_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError):
        perturb(torch.tensor([5]), 2, "sideways")
    with pytest.raises(ValueError):
        perturb(torch.tensor([5]), -1)
