"""Asking again, shorter: a request whose hard budget no hypothesis met (every candidate comes
back with `fits=False`) is asked for fewer characters, `SHORTER` × its requested length in turn,
and the first answer with candidates that fit replaces the miss. A request nothing satisfies
keeps its flagged candidates (never cut, never silently over budget).

Why: the search holds every hypothesis to the budget, but the model, asked for a length close to
the budget, often ends every beam only past it (a word too long at the end, a lexicon or
whole-word constraint closing the way); asked for less, it plans a shorter sentence that ends in
time.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from fitsub.backend import Candidate, Request

SHORTER = (0.85, 0.7)  # the shares of the requested length asked again, in turn


def missed(requests: Sequence[Request], out: Sequence[Sequence[Candidate]]) -> list[int]:
    """The indices of requests with a hard budget and a length asked whose candidates all miss."""
    return [
        i
        for i, (req, cands) in enumerate(zip(requests, out, strict=True))
        if req.max_chars is not None
        and req.target_chars is not None
        and cands
        and not any(c.fits for c in cands)
    ]


def ask_shorter(
    requests: Sequence[Request],
    out: list[list[Candidate]],
    translate: Callable[[Sequence[Request]], list[list[Candidate]]],
) -> int:
    """Ask every missed request again for `SHORTER` × its length until it fits; `out` is updated
    in place (the fitting candidates, best first). Returns how many misses now fit."""
    todo, fixed = missed(requests, out), 0
    for share in SHORTER:
        if not todo:
            break
        asked = [
            dataclasses.replace(
                requests[i], target_chars=max(1, int(share * (requests[i].target_chars or 1)))
            )
            for i in todo
        ]
        still = []
        for i, cands in zip(todo, translate(asked), strict=True):
            fitting = [c for c in cands if c.fits]
            if fitting:
                out[i], fixed = fitting, fixed + 1
            else:
                still.append(i)
        todo = still
    return fixed
