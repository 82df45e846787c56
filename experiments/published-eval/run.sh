#!/usr/bin/env bash
# The published results of issue 12 for one language: `fitsub eval --markdown` of a model on
# flores200-devtest and ntrex128 in full, and tatoeba-test-unseen (first CONV segments, default
# 500) and the three cocoa sets; unconstrained, hard@1, band@1, iso@1; BLEU, chrF, LC, fit.
#   experiments/published-eval/run.sh LANG [MODEL_DIR] [OUT_DIR]      (default models/en-LANG, build/published-LANG)
# SETS=long (flores + ntrex only) or SETS=conv (tatoeba + cocoa only) splits the work.
# Reads ../shared/data/en-LANG/test; on this 2-core CPU, one thread: ~20 min for the long sets.
set -euo pipefail
cd "$(dirname "$0")/../.."
L=$1
MODEL=${2:-models/en-$L}
OUT=${3:-build/published-$L}
T=${DATA:-../shared/data/en-$L}/test
FITSUB=${FITSUB:-.venv/bin/fitsub}
common=(--model "$MODEL" --lang "$L" --bleu --lr --settings unconstrained,hard,band,iso --ratio 1.0
  --beam "${BEAM:-5}" --batch-size 32 --threads "${THREADS:-1}" --quiet)
mkdir -p "$OUT"
if [[ ${SETS:-all} != conv ]]; then
  $FITSUB eval "${common[@]}" --testset flores200-devtest="$T/flores200-devtest" \
    --testset ntrex128="$T/ntrex128" --markdown "$OUT/long.md" --json "$OUT/long.json"
fi
if [[ ${SETS:-all} != long ]]; then
  $FITSUB eval "${common[@]}" --testset tatoeba-test-unseen="$T/tatoeba-test-unseen" \
    --testset cocoa-call-center="$T/cocoa-call-center" --testset cocoa-telephony="$T/cocoa-telephony" \
    --testset cocoa-topical-chat="$T/cocoa-topical-chat" --max-segments "${CONV:-500}" \
    --markdown "$OUT/conv.md" --json "$OUT/conv.json"
fi
