#!/usr/bin/env bash
# Char-isometric output at each language's characters per second of speech (the predictor that
# won in docs/results/dubbing.md): --ratio = (chars/syllable × syllables/s of the target) ÷
# (those of English), rounded to 0.01: it 0.86, de 0.90, fr 1.17, es 0.98. Run after run.sh.
set -euo pipefail
OUT=build/dub
for pair in it:0.86 de:0.90 fr:1.17 es:0.98; do
  l=${pair%%:*}; r=${pair##*:}
  [ -f "$OUT/cps.dev.$l.json" ] || .venv/bin/fitsub translate "$OUT/dev.$l.src.txt" --lang "$l" \
    --ratio "$r" --threads 1 -q -o "$OUT/cps.dev.$l.txt" --report "$OUT/cps.dev.$l.json"
done
.venv/bin/python experiments/dubbing/measure.py systems "$OUT" char.dev syl.dev cps.dev
