#!/usr/bin/env bash
# Oka et al. 2020's robustness claim on our data: a length-controlled model trained with noisy
# lengths copes with predicted (imperfect) lengths better than one trained on exact lengths.
# Two continuations of the shipped models/en-it (LDPE, trained with noise ±4), identical but for
# the noise: --noise 0 (exact lengths) and --noise 4, same data, seed, batches and updates
# (STEPS, default 800). Both are then asked, on the first SEGMENTS (200) ud-pud dev sentences, for
# the source's length, the predictor's (models/en-it/length-predictor) and the reference's
# (oracle), without a hard limit (`length`), as in the paper's Table 2.
# Usage: experiments/noise-robustness/run.sh   (STEPS=800 SEGMENTS=200 THREADS=1)
set -euo pipefail
cd "$(dirname "$0")/../.."
source recipes/corpora.sh
STEPS=${STEPS:-800}
OUT=${OUT:-build/robustness}
DEV=${DEV:-../shared/data/en-it/dev/ud-pud}
for noise in 0 4; do
  run="runs/robust-noise$noise"
  [ -f "$run/best/config.json" ] && continue
  resume=(--init-from models/en-it); [ -d "$run/last" ] && resume=(--resume)
  $FITSUB train --out "$run" "${resume[@]}" --method ldpe+pe --noise "$noise" \
    --length-dropout 0.2 --warmup 100 --lr 0.0003 "${EN_IT_FIRST[@]}" \
    --eval-every "$STEPS" --max-steps "$STEPS" --threads "${THREADS:-1}"
done
mkdir -p "$OUT"
$FITSUB eval --model runs/robust-noise0/best --model runs/robust-noise4/best \
  --length-predictor models/en-it/length-predictor --src "$DEV.en" --ref "$DEV.it" \
  --max-segments "${SEGMENTS:-200}" --settings unconstrained,length \
  --length-policy source,predicted,oracle --ratio 1.0 --beam 5 --threads "${THREADS:-1}" \
  --markdown "$OUT/robustness.md" --json "$OUT/robustness.json"
