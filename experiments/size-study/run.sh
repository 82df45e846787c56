#!/usr/bin/env bash
# Size study for issue 12 ("a size chosen by measurement"): three shapes trained from scratch on
# the same en→it data for the same wall time (MINUTES each, one CPU thread, the shipped recipe:
# LDPE + ordinary encoding, character lengths, noise [-4, 4], 20 % without a length), dev BLEU
# (greedy, oracle length, 100 ud-pud dev sentences) against wall time. Then
#   .venv/bin/python experiments/size-study/table.py runs/size-*      (docs/results/size.md)
#   small : d 256, 3 + 3 layers, 4 heads            (today's shipped shape,  7.6 M parameters)
#   mid   : d 384, 6 + 2 layers, 6 heads            (deep encoder, shallow decoder)
#   wide  : d 512, 6 + 2 layers, 8 heads            (Kasai et al. 2021's shape at base width)
# SHAPES picks some; each run resumes when started again (the clock restarts: give MINUTES again).
set -euo pipefail
cd "$(dirname "$0")/../.."
FITSUB=${FITSUB:-.venv/bin/fitsub}
MINUTES=${MINUTES:-15}
DATA=../shared/data/en-it
source recipes/corpora.sh
corpora=("${EN_IT_HUMAN[@]}")
for shape in ${SHAPES:-small mid wide}; do
  case "$shape" in
    small) dims=(--size small); every=150 ;;
    mid) dims=(--d-model 384 --layers 6+2); every=80 ;;
    wide) dims=(--d-model 512 --layers 6+2); every=50 ;;
    *) echo "unknown shape $shape" >&2; exit 2 ;;
  esac
  args=()
  for c in "${corpora[@]}"; do args+=(--corpus "$c"); done
  run="runs/size-$shape"
  resume=()
  [[ -d $run/last ]] && resume=(--resume)
  $FITSUB train --out "$run" "${resume[@]}" --data "$DATA/train" "${args[@]}" --src en --tgt it \
    --dev "$DATA/dev/ud-pud" "${dims[@]}" --method ldpe+pe --noise 4 --length-dropout 0.2 \
    --length-unit char --vocab-size 8000 --warmup 400 --lr 0.001 --eval-every "$every" \
    --bleu-sentences 100 --patience 0 --seed 1 --threads 1 --max-time "${MINUTES}m"
done
