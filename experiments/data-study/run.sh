#!/usr/bin/env bash
# Per-source data study for en→it (issue 12, "use all the data well"): equal-length continuations
# of the shipped models/en-it (fresh optimizer), each on one CPU thread, differing only in one
# source, scored on the dev set (../shared/data/en-it/dev/ud-pud; no test data is used).
#   human  : every human-translated source (the shipped mix, tatoeba down-weighted to 0.3, plus
#            mtgeneval, xsid and wmt-news, which the shipped model had not seen)
#   web-mt : human + web-machine-translated (its Italian side is machine translation output)
#   lower  : human + europarl-lowercased (parliament text, lowercased)
# VARIANTS picks some; STEPS (default 400) updates each. Each run resumes when started again.
set -euo pipefail
cd "$(dirname "$0")/../.."
FITSUB=${FITSUB:-.venv/bin/fitsub}
STEPS=${STEPS:-400}
DATA=../shared/data/en-it
source recipes/corpora.sh
human=("${EN_IT_HUMAN[@]}")
for variant in ${VARIANTS:-human web-mt lower}; do
  corpora=("${human[@]}")
  case "$variant" in
    human) ;;
    web-mt) corpora+=(web-machine-translated) ;;
    lower) corpora+=(europarl-lowercased) ;;
    *) echo "unknown variant $variant" >&2; exit 2 ;;
  esac
  args=()
  for c in "${corpora[@]}"; do args+=(--corpus "$c"); done
  run="runs/data-$variant"
  start=(--init-from models/en-it)
  [[ -d $run/last ]] && start=(--resume)
  $FITSUB train --out "$run" "${start[@]}" --data "$DATA/train" "${args[@]}" --src en --tgt it \
    --dev "$DATA/dev/ud-pud" --method ldpe+pe --noise 4 --length-dropout 0.2 --length-unit char \
    --warmup 100 --lr 0.0007 --eval-every 200 --bleu-sentences 300 --seed 1 --threads 1 \
    --max-steps "$STEPS" --keep-checkpoints 1
done
