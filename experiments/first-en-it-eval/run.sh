#!/usr/bin/env bash
# Reproduces the first en→it model's tables (docs/results/en-it.md, en-it-first.md) (reads ../shared/data).
# Usage: experiments/first-en-it-eval/run.sh [MODEL_DIR] [OUT_DIR]
# Conversational sets (tatoeba-test-unseen, cocoa-*) use their first 500 segments; the long
# Wikipedia-style sentences of dev/ud-pud and flores200-devtest their first 100 (CPU time).
set -euo pipefail
cd "$(dirname "$0")/../.."
MODEL=${1:-models/en-it}
OUT=${2:-build/eval}
T=${DATA:-../shared/data/en-it}
FITSUB=${FITSUB:-.venv/bin/fitsub}
SETTINGS=(--settings unconstrained,hard,band,iso --ratio 1.0,0.9 --beam "${BEAM:-5}" --batch-size 64)
mkdir -p "$OUT"
$FITSUB eval --model "$MODEL" --bleu --lr "${SETTINGS[@]}" \
  --testset tatoeba-test-unseen="$T/test/tatoeba-test-unseen" \
  --testset cocoa-call-center="$T/test/cocoa-call-center" \
  --testset cocoa-telephony="$T/test/cocoa-telephony" \
  --testset cocoa-topical-chat="$T/test/cocoa-topical-chat" \
  --max-segments "${MAX_CONV:-500}" \
  --markdown "$OUT/conversational.md" --json "$OUT/conversational.json" --plot "$OUT/conversational"
$FITSUB eval --model "$MODEL" --bleu --lr "${SETTINGS[@]}" \
  --testset dev-ud-pud="$T/dev/ud-pud" \
  --testset flores200-devtest="$T/test/flores200-devtest" \
  --max-segments "${MAX_WIKI:-100}" \
  --markdown "$OUT/wiki.md" --json "$OUT/wiki.json" --plot "$OUT/wiki"
# the condensed table (docs/results/en-it.md)
"${PYTHON:-.venv/bin/python}" experiments/first-en-it-eval/table.py "$OUT/conversational.json" "$OUT/wiki.json" \
  > "$OUT/summary.md"
