#!/usr/bin/env bash
# One GPU hour → a converged model: the GPU recipe for any of the four languages (not a shipped
# model: no GPU was lent to this project so far; docs/models-and-training.md, "One GPU hour").
#   LANG_=it recipes/wide-gpu.sh                       # one GPU, 60 minutes
#   LANG_=de NPROC=4 MINUTES=30 recipes/wide-gpu.sh    # four GPUs on one machine (torchrun, DDP)
#   LANG_=all recipes/wide-gpu.sh                      # one multilingual model for it, de, fr, es
#   LANG_=fr DEVICE=cpu MINUTES=5 THREADS=2 MAX_TOKENS=8192 recipes/wide-gpu.sh   # CPU run
# What makes the hour count: bf16 autocast with fp32 master weights (`--precision auto` on CUDA),
# torch.compile (on by default on CUDA), 32 k-token batches per GPU (× NPROC with DDP; length
# bucketed, so little padding), a wider model with a deep encoder and a shallow decoder (d 512,
# 6 + 2 layers, Kasai et al. 2021: the decoder runs once per output piece at inference, the
# encoder once per sentence), all the useful data (corpora_of in recipes/corpora.sh), dev BLEU
# every 500 updates with the last 5 checkpoints kept for `fitsub average`, and exact resume.
# Data: ../shared/data/en-$LANG_/train read in place; on a machine without it, pack it first
# (`tar -cJf build/data.tar.xz -C ../shared data/en-$LANG_`) and unpack it beside the checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
LANG_=${LANG_:-it}
FITSUB=${FITSUB:-.venv/bin/fitsub}
DATA=${DATA:-../shared/data/en-$LANG_}
MINUTES=${MINUTES:-60}
NPROC=${NPROC:-1}
DEVICE=${DEVICE:-cuda}
run=${RUN:-runs/gpu-en-$LANG_}
source recipes/corpora.sh
tgt=$LANG_ vocab=8000
if [[ $LANG_ == all ]]; then  # one multilingual model (docs/models-and-training.md, "One model for several languages")
  tgt=it,de,fr,es vocab=16000 DATA=${DATA_ROOT:-../shared/data}/en-{tgt}
  args=()
  for L in it de fr es; do for c in $(corpora_of "$L"); do args+=(--corpus "$L/$c"); done; done
  dev=(--dev "$DATA/dev/ud-pud")
else
  corpora_of "$LANG_" > /dev/null || exit 2
  args=()
  for c in $(corpora_of "$LANG_"); do args+=(--corpus "$c"); done
  dev=()
  [[ -f $DATA/dev/ud-pud.en ]] && dev=(--dev "$DATA/dev/ud-pud") || dev=(--dev-size 2000)
fi
resume=()
[[ -d $run/last ]] && resume=(--resume)
launch=("$FITSUB")
if [[ $NPROC -gt 1 ]]; then
  launch=(.venv/bin/torchrun --standalone --nproc_per_node "$NPROC" -m fitsub)
fi
threads=()
[[ -n ${THREADS:-} ]] && threads=(--threads "$THREADS")
# the data, prepared once on this machine's CPU cores (then every process reads the arrays)
[[ -f $run-data/manifest.json ]] || $FITSUB prepare --data "$DATA/train" "${args[@]}" \
  --src en --tgt "$tgt" "${dev[@]}" --length-unit char --vocab-size "$vocab" --out "$run-data"
"${launch[@]}" train --out "$run" "${resume[@]}" --prepared "$run-data" \
  --d-model 512 --layers 6+2 --method ldpe+pe --noise 4 \
  --length-dropout 0.2 --max-tokens "${MAX_TOKENS:-32768}" \
  --lr 0.0015 --warmup "${WARMUP:-1000}" --eval-every "${EVAL_EVERY:-500}" --bleu-sentences 500 --patience 0 --seed 1 \
  --keep-checkpoints 5 --device "$DEVICE" "${threads[@]}" --max-time "${MINUTES}m"
mapfile -t kept < <(ls -d "$run"/steps/step-* 2>/dev/null | tail -5)
best="$run/best"
if [[ ${#kept[@]} -ge 2 ]]; then
  $FITSUB average "${kept[@]}" --out "$run/avg" --dtype float32 --force
  best="$run/avg"
fi
$FITSUB export "$best" "$run/export" --dtype float16 --force
echo "model: $run/export (evaluate it beside $run/best before shipping it as models/en-$LANG_)"
