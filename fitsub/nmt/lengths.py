"""Length labels: Lakew et al.'s length-ratio tokens and Oka et al.'s training-time perturbation.

Length tokens (Lakew et al. 2019, "Length Token Method"): each training pair is put in one of
three groups by its target/source length ratio in characters, r = tgt_chars / src_chars:
r < t_min -> `<short>`, r > t_max -> `<long>`, otherwise `<normal>`; the token is prepended to
the source. The thresholds come from the training data's ratio distribution (`fit_thresholds`).

Perturbation (Oka et al. 2020, sec. 3.1; Oka et al. 2021, sec. 2.1): during training the length
given to the encoding is len + per, per a uniform random integer from [-k, k] ("symmetric",
2020) or [0, k] ("positive", 2021), in the model's length unit.

The tokens and classes need no torch (the tokenizer and the backend read them before any model
loads); the training-time functions import it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from fitsub.nmt.config import NOISE_MODES

if TYPE_CHECKING:
    import torch
    from torch import Tensor

LENGTH_TOKENS: tuple[str, str, str] = ("<short>", "<normal>", "<long>")


def fit_thresholds(
    ratios: Sequence[float] | Tensor, quantiles: tuple[float, float] = (1 / 3, 2 / 3)
) -> tuple[float, float]:
    """(t_short, t_long): the 1/3 and 2/3 quantiles of target/source character ratios (equal groups)."""
    import torch

    r = torch.as_tensor(ratios, dtype=torch.float64).flatten()
    r = r[torch.isfinite(r)]
    if r.numel() == 0:
        raise ValueError("fit_thresholds needs at least one finite ratio")
    lo, hi = torch.quantile(r, torch.tensor(quantiles, dtype=torch.float64)).tolist()
    return float(lo), float(hi)


def length_ratio(src_chars: int, tgt_chars: int) -> float:
    """Target / source length ratio in characters (a source of 0 characters counts as 1)."""
    return tgt_chars / max(src_chars, 1)


def length_class(src_chars: int, tgt_chars: int, thresholds: tuple[float, float]) -> str:
    """The length token for a pair: `<short>` below t_short, `<long>` above t_long, else `<normal>`."""
    t_short, t_long = thresholds
    r = length_ratio(src_chars, tgt_chars)
    if r < t_short:
        return LENGTH_TOKENS[0]
    if r > t_long:
        return LENGTH_TOKENS[2]
    return LENGTH_TOKENS[1]


def perturb(
    lengths: Tensor, k: int, mode: str = "symmetric", generator: torch.Generator | None = None
) -> Tensor:
    """len + per with per uniform in [-k, k] (symmetric) or [0, k] (positive), clamped >= 1.

    Entries < 0 mean "no length signal" and are returned unchanged; k = 0 returns a copy.
    """
    import torch

    if mode not in NOISE_MODES:
        raise ValueError(f"unknown noise mode {mode!r}; choose from {NOISE_MODES}")
    if k < 0:
        raise ValueError(f"noise window k must be >= 0, got {k}")
    if k == 0:
        return lengths.clone()
    low = -k if mode == "symmetric" else 0
    dev = generator.device if generator is not None else lengths.device
    per = torch.randint(low, k + 1, lengths.shape, generator=generator, device=dev)
    per = per.to(lengths.device)
    noisy = (lengths + per.to(lengths.dtype)).clamp(min=1)
    return torch.where(lengths < 0, lengths, noisy)
