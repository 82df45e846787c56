"""Length policies: the length a fitted request asks for, never above its budget.

`source` asks for the natural length where the pipeline knows one (slot mode: the length of
the unconstrained translation, capped by the budget, so a roomy slot never makes the model pad)
and for the budget itself otherwise (isometric mode: ratio × source characters, or the subtitle
limit that binds). `predicted` asks for the length the predictor gives for the source (Oka et
al. 2020, Sec. 3.2), capped by the budget. `oracle` (eval only) asks for the reference's
length. The budget stays the hard limit (`Request.max_chars`) in every policy: a policy only
moves the requested length at or below it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fitsub.errors import InputError

POLICIES = ("source", "predicted", "oracle")
# Where a request's length came from (`Requested.source`).
FROM_BUDGET = "budget"
FROM_PREDICTED = "predicted"
FROM_ORACLE = "oracle"
FROM_UNCONSTRAINED = "unconstrained"  # the unconstrained translation's length (slot mode)

Predict = Callable[[Sequence[str]], list[int]]  # texts -> predicted lengths in characters


def check_policy(name: str, allowed: Sequence[str] = POLICIES) -> str:
    """`name` if it is one of `allowed`, else an InputError naming the choices."""
    if name not in allowed:
        if name == "oracle":
            problem = "oracle needs a reference: it exists in `fitsub eval` only"
            raise InputError(None, problem, setting="length_policy")
        problem = f"must be one of {', '.join(allowed)}, got {name!r}"
        raise InputError(None, problem, setting="length_policy")
    return name


@dataclass(frozen=True)
class Requested:
    """The length a request asks for (`chars`), where it came from, and the uncapped proposal.

    `source` is "budget" when the budget was asked for (policy `source`, or a proposal over the
    budget, capped), else "predicted" / "oracle". `proposed` is the policy's own length before
    the cap (None for policy `source`).
    """

    chars: int
    source: str
    proposed: int | None = None

    @property
    def capped(self) -> bool:
        """Whether the policy's proposal was over the budget and the budget was asked instead."""
        return self.proposed is not None and self.proposed > self.chars

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return {"chars": self.chars, "source": self.source, "proposed": self.proposed}


def cap(proposed: int, budget: int, source: str) -> Requested:
    """Ask for `proposed` (at least 1) unless it exceeds `budget`; then ask for the budget."""
    proposed = max(1, proposed)
    if proposed > budget:
        return Requested(budget, FROM_BUDGET, proposed)
    return Requested(proposed, source, proposed)


def combine(parts: Sequence[Requested]) -> Requested:
    """One cue's request from its dialogue turns' (joined by spaces, as their translations)."""
    if len(parts) == 1:
        return parts[0]
    sources = {p.source for p in parts}
    proposals = [p.proposed for p in parts if p.proposed is not None]
    joins = len(parts) - 1
    return Requested(
        sum(p.chars for p in parts) + joins,
        sources.pop() if len(sources) == 1 else "mixed",
        sum(proposals) + joins if len(proposals) == len(parts) else None,
    )


def share(req: Requested, part: int, whole: int) -> Requested:
    """A cue's part of a sentence's request: in proportion to its budget `part` of `whole`."""
    if part >= whole or whole <= 0:
        return req
    proposed = None if req.proposed is None else round(req.proposed * part / whole)
    return Requested(min(part, max(1, round(req.chars * part / whole))), req.source, proposed)


@dataclass(frozen=True)
class LengthPolicy:
    """A policy of `translate`: `source`, or `predicted` with the predictor's `predict`."""

    name: str = "source"
    predict: Predict | None = None

    def __post_init__(self) -> None:
        check_policy(self.name, ("source", "predicted"))
        if self.name == "predicted" and self.predict is None:
            raise ValueError("policy 'predicted' needs a predictor")

    def requests(
        self,
        texts: Sequence[str],
        budgets: Sequence[int],
        natural: Sequence[int] | None = None,
    ) -> list[Requested]:
        """The requested length of each text, within its budget.

        `natural`: the length of each text's unconstrained translation (slot mode), which policy
        `source` asks for when it is under the budget; None: the budget (isometric mode)."""
        if len(texts) != len(budgets) or (natural is not None and len(natural) != len(texts)):
            raise ValueError(f"{len(texts)} texts but {len(budgets)} budgets")
        if self.name == "source" or not texts:
            if natural is None:
                return [Requested(b, FROM_BUDGET) for b in budgets]
            return [cap(n, b, FROM_UNCONSTRAINED) for n, b in zip(natural, budgets, strict=True)]
        assert self.predict is not None
        lengths = self.predict(list(texts))
        return [cap(n, b, FROM_PREDICTED) for n, b in zip(lengths, budgets, strict=True)]
