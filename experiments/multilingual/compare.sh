#!/usr/bin/env bash
# Issue 48's evaluation: the multilingual model beside each shipped per-language model, in one
# `fitsub eval` run per language (both models on the same lines, same settings, beam 5): TED dev
# (mustc-tst-common-a, where the pair has it), ud-pud, flores200-devtest (test: report only, never
# a choice), unconstrained and isometric (ratio 1.0) for the length figures.
#   EXTRA_ARGS="--max-segments 500" experiments/multilingual/compare.sh   # models/en-multi; into runs/ml-compare
set -euo pipefail
cd "$(dirname "$0")/../.."
FITSUB=${FITSUB:-.venv/bin/fitsub}
DATA_ROOT=${DATA_ROOT:-../shared/data}
MULTI=${MULTI:-models/en-multi}
OUT=${OUT:-runs/ml-compare}
mkdir -p "$OUT"
for L in ${LANGS:-it de fr es}; do
  D=$DATA_ROOT/en-$L
  sets=(--testset "ud-pud=$D/dev/ud-pud" --testset "flores200-devtest=$D/test/flores200-devtest")
  [[ -f $D/dev/mustc-tst-common-a.en ]] && sets=(--testset "ted-dev=$D/dev/mustc-tst-common-a" "${sets[@]}")
  "$FITSUB" eval --model "models/en-$L" --model "$MULTI" --lang "$L" "${sets[@]}" \
    --settings unconstrained --settings iso --ratio 1.0 --beam 5 --threads "${THREADS:-1}" \
    --json "$OUT/eval-$L.json" --markdown "$OUT/eval-$L.md" ${EXTRA_ARGS:-}
done
echo "tables: $OUT/eval-*.md"
