"""Dubbing budgets, a second ask: a cue whose candidates all missed its speaking window is
translated again with the character length corrected by the syllables its best candidate had,
in both directions: shorter for a line with too many syllables for its characters, **longer**
for one with too few (an actor left with silent time is as much a miss as one who runs over).

The first ask converts the window into characters at the language's average characters per
syllable (`fitsub.budget.speech`); a line whose words run long or short per syllable misses.
Its closest candidate's syllables tell by how much: the character cap and lower bound are
scaled by target ÷ counted syllables and the model asked once more (the length-controlled model
can be asked for more characters as readily as for fewer). A candidate of the new n-best inside
the window (`SpeechBudgeter.accepts`, the measure that decides) replaces the miss, closest to the
target first, if it passes the gates `fitsub.pipeline.run.choose` holds every pick to: no word
cut against the unconstrained translation, no sentence ended mid-phrase, repeated or left
without its end (`degenerate`), no more English words than it, no stray sign (`stray_marks`);
otherwise the miss stays, flagged. (Before issue 60's
window, a second ask's candidate was held to none of them: "Scusa, io non l" shipped.)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from fitsub.pipeline.fitter import Fitter
from fitsub.pipeline.run import Runner
from fitsub.pipeline.share import SINGLE, CueTexts
from fitsub.pipeline.work import Unit, whole_words
from fitsub.quality.sentence_end import degenerate, stray_marks


def _corrected(u: Unit, syllables: int, spread: float = 1.0) -> Unit | None:
    """`u` with its window's characters scaled by target ÷ `syllables` × `spread` (None: no
    change). The syllable window itself stays: it is what the line is judged by."""
    window = u.window
    if window is None or syllables <= 0:
        return None
    scale = spread * window.target_syllables / syllables
    cap = max(1, math.floor(window.max_chars * scale))
    if cap == window.max_chars:
        return None
    low = min(cap, math.ceil(window.min_chars * scale))
    asked = (
        0 if not window.target_chars else min(cap, max(1, math.floor(window.target_chars * scale)))
    )
    new = dataclasses.replace(window, max_chars=cap, min_chars=low, target_chars=asked)
    return dataclasses.replace(u, window=new, budget=cap)


# The corrected length and one a little shorter and longer: a window of 10 % holds one or two
# whole syllables, and the model lands a length only roughly; three asks give it three tries.
SPREAD = (1.0, 0.92, 1.08)


def respeak(runner: Runner, units: Sequence[Unit], fitter: Fitter, out: CueTexts) -> int:
    """Ask again for every single-cue unit under a window whose kept text missed it; the number
    of cues that now fit."""
    if fitter.speech is None:
        return 0
    again: list[tuple[Unit, list[Unit]]] = []
    for u in units:
        cue = u.cues[0]
        if u.window is None or len(u.cues) != 1 or out.model_fits.get(cue, True):
            continue
        kept = out.turns.get(cue, {}).get(u.turn)
        if kept is None:
            continue
        syllables = fitter.speech.syllables(kept)
        asks = [f for k in SPREAD if (f := _corrected(u, syllables, k)) is not None]
        asks = list({f.budget: f for f in asks}.values())  # one ask per length
        if asks:
            again.append((u, asks))
    if not again:
        return 0
    flat = [f for _, asks in again for f in asks]
    answers = iter(runner.translate([f.request(f.budget) for f in flat]))
    fitted = 0
    for u, asks in again:
        pool = [(f, c) for f in asks for c in next(answers)]
        pool.sort(key=lambda fc: fitter.off_target(u, fc[0].restored(fc[1])))
        free = out.free.get(u.cues[0], {}).get(u.turn)
        whole = whole_words(u.source, free, fitter.known)
        english = fitter.english(u, free) if free is not None else 0
        for fixed, cand in pool:
            text, lost = u.shield.restore(cand.text)
            if not (u.shield.complete(cand.text) and whole(text)) or stray_marks(u.source, text):
                continue
            if fitter.english(u, text) > english:
                continue
            if degenerate(u.source, text, fitter.fit.lang, speech=True) is not None:
                continue
            parts, _ = fitter.parts(fixed, text)  # the corrected budget, the same window
            if parts is None:
                continue
            out.model_fits[u.cues[0]] = True
            out.accept(u, parts, fits=True, lost=lost, free=free, path=SINGLE)
            fitted += 1
            break
    return fitted
