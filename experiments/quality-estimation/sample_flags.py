"""`low-quality` on the sample subtitle files under two quality models, the same translation.

    python experiments/quality-estimation/sample_flags.py runs/qe/shipped_model.json

Translates samples/film.srt and samples/talk.srt into it, de, fr and es once (the shipped models,
one thread, `translate_document` with the language's defaults), scores every cue with the old
model (the argument) and the shipped one, prints the flagged counts and writes each cue
(source, fitted, both scores and flags) to `runs/qe/samples.json`, for reading.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from fitsub.budget import LANGUAGE_LIMITS
from fitsub.formats import read_document
from fitsub.nmt.backend import NMTBackend
from fitsub.pipeline import TranslateOptions, translate_document
from fitsub.pipeline.estimate import with_quality
from fitsub.quality.registry import LOW_QUALITY
from fitsub.quality.score import load_model

ROOT = Path(__file__).resolve().parents[2]


def main(old_path: Path) -> None:
    old, new = load_model(old_path), load_model()
    out = {}
    for lang in ("it", "de", "fr", "es"):
        backend = NMTBackend(ROOT / "models" / f"en-{lang}", device="cpu", threads=1)
        opts = TranslateOptions(lang=lang, limits=LANGUAGE_LIMITS[lang], quality=False)
        for name in ("film.srt", "talk.srt"):
            res = translate_document(read_document(ROOT / "samples" / name), backend, opts)
            by_old = with_quality(res, backend, old, lang).segments
            by_new = with_quality(res, backend, new, lang).segments
            rows = [
                {
                    "id": a.id,
                    "source": a.source,
                    "fitted": a.fitted,
                    "q_old": a.quality,
                    "q_new": b.quality,
                    "old": any(f.name == LOW_QUALITY for f in a.flags),
                    "new": any(f.name == LOW_QUALITY for f in b.flags),
                }  # fmt: skip
                for a, b in zip(by_old, by_new, strict=True)
                if a.translated
            ]
            out[f"{name} {lang}"] = rows
            n_old, n_new = sum(r["old"] for r in rows), sum(r["new"] for r in rows)
            print(f"{name} {lang}: {len(rows)} cues, flagged {n_old} (old) / {n_new} (new)")
    path = ROOT / "runs" / "qe" / "samples.json"
    path.write_text(json.dumps(out, ensure_ascii=False, indent=0), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
