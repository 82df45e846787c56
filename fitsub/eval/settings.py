"""The ways of translating a test set (`fitsub eval --settings`): a model, a mode and a ratio.

Modes: "unconstrained" (no length asked); "length" (`Request.target_chars` = floor(ratio ×
source chars)); "hard" (the same length also enforced as `Request.max_chars`); "band" (also a
lower bound of 90 % of that length); "iso" (IWSLT 2022's isometric band: characters without
spaces within ±10 % of ratio × the source's, the unit and window of its length compliance LC).
Every length goes through `fitsub.units`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fitsub.backend import Request
from fitsub.errors import InputError
from fitsub.lengthpred.policy import check_policy
from fitsub.metrics import isometric_bounds, requested_chars
from fitsub.units import ratio_chars_ceil

# "hyp": outputs given, not translated (scoring without a model).
Mode = Literal["unconstrained", "length", "hard", "band", "iso", "hyp"]
MODES: tuple[Mode, ...] = (
    "unconstrained",
    "length",
    "hard",
    "band",
    "iso",
)  # what --settings may name
BAND_LOW = 0.9  # "band": the lower bound is 90 % of the requested length (IWSLT 2022's ±10 %)


@dataclass(frozen=True)
class Setting:
    """One way of translating the test set; `name` labels its row in every table."""

    name: str
    mode: Mode
    ratio: float
    model_dir: Path | None = None
    policy: str = "source"  # the length asked: source (ratio × source), predicted or oracle

    def request(self, text: str, length: int | None = None) -> Request:
        """The backend request for one source segment under this setting (lengths in chars).

        `length`: the policy's length for this segment (None: floor(ratio × source chars)).
        "length" asks for it as it is; "hard" and "band" ask for it capped by the budget
        floor(ratio × source chars), which stays their hard limit (`fitsub.lengthpred.policy`).
        """
        if self.mode == "hyp":
            raise ValueError("a `hyp` setting scores given outputs; it translates nothing")
        if self.mode == "unconstrained":
            return Request(text)
        budget = requested_chars(text, self.ratio)
        target = budget if length is None else max(1, length)
        if self.mode == "length":
            return Request(text, target_chars=target, lexicon=True)
        target = min(target, budget)
        if self.mode == "band":
            low = ratio_chars_ceil(BAND_LOW, target)
            return Request(text, target_chars=target, max_chars=budget, min_chars=low, lexicon=True)
        if self.mode == "iso":
            low, high = isometric_bounds(text, self.ratio)
            return Request(
                text,
                target,
                max_chars=high,
                min_chars=low,
                bound_unit="char_no_space",
                lexicon=True,
            )
        return Request(text, target_chars=target, max_chars=budget, lexicon=True)


def make_settings(
    modes: Sequence[str],
    ratios: Sequence[float],
    model_dirs: Sequence[Path],
    policies: Sequence[str] = ("source",),
) -> list[Setting]:
    """Every mode × length policy × ratio × model; names are `mode@ratio` (policy `source`) or
    `mode-policy@ratio`, prefixed `model/` when several. "unconstrained" asks for no length:
    it is made once, whatever the policies."""
    if not modes:
        raise InputError(None, f"no setting given; choose from {', '.join(MODES)}")
    for mode in modes:
        if mode not in MODES:
            raise InputError(None, f"unknown setting {mode!r}; choose from {', '.join(MODES)}")
    policies = [check_policy(p) for p in dict.fromkeys(policies)] or ["source"]
    if "iso" in modes and policies != ["source"]:
        raise InputError(
            None, "setting iso asks for its own band around the source: --length-policy source"
        )
    ratios = check_ratios(ratios)
    dirs: list[Path | None] = list(model_dirs) if model_dirs else [None]
    names = [d.name if d is not None else "" for d in dirs]
    if len(set(names)) < len(names):
        names = [str(d) for d in dirs]
    out: list[Setting] = []
    for d, model_name in zip(dirs, names, strict=True):
        prefix = f"{model_name}/" if len(dirs) > 1 else ""
        for mode in dict.fromkeys(modes):
            for policy in ["source"] if mode == "unconstrained" else policies:
                tag = mode if policy == "source" else f"{mode}-{policy}"
                for ratio in ratios:
                    typed: Mode = mode  # type: ignore[assignment]
                    out.append(
                        Setting(
                            name=f"{prefix}{tag}@{ratio:g}",
                            mode=typed,
                            ratio=ratio,
                            model_dir=d,
                            policy=policy,
                        )
                    )
    return out


def check_ratios(ratios: Sequence[float]) -> list[float]:
    """The distinct ratios, in order; `InputError` when there is none or one is not positive."""
    if not ratios:
        raise InputError(None, "must be given", setting="ratio")
    for r in ratios:
        if not r > 0:
            raise InputError(None, f"must be positive, got {r}", setting="ratio")
    return list(dict.fromkeys(ratios))
