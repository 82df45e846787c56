"""Run: the backend calls (in batches, n-best), the first pass, the retries and the last resort.

Every unit is translated into its budget (and, for the comparison, unconstrained). A sentence
across cues whose translation no split fits (`fitsub.pipeline.share`) is translated again with
its total budget times each of `RETRANSLATE_STEPS` (always shorter than its last translation),
keeping the first n-best candidate that splits into fitting parts; a sentence none of them
fits is translated cue by cue.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from fitsub.backend import Candidate, Request, TranslationBackend
from fitsub.budget import min_plausible_chars
from fitsub.flags import KnowsWords, cut_words, words
from fitsub.pipeline.plan import PlannedSegment, TranslateOptions
from fitsub.pipeline.share import PER_CUE, RETRANSLATED, SINGLE, CueFit, CueTexts
from fitsub.pipeline.work import Unit, WordCheck, make_unit, with_lengths
from fitsub.units import char_length, ratio_chars_floor

Progress = Callable[[int, int], None]
NBEST = 5  # candidates asked for when the best one may not do (re-translation, glossary)
# A sentence whose translation no split fits is translated again with its total budget times
# each factor in turn (and always shorter than the last translation), before cue by cue.
RETRANSLATE_STEPS: tuple[float, ...] = (0.92, 0.84, 0.76)
Candidates = list[list[Candidate]]


class Runner:
    """The backend behind batches of requests, with progress over `total` requests."""

    def __init__(
        self,
        backend: TranslationBackend,
        batch_size: int,
        progress: Progress | None = None,
        total: int = 0,
    ) -> None:
        self.backend = backend
        self.batch_size = batch_size
        self.progress = progress
        self.total = total
        self.done = 0

    def translate(self, requests: Sequence[Request], n_best: int = NBEST) -> Candidates:
        """The n-best candidates of every request, in order."""
        out: Candidates = []
        for start in range(0, len(requests), self.batch_size):
            chunk = requests[start : start + self.batch_size]
            out.extend(self.backend.translate(chunk, n_best=n_best))
            self.done += len(chunk)
            if self.progress is not None:
                self.progress(self.done, self.total)
        return out

    def fitted_and_free(
        self, units: Sequence[Unit], min_ratio: float | None, compare: bool
    ) -> tuple[Candidates, Candidates | None]:
        """NBEST candidates within each unit's budget and, with `compare`, unconstrained.

        NBEST: the best fitted one may cut a word where another does not, and the shortest
        whole unconstrained one replaces a fitted text that cuts a word anyway."""
        fitted = self.translate([u.request(u.budget, min_ratio) for u in units])
        free = self.translate([u.request(None) for u in units]) if compare else None
        return fitted, free


def known_words(backend: TranslationBackend, free: Candidates | None) -> frozenset[str]:
    """The target words the model knows: its vocabulary's whole words (when the backend lists
    them) and every word of the unconstrained translations (`fitsub.flags.cut_words`)."""
    known = set(backend.known_words()) if isinstance(backend, KnowsWords) else set()
    for cands in free or ():
        for c in cands[:1]:
            known.update(words(c.text))
    return frozenset(known)


def whole_words(source: str, free: str | None, known: Collection[str]) -> WordCheck:
    """Whether a fitted translation cuts no word of the unconstrained one `free`.

    The search ends a hypothesis only at a word boundary (`fitsub.nmt.search`), but a model can
    still close a stem it had to leave with a short ending of its own ("costruita" ->
    "costito"); the `cut-word` flag's test catches those (`fitsub.flags.cut_words`). Without the
    unconstrained translation there is nothing to compare with: every text passes.
    """
    if free is None:
        return lambda text: True
    return lambda text: not cut_words(source, text, free, known)


@dataclass(frozen=True)
class Pending:
    """A sentence no split of its translation fits yet: its unit, the characters of its last
    translation, its unconstrained translation."""

    unit: Unit
    last: int
    free: str | None


def first_pass(
    units: Sequence[Unit],
    fitted: Candidates,
    free: Candidates | None,
    known: Collection[str],
    fit: CueFit,
    out: CueTexts,
    multi: Collection[int],
) -> list[Pending]:
    """Accept each unit's best candidate; the sentences no split of it fits are pending.

    `multi`: the sentence groups of several cues (a unit of one of their cues is `per-cue`)."""
    pending: list[Pending] = []
    for ui, u in enumerate(units):
        free_cands = None if free is None else free[ui]
        free_text = None if free_cands is None else u.restored(u.pick(free_cands))
        whole = whole_words(u.source, free_text, known)
        cand = u.pick(fitted[ui], whole)
        text, lost = u.shield.restore(cand.text)
        if len(u.cues) == 1:
            out.accept_whole(u, cand, whole, free_cands, PER_CUE if u.group in multi else SINGLE)
            continue
        parts, path = fit.share(u, text) if whole(text) else (None, "")
        if parts is not None:
            out.accept(u, parts, cand.fits, lost, free_text, path)
        else:
            pending.append(Pending(u, char_length(text), free_text))
    return pending


def _tighter(pending: Sequence[Pending], factor: float) -> tuple[list[Pending], list[Pending]]:
    """(sentences to ask again for `factor` × their budget, each with that length as `last`;
    sentences no shorter translation can keep the meaning of)."""
    asks: list[Pending] = []
    waiting: list[Pending] = []
    for p in pending:
        tighter = min(ratio_chars_floor(factor, p.unit.budget), p.last - 1)
        floor = max(len(p.unit.cues), min_plausible_chars(char_length(p.unit.source)))
        if tighter >= floor:
            asks.append(Pending(p.unit, tighter, p.free))
        else:  # no shorter translation can keep the meaning: cue by cue
            waiting.append(p)
    return asks, waiting


def retranslate(
    runner: Runner,
    pending: list[Pending],
    min_ratio: float | None,
    known: Collection[str],
    fit: CueFit,
    out: CueTexts,
) -> list[Pending]:
    """Translate pending sentences again under tighter budgets; those still pending after."""
    for factor in RETRANSLATE_STEPS:
        asks, pending = _tighter(pending, factor)
        if not asks:
            break
        again = runner.translate([p.unit.request(p.last, min_ratio) for p in asks])
        for p, cands in zip(asks, again, strict=True):
            u = p.unit
            whole = whole_words(u.source, p.free, known)
            for cand in u.ranked(cands, whole):
                text, lost = u.shield.restore(cand.text)
                parts, _ = fit.share(u, text) if whole(text) else (None, "")
                if parts is not None:
                    out.accept(u, parts, cand.fits, lost, p.free, RETRANSLATED)
                    break
            else:
                shortest = char_length(u.restored(u.pick(cands)))
                pending.append(Pending(u, min(p.last, shortest), p.free))
    return pending


def per_cue(
    runner: Runner,
    pending: Sequence[Pending],
    planned: Sequence[PlannedSegment],
    opts: TranslateOptions,
    known: frozenset[str],
    out: CueTexts,
) -> frozenset[str]:
    """The last resort: each cue of a pending sentence translated alone. Returns `known` with
    the words of the unconstrained translations made here."""
    singles = [
        make_unit(
            planned[i].protected.plain,  # type: ignore[union-attr]
            b,
            (i,),
            (b,),
            p.unit.group,
            opts.glossary,
        )
        for p in pending
        for i, b in zip(p.unit.cues, p.unit.cue_budgets, strict=True)
    ]
    singles = with_lengths(singles, opts.length)
    if not singles:
        return known
    fitted, free = runner.fitted_and_free(singles, opts.min_ratio, opts.compare)
    known = known | known_words(runner.backend, free)
    for k, u in enumerate(singles):
        free_cands = None if free is None else free[k]
        free_text = None if free_cands is None else u.restored(u.pick(free_cands))
        whole = whole_words(u.source, free_text, known)
        out.accept_whole(u, u.pick(fitted[k], whole), whole, free_cands, PER_CUE)
    return known
