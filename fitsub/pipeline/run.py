"""Run: the backend calls (in batches, n-best), what is kept, what is fitted, the last resorts.

Fit only what must be fitted (issue 27, docs/fitting.md):

1. Every unit is translated unconstrained first (always, whether or not the comparison is
   shown: the output never depends on `--compare`).
2. A unit whose unconstrained translation fits its budget (every cue's share of it, within the
   cue's lines; for a dialogue cue all its turns together), cuts no word, keeps its glossary
   terms, carries no quality flag and, with a model that has a lexicon, holds no word outside
   it, its dictionary (`fitsub.quality.dictionary`: real words) and the source (an invented word,
   `unknown-word`) and no English word is kept: it is the output, byte for byte (the file's
   names and typography aside: `fitsub.pipeline.typeset`). A one-cue unit (no dialogue turn, no
   speaking window) whose unconstrained translation misses on length alone takes the first other
   candidate of its unconstrained n-best that passes the same tests and those of step 3 (no word
   cut, a well-ended sentence): no search needed (`serve_from_nbest`). The others are translated
   under the budget, where the search keeps to the lexicon.
3. Only the others are translated again under the hard budget, asking for the natural length
   capped by the budget (`fitsub.lengthpred.policy`: slot mode asks for the unconstrained
   length or the predictor's, never the whole slot; isometric mode asks for ratio × source).
   The first candidate that fits, cuts no word, ends its sentence well (`fitsub.quality.sentence_end`)
   and holds no more English words than the unconstrained translation wins, fitted n-best
   before unconstrained n-best; when none does, the shortest candidate that cuts no word and
   ends well among all of them is shown, flagged over budget: a sentence cut mid-phrase loses
   even to a whole one over budget (docs/results/real-words.md), and is shown, flagged
   `cut-sentence`, only when every candidate is cut.
4. A sentence across cues that no candidate splits into fitting parts is translated again with
   its total budget times each of `RETRANSLATE_STEPS` (always shorter than its last
   translation), and then cue by cue (`per_cue`, the same steps 1-3 for each cue).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from fitsub.backend import Candidate, Request, TranslationBackend
from fitsub.budget import SLOT, min_plausible_chars
from fitsub.pipeline.alternatives import offer, offer_kept
from fitsub.pipeline.fitter import Fitter
from fitsub.pipeline.plan import PlannedSegment, TranslateOptions
from fitsub.pipeline.share import PER_CUE, RETRANSLATED, SINGLE, CueFit, CueTexts
from fitsub.pipeline.work import Unit, known_words, make_unit, whole_words, with_lengths
from fitsub.quality.sentence_end import degenerate, stray_marks
from fitsub.units import char_length, ratio_chars_floor

Progress = Callable[[int, int], None]
NBEST = 5  # candidates asked for: the best one may not fit or may cut a word where another does not
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
                self.progress(self.done, max(self.total, self.done))
        return out

    def free(self, units: Sequence[Unit]) -> Candidates:
        """NBEST unconstrained candidates of every unit (the first candidates of each)."""
        return self.translate([u.request(None) for u in units])


@dataclass(frozen=True)
class Pending:
    """A sentence no split of its translation fits yet: its unit, the characters of its last
    translation, its unconstrained translation."""

    unit: Unit
    last: int
    free: str | None


def _dialogue_fits(
    units: Sequence[Unit], texts: Sequence[str], planned: Sequence[PlannedSegment]
) -> bool:
    """Whether a dialogue cue's turns fit together: the cue's budget, each turn its line."""
    budget = planned[units[0].cues[0]].budget
    if budget is None:
        return False
    total = sum(char_length(t) for t in texts) + len(texts) - 1
    lines_ok = all(
        u.line is None or char_length(t) <= u.line for u, t in zip(units, texts, strict=True)
    )
    return total <= budget.chars and lines_ok


def keep_fitting(
    units: Sequence[Unit],
    free: Candidates,
    fitter: Fitter,
    out: CueTexts,
    multi: Collection[int],
) -> list[int]:
    """Accept every unit whose unconstrained translation fits, cuts no word, keeps its glossary
    terms and carries no flag (a dialogue cue: all its turns, together); the indices of the
    units left to fit."""
    keep: dict[int, list[str] | None] = {}
    paths: dict[int, str] = {}
    texts: dict[int, str] = {}
    length_only: set[int] = set()  # units whose unconstrained translation misses on length alone
    for ui, u in enumerate(units):
        best = u.pick(free[ui])
        text = u.restored(best)
        texts[ui] = text
        whole = u.shield.complete(best.text) and fitter.clean(u, text)
        if whole:
            length_only.add(ui)
        if len(u.cues) == 1 and not whole:
            keep[ui] = None
            continue
        parts, paths[ui] = fitter.parts(u, text) if whole else (None, "")
        keep[ui] = parts
    # a dialogue cue's turns are kept or fitted together, against the cue's budget
    dialogue: dict[tuple[int, int], list[int]] = {}
    for ui, u in enumerate(units):
        prot = fitter.fit.planned[u.cues[0]].protected
        if len(u.cues) == 1 and prot is not None and prot.is_dialogue:
            dialogue.setdefault((u.group, u.cues[0]), []).append(ui)
    for turns in dialogue.values():
        clean = all(
            units[ui].shield.complete(units[ui].pick(free[ui]).text)
            and fitter.clean(units[ui], texts[ui])
            for ui in turns
        )
        ok = clean and _dialogue_fits(
            [units[ui] for ui in turns], [texts[ui] for ui in turns], fitter.fit.planned
        )
        for ui in turns:
            keep[ui] = [texts[ui]] if ok else None
    refit: list[int] = []
    for ui, u in enumerate(units):
        parts = keep[ui]
        if parts is None:
            if ui in length_only and serve_from_nbest(u, free[ui], texts[ui], fitter, out, multi):
                continue
            refit.append(ui)
            continue
        _, lost = u.shield.restore(u.pick(free[ui]).text)
        path = paths[ui] if len(u.cues) > 1 else _path(u, multi)
        out.accept(u, parts, fits=True, lost=lost, free=texts[ui], path=path, refitted=False)
    return refit


def serve_from_nbest(
    u: Unit,
    free: Sequence[Candidate],
    free_text: str,
    fitter: Fitter,
    out: CueTexts,
    multi: Collection[int],
) -> bool:
    """Accept for a one-cue unit (no dialogue turn, no speaking window) whose unconstrained
    translation is clean but does not fit (its words are the search's business: a line with an
    English or an invented word is searched under the lexicon, where the n-best offers the
    model's guesses, "Ohne Bier" for "Ohne Bees") the first other candidate of its unconstrained
    n-best that passes
    every test the kept translation and the fitted pick pass (step 2's: fits, keeps its terms,
    no flag, no invented or English word; step 3's: cuts no word of the unconstrained
    translation, ends its sentence well). Such a unit needs no search under its budget (n-best
    hypothesis chosen by length, the simplest isometric-MT re-ranking). Whether one was."""
    prot = fitter.fit.planned[u.cues[0]].protected
    if len(u.cues) != 1 or u.window is not None or (prot is not None and prot.is_dialogue):
        return False
    whole = whole_words(u.source, free_text, fitter.known)
    for cand in u.ranked(free)[1:]:
        text, lost = u.shield.restore(cand.text)
        if not (u.shield.complete(cand.text) and whole(text) and fitter.clean(u, text)):
            continue
        if degenerate(u.source, text, fitter.fit.lang, speech=False) is not None:
            continue
        parts, _ = fitter.parts(u, text)
        if parts is not None:
            out.accept(u, parts, fits=True, lost=lost, free=free_text, path=_path(u, multi))
            return True
    return False


def _path(u: Unit, multi: Collection[int]) -> str:
    return PER_CUE if u.group in multi else SINGLE


def choose(
    u: Unit,
    fitted: Sequence[Candidate],
    free: Sequence[Candidate],
    fitter: Fitter,
    out: CueTexts,
    multi: Collection[int],
) -> Pending | None:
    """Accept the first candidate that fits and ends its sentence well (fitted n-best, then
    unconstrained n-best; `fitsub.quality.sentence_end`); when none does, the shortest that cuts no
    word and ends well, flagged over budget (a sentence across cues: pending). A sentence cut
    mid-phrase is shown only when every candidate is (flagged `cut-sentence`)."""
    free_text = u.restored(u.pick(free)) if free else None
    whole = whole_words(u.source, free_text, fitter.known)
    pool = [*u.ranked(fitted, whole), *u.ranked(free, whole)]
    english = fitter.english(u, free_text) if free_text is not None else 0

    def ends_well(text: str) -> bool:  # no phrase or mark left open; dubbing: no repeat, an end
        return degenerate(u.source, text, fitter.fit.lang, speech=u.window is not None) is None

    def usable(c: Candidate) -> bool:  # its terms kept, no word cut, (dubbing) no stray sign
        text = u.restored(c)
        stray = u.window is not None and stray_marks(u.source, text)
        return u.shield.complete(c.text) and whole(text) and not stray

    cut = None  # the first candidate that fits but ends mid-phrase
    if u.window is not None:  # dubbing: the n-best re-ranked by closeness to the window
        pool.sort(key=lambda c: fitter.off_target(u, u.restored(c)))
    for cand in pool:
        text, lost = u.shield.restore(cand.text)
        if not usable(cand):
            continue
        if fitter.english(u, text) > english:  # never more English than the free translation
            continue
        parts, path = fitter.parts(u, text)
        if parts is not None:
            path = path if len(u.cues) > 1 else _path(u, multi)
            if not ends_well(text):
                cut = cut or (parts, path, lost)
                continue
            out.accept(u, parts, fits=True, lost=lost, free=free_text, path=path)
            return None
    kept = [c for c in pool if usable(c)] or pool
    if cut is not None and not any(ends_well(u.restored(c)) for c in kept):
        out.accept(u, cut[0], fits=True, lost=cut[2], free=free_text, path=cut[1])
        return None  # every candidate is cut mid-phrase: the one that fits, flagged
    kept = [c for c in kept if ends_well(u.restored(c))] or kept
    shortest = min(kept, key=lambda c: char_length(u.restored(c)))
    if u.window is not None:  # a miss, flagged: the closest to the window, not the shortest
        shortest = kept[0]
    text, lost = u.shield.restore(shortest.text)
    if len(u.cues) > 1:
        return Pending(u, char_length(text), free_text)
    out.accept(u, [text], fits=False, lost=lost, free=free_text, path=_path(u, multi))
    return None


def settle(
    runner: Runner,
    units: Sequence[Unit],
    opts: TranslateOptions,
    fitter: Fitter,
    out: CueTexts,
    multi: Collection[int],
    free: Candidates | None = None,
) -> tuple[list[Pending], Fitter]:
    """Steps 1-3 of the module docstring for `units`: the sentences still pending, and the
    fitter with the words of the unconstrained translations added."""
    if not units:
        return [], fitter
    if free is None:
        free = runner.free(units)
        known = frozenset(fitter.known) | known_words(runner.backend, free)
        fitter = dataclasses.replace(fitter, known=known)
    refit = keep_fitting(units, free, fitter, out, multi)
    offer_kept(units, free, fitter, out.alternatives)  # those fitted again: offered below
    if not refit:
        return [], fitter
    natural = None
    if opts.mode == SLOT:
        natural = [char_length(units[k].restored(units[k].pick(free[k]))) for k in refit]
    todo = with_lengths([units[k] for k in refit], opts.length, natural)
    fitted = runner.translate([u.request(u.budget, opts.min_ratio) for u in todo])
    pending: list[Pending] = []
    for u, k, cands in zip(todo, refit, fitted, strict=True):
        waiting = choose(u=u, fitted=cands, free=free[k], fitter=fitter, out=out, multi=multi)
        offer(u, (cands, free[k]), fitter, out.alternatives)
        if waiting is not None:
            pending.append(waiting)
    return pending, fitter


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
                    out.accept(u, parts, fits=cand.fits, lost=lost, free=p.free, path=RETRANSLATED)
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
    fitter: Fitter,
    out: CueTexts,
) -> Fitter:
    """The last resort: each cue of a pending sentence translated alone (kept when its
    unconstrained translation fits, else fitted). Returns the fitter with the words of the
    unconstrained translations made here."""
    singles = [
        make_unit(
            source=planned[i].protected.plain,  # type: ignore[union-attr]
            budget=b,
            cues=(i,),
            cue_budgets=(b,),
            group=p.unit.group,
            glossary=opts.glossary,
        )
        for p in pending
        for i, b in zip(p.unit.cues, p.unit.cue_budgets, strict=True)
    ]
    groups = {u.group for u in singles}
    _, fitter = settle(runner, singles, opts, fitter, out, groups)
    return fitter
