#!/usr/bin/env bash
# The reverse models measured for the quality score (qe_reverse.py; not shipped): LANG →
# English, the shipped en-LANG model's shape, vocabulary and weights (its SentencePiece model is
# joint and its embeddings tied: the English pieces it reads are those the reverse model
# writes), fine-tuned the other way on the second stage's data of recipes/corpora.sh
# (`corpora_of LANG`, source and target swapped), 500 training pairs held out as dev (not
# dev/ud-pud: the calibration reads those lines), LDPE kept (the source's length is known when
# scoring), warm-up 200 to lr 7e-4, 300 updates (session 13: 19 minutes on one thread of an AMD
# EPYC with AVX2, beside another job; held-out dev BLEU it→en 25.4, es→en 16.8).
#
#   experiments/quality-estimation/reverse.sh it    # LANG = it or es; into runs/reverse-LANG-en
set -euo pipefail
cd "$(dirname "$0")/../.."
L=${1:?usage: experiments/quality-estimation/reverse.sh it|es}
source recipes/corpora.sh
RUN=${RUN:-runs/reverse-$L-en}
mapfile -t corpora < <(corpus_flags $(corpora_of "$L"))
start=(--init-from "models/en-$L")
[[ -d $RUN/last ]] && start=(--resume)
[[ -f $RUN/export/config.json ]] && { echo "model: $RUN/export"; exit 0; }
"$FITSUB" train --out "$RUN" "${start[@]}" \
  --data "$DATA_ROOT/en-$L/train" "${corpora[@]}" --src "$L" --tgt en --dev-size 500 \
  --method ldpe+pe --noise 4 --length-dropout 0.2 --length-unit char --warmup 200 --lr 0.0007 \
  --eval-every 300 --bleu-sentences 200 --patience 0 --seed 1 --threads "${THREADS:-1}" \
  --max-steps "${STEPS:-300}"
"$FITSUB" export "$RUN/last" "$RUN/export" --dtype float16 --force
echo "model: $RUN/export"
