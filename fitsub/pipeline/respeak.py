"""Dubbing budgets, a second ask: a cue whose candidates all missed its speaking window is
translated again with the character length corrected by the syllables its best candidate had
(downwards only: a line with too many syllables for its characters).

The first ask converts the window into characters at the language's average characters per
syllable (`fitsub.dubbing.budget`); a line whose words run long or short per syllable misses.
Its closest candidate's syllables tell by how much: the character cap and lower bound are
scaled by target ÷ counted syllables and the model asked once more. A candidate of the new
n-best inside the window and the cue's budget replaces the miss (closest to the target first);
otherwise the miss stays, flagged.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from fitsub.pipeline.run import Fitter, Runner
from fitsub.pipeline.share import SINGLE, CueTexts
from fitsub.pipeline.work import Unit


def _corrected(u: Unit, syllables: int) -> Unit | None:
    """`u` with its window's characters scaled by target ÷ `syllables` (None: no change)."""
    window = u.window
    if window is None or syllables <= 0:
        return None
    scale = window.target_syllables / syllables
    cap = max(1, math.floor(window.max_chars * scale))
    if cap >= window.max_chars:  # too few syllables: more characters would break the budget
        return None
    low = min(cap, math.ceil(window.min_chars * scale))
    new = dataclasses.replace(window, max_chars=cap, min_chars=low)
    return dataclasses.replace(u, window=new, budget=cap)


def respeak(runner: Runner, units: Sequence[Unit], fitter: Fitter, out: CueTexts) -> int:
    """Ask again for every single-cue unit under a window whose kept text missed it; the number
    of cues that now fit."""
    if fitter.speech is None:
        return 0
    again: list[tuple[Unit, Unit]] = []
    for u in units:
        cue = u.cues[0]
        if u.window is None or len(u.cues) != 1 or out.model_fits.get(cue, True):
            continue
        kept = out.turns.get(cue, {}).get(u.turn)
        fixed = None if kept is None else _corrected(u, fitter.speech.syllables(kept))
        if fixed is not None:
            again.append((u, fixed))
    if not again:
        return 0
    answers = runner.translate([fixed.request(fixed.budget) for _, fixed in again])
    fitted = 0
    for (u, fixed), cands in zip(again, answers, strict=True):
        ranked = sorted(cands, key=lambda c: fitter.off_target(u, fixed.restored(c)))
        for cand in ranked:
            text, lost = u.shield.restore(cand.text)
            if not u.shield.complete(cand.text):
                continue
            parts, _ = fitter.parts(u, text)
            if parts is None:
                continue
            out.model_fits[u.cues[0]] = True
            free = out.free.get(u.cues[0], {}).get(u.turn)
            out.accept(u, parts, fits=True, lost=lost, free=free, path=SINGLE)
            fitted += 1
            break
    return fitted
