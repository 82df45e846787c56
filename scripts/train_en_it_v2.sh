#!/usr/bin/env bash
# The second en→it model (issue 12): models/en-it (5,322 updates, the first recipe) continued
# with a fresh optimizer on all the useful data, chosen by scripts/data_study_en_it.sh:
# every human-translated source (tatoeba down-weighted to 0.3: the first model saw it 5 times;
# wikipedia-seed and wmt-news doubled: the only long, formal sentences; cocoa-spoken × 4) plus
# web-machine-translated (machine-translated Italian, but long web sentences: +1.3 dev BLEU in
# the study) [+ europarl-lowercased when WITH_LOWER=1]. Repeated pairs and same-length
# retranslations are dropped (`--dedupe`, the default). Dev: ../shared/data/en-it/dev/ud-pud.
# MINUTES of wall time per invocation (default 100); run it again to continue (exact resume).
# Then scripts/average_and_eval_starter.sh-style averaging: AVERAGE=1 averages the two newest
# kept checkpoints and keeps the average when it scores higher on the dev set.
set -euo pipefail
cd "$(dirname "$0")/.."
FITSUB=${FITSUB:-.venv/bin/fitsub}
MINUTES=${MINUTES:-100}
DATA=../shared/data/en-it
run=runs/en-it-v2
source scripts/corpora.sh
corpora=("${EN_IT_HUMAN[@]}" web-machine-translated)
[[ "${WITH_LOWER:-0}" == 1 ]] && corpora+=(europarl-lowercased)
args=()
for c in "${corpora[@]}"; do args+=(--corpus "$c"); done
start=(--init-from "${INIT:-models/en-it}")
[[ -d $run/last ]] && start=(--resume)
$FITSUB train --out "$run" "${start[@]}" --data "$DATA/train" "${args[@]}" --src en --tgt it \
  --dev "$DATA/dev/ud-pud" --method ldpe+pe --noise 4 --length-dropout 0.2 --length-unit char \
  --warmup 200 --lr 0.0007 --eval-every 300 --bleu-sentences 300 --patience 0 --seed 1 \
  --keep-checkpoints 2 --threads "${THREADS:-1}" --max-time "${MINUTES}m"
