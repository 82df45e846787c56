"""The low-quality flag of a translated subtitle file against a human reference, cue by cue.

    python experiments/quality-estimation/subtitle_check.py REPORT.json REF.srt [--show]

REPORT.json: a `fitsub translate --report`; REF.srt: a reference holding some or all of its
cues (matched by cue id: samples/film.it-ref.srt, samples/reference/lecture-30.it.srt). Each
cue's fitted text is scored with sentence chrF against the reference cue and labelled wrong by
the length-fair rule of `qe_fit` (the cue's source length). Prints, by source length (at most 40
characters, longer, all): cues, wrong, flagged low-quality, and the flag's recall / precision /
share flagged. `--show` lists every cue (quality, flag, chrF, source, fitted, reference), for
reading.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from qe_fit import WRONG_CHRF, WRONG_CHRF_SHORT, prf

from fitsub.formats import read_document
from fitsub.markup import visible_text
from fitsub.quality.score import SHORT_CHARS, sentence_chrf


def main(argv: list[str]) -> None:
    report, ref_path = Path(argv[0]), Path(argv[1])
    ref_doc = read_document(ref_path)
    refs = {
        s.id: " ".join(visible_text(s.text, ref_doc.format).split())
        for s in ref_doc.segments
        if s.id is not None
    }
    rows = []
    for seg in json.loads(report.read_text(encoding="utf-8"))["segments"]:
        ref = refs.get(str(seg.get("id")))
        if ref is None or not seg.get("translated"):
            continue
        source = " ".join(visible_text(seg["source"], ref_doc.format).split())
        fitted = " ".join(visible_text(seg["fitted"], ref_doc.format).split())
        chrf = sentence_chrf(fitted, ref)
        short = len(source) <= SHORT_CHARS
        low = any(f["name"] == "low-quality" for f in seg["flags"])
        wrong = chrf < (WRONG_CHRF_SHORT if short else WRONG_CHRF)
        rows.append((short, wrong, low))
        if "--show" in argv:
            print(f"{seg['id']:>3} q={seg['quality'] or 0:.2f} {'LQ' if low else '  '} "
                  f"chrF={chrf:5.1f} {'W' if wrong else ' '} {source!r} -> {fitted!r} "
                  f"|| {ref!r}")  # fmt: skip
    short = np.array([r[0] for r in rows])
    wrong = np.array([r[1] for r in rows])
    low = np.array([r[2] for r in rows])
    print(f"{report.name}: cue length | cues | wrong | flagged | R / P / flagged %")
    for name, m in (("<= 40", short), ("> 40", ~short), ("all", np.ones_like(short))):
        print(f"  {name}: {int(m.sum())} | {int(wrong[m].sum())} | {int(low[m].sum())} | "
              f"{prf(low[m], wrong[m])}")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
