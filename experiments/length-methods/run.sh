#!/usr/bin/env bash
# The method comparison (docs/results/length-methods.md): the unconstrained baseline, Lakew et al. (2019) length
# tokens, and LDPE and LRPE (Takase & Okazaki 2019) with the length perturbed by up to ±4
# characters (Oka et al. 2020), each trained from scratch on the same data, seed, batches and
# number of updates, then scored on the pairs held out as dev (the runs write them to
# OUT/dev.en / OUT/dev.it; never test data). CPU: one thread per run.
# Usage: experiments/length-methods/run.sh   (STEPS=550 THREADS=1 SEGMENTS=500 BEAM=5)
set -euo pipefail
cd "$(dirname "$0")/../.."
source recipes/corpora.sh
STEPS=${STEPS:-550}
OUT=${OUT:-build/compare}
methods=(baseline tok ldpe+pe lrpe+pe)
for m in "${methods[@]}"; do
  [ -f "runs/cmp-$m/best/config.json" ] && continue
  case $m in baseline) extra=(--noise 0 --length-dropout 0) ;;
             tok) extra=(--noise 0 --length-dropout 0.2) ;;
             *) extra=(--noise 4 --length-dropout 0.2) ;; esac
  $FITSUB train --out "runs/cmp-$m" --method "$m" "${extra[@]}" --warmup 400 --lr 0.001 \
    "${EN_IT_FIRST[@]}" --eval-every "$STEPS" --max-steps "$STEPS" --threads "${THREADS:-1}"
done
mkdir -p "$OUT"
models=(); for m in "${methods[@]}"; do models+=(--model "runs/cmp-$m/best"); done
$FITSUB eval "${models[@]}" --testset heldout-dev=runs/cmp-baseline/dev --bleu --lr \
  --settings unconstrained,length,hard,band,iso --ratio 1.0 --beam "${BEAM:-5}" --batch-size 64 \
  --max-segments "${SEGMENTS:-500}" --markdown "$OUT/methods.md" --json "$OUT/methods.json"
