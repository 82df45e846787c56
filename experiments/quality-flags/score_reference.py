"""Score a translated subtitle file against a partial reference, cue by cue id.

    python experiments/quality-flags/score_reference.py OUT.srt samples/reference/lecture-30.it.srt
    python experiments/quality-flags/score_reference.py REPORT.json samples/reference/lecture-30.it.srt unconstrained

A `--report` JSON of `fitsub translate` may stand for OUT.srt: its `fitted` (default) or
`unconstrained` text is scored. Only the cues the reference holds are scored (matched by cue id); markup is removed from both
sides (`fitsub.markup.visible_text`) and line breaks become spaces. Prints BLEU and chrF
(sacrebleu, through `fitsub.metrics`) and the number of cues scored.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from fitsub.formats import read_document
from fitsub.markup import visible_text
from fitsub.metrics import bleu, chrf


def cue_texts(path: Path) -> dict[str, str]:
    """Cue id -> visible text on one line."""
    doc = read_document(path)
    out: dict[str, str] = {}
    for seg in doc.segments:
        if seg.id is not None:
            out[seg.id] = " ".join(visible_text(seg.text, doc.format).split())
    return out


def report_texts(path: Path, field: str) -> dict[str, str]:
    """Cue id -> the report's `field` text on one line (untranslated cues: their source)."""
    out: dict[str, str] = {}
    for seg in json.loads(path.read_text(encoding="utf-8"))["segments"]:
        if seg.get("id") is not None:
            text = seg.get(field) or seg.get("fitted") or seg["source"]
            out[str(seg["id"])] = " ".join(text.split())
    return out


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    if argv[0].endswith(".json"):
        hyp = report_texts(Path(argv[0]), argv[2] if len(argv) == 3 else "fitted")
    else:
        hyp = cue_texts(Path(argv[0]))
    ref = cue_texts(Path(argv[1]))
    missing = sorted(set(ref) - set(hyp))
    if missing:
        print(f"{argv[0]}: no cue with id {missing[0]} (the reference has it)", file=sys.stderr)
        return 2
    ids = list(ref)
    hyps, refs = [hyp[i] for i in ids], [ref[i] for i in ids]
    print(f"cues {len(ids)}  BLEU {bleu(hyps, refs).score:.2f}  chrF {chrf(hyps, refs).score:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
