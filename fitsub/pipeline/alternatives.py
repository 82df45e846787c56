"""Alternatives: the other translations of a cue that fit its slot, kept for the reviewer.

For each single-cue unit (not a dialogue turn, not a sentence shared over several cues) the
fitted search's pool (the fitted n-best and the unconstrained n-best, or the unconstrained
n-best alone where the unconstrained translation was kept) is filtered to the distinct
candidates that fit the cue (`Fitter.parts`: its budget, its lines, its speaking window) and
keep their glossary terms; the best `MAX_FITTING` by model score are kept, each with its
length, score and flags (`fitsub.quality.flags.segment_flags`), and the unconstrained
translation is added last, fitting or not. Recording them never changes what is chosen: the
output is the same with or without them. The review page offers them to pick by key or click
(docs/review.md); the JSON report carries them (`alternatives`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from fitsub.backend import Candidate
from fitsub.pipeline.typography import follow_source, target_quotes
from fitsub.pipeline.work import Unit
from fitsub.quality.flags import Flag, segment_flags
from fitsub.units import char_length

MAX_FITTING = 4  # fitting candidates offered per cue (the unconstrained one comes on top)
FITTED, UNCONSTRAINED = "fitted", "unconstrained"


@dataclass(frozen=True)
class Alternative:
    """One translation a reviewer may pick: its text, characters, model score (sum of
    log-probabilities, higher is better), whether it fits, its flags, and where it came from
    (`fitted`: a candidate that fits; `unconstrained`: the translation without a limit)."""

    text: str
    chars: int
    score: float
    fits: bool
    flags: tuple[Flag, ...] = ()
    kind: str = FITTED

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "text": self.text,
            "chars": self.chars,
            "score": round(self.score, 4),
            "fits": self.fits,
            "flags": [f.to_dict() for f in self.flags],
            "kind": self.kind,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Alternative:
        """The alternative a report's JSON holds."""
        flags = tuple(Flag(str(f["name"]), str(f["detail"])) for f in d.get("flags", ()))
        return cls(
            text=str(d["text"]),
            chars=int(d["chars"]),
            score=float(d["score"]),
            fits=bool(d["fits"]),
            flags=flags,
            kind=str(d.get("kind", FITTED)),
        )


class FitCheck(Protocol):
    """What decides whether a text fits a unit (`fitsub.pipeline.run.Fitter`)."""

    @property
    def known(self) -> Collection[str]: ...

    def parts(self, u: Unit, text: str) -> tuple[list[str] | None, str]: ...


def _key(text: str) -> str:
    return " ".join(text.split())


def offer(
    u: Unit,
    nbest: tuple[Sequence[Candidate], Sequence[Candidate]],
    fitter: FitCheck,
    into: dict[int, tuple[Alternative, ...]],
) -> None:
    """Record in `into[cue]` the alternatives of a single-cue unit `u` (module docstring)
    from its `nbest` (fitted, unconstrained): the distinct candidates of both that fit, best
    score first, at most `MAX_FITTING`, then the unconstrained translation (the pick of the
    unconstrained n-best). Nothing for a dialogue turn or a sentence over several cues."""
    fitted, free = nbest
    pool = [*fitted, *free]
    if len(u.cues) != 1 or u.line is not None or u.turn or not free:
        return
    free_best = u.pick(free)
    free_text = u.restored(free_best)
    seen, fitting = {_key(free_text)}, []
    for cand in sorted(pool, key=lambda c: -c.score):
        text = u.restored(cand)
        if _key(text) in seen or not u.shield.complete(cand.text) or not text.strip():
            continue
        if fitter.parts(u, text)[0] is None:
            continue
        seen.add(_key(text))
        fitting.append(
            _alternative(u, text=text, score=cand.score, free_text=free_text, known=fitter.known)
        )
        if len(fitting) == MAX_FITTING:
            break
    unc = _alternative(
        u,
        text=free_text,
        score=free_best.score,
        free_text=free_text,
        known=fitter.known,
        kind=UNCONSTRAINED,
    )
    fits = fitter.parts(u, free_text)[0] is not None
    into[u.cues[0]] = (*fitting, dataclasses.replace(unc, fits=fits))


def offer_kept(
    units: Sequence[Unit],
    free: Sequence[Sequence[Candidate]],
    fitter: FitCheck,
    into: dict[int, tuple[Alternative, ...]],
) -> None:
    """`offer` for every unit from its unconstrained n-best alone (what a unit whose
    unconstrained translation is kept has; a unit fitted again is offered its fitted pool
    after, replacing these)."""
    for u, cands in zip(units, free, strict=True):
        offer(u, ((), cands), fitter, into)


def _alternative(
    u: Unit,
    text: str,
    score: float,
    free_text: str,
    known: Collection[str],
    kind: str = FITTED,
) -> Alternative:
    flags = segment_flags(
        source=u.source,
        fitted=text,
        unconstrained=free_text,
        budget_chars=u.budget,
        model_fits=True,
        known=known,
    )
    return Alternative(
        text=text, chars=char_length(text), score=score, fits=True, flags=tuple(flags), kind=kind
    )


def typeset_alternatives(
    alternatives: Sequence[Alternative], source: str, budget: int, lang: str | None
) -> tuple[Alternative, ...]:
    """The alternatives set in the typography the output gets (`fitsub.pipeline.typography`:
    the source's ellipses and spaces, the language's quotation marks when they still fit),
    those that became the same text dropped."""
    set_ = []
    for a in alternatives:
        text = follow_source(source, a.text)
        quoted = target_quotes(source, text, lang)
        if char_length(quoted) <= budget or a.kind == UNCONSTRAINED:
            text = quoted
        fits = a.fits and char_length(text) <= budget
        set_.append(dataclasses.replace(a, text=text, chars=char_length(text), fits=fits))
    seen = {_key(a.text) for a in set_ if a.kind == UNCONSTRAINED}
    out: list[Alternative] = []
    for a in set_:
        if a.kind == FITTED and _key(a.text) in seen:
            continue
        seen.add(_key(a.text))
        out.append(a)
    return tuple(out)
