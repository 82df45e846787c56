#!/usr/bin/env bash
# Issue 48: the multilingual model (en → it, de, fr, es, one joint 16,000-piece vocabulary, a
# `<2xx>` target tag) trained to the end as a background campaign on one CPU core, from the
# recipe of the short study (experiments/multilingual/run.sh): the small shape (d 256, 3 + 3),
# LDPE + ordinary encoding in characters, noise 4, 20 % of rows without a length, every
# language's corpora with the weights of recipes/corpora.sh (`corpora_of`), dev = dev/ud-pud of
# each language.
#
#   MINUTES=140 experiments/multilingual/campaign.sh     # one session's stage; resumes OUT/STAGE
#   STAGE=s2 INIT=models/en-multi MINUTES=150 experiments/multilingual/campaign.sh
#
# A stage is one `fitsub prepare` (OUT/STAGE-data) and one `fitsub train --prepared` run. Inside
# a session it resumes exactly from OUT/STAGE/last. (Stage s1, session 15, ran before `prepare`
# existed: `fitsub train --data … --vocab-size 16000` read the text itself; the same data.)
# Processes end with a session, so each stage ends with a float16 export (the mean of its last
# three kept checkpoints) that the next session's stage starts from (--init-from, a fresh
# optimizer and a short warm-up: how every shipped model was trained in stages).
set -euo pipefail
cd "$(dirname "$0")/../.."
FITSUB=${FITSUB:-.venv/bin/fitsub}
MINUTES=${MINUTES:-140}
STAGE=${STAGE:-s1}
OUT=${OUT:-runs/ml-campaign}
LANGS=(it de fr es)
source recipes/corpora.sh
mkdir -p "$OUT"
args=()
for L in "${LANGS[@]}"; do
  for c in $(corpora_of "$L"); do args+=(--corpus "$L/$c"); done
done
if [[ -n ${INIT:-} ]]; then
  sched=(--init-from "$INIT" --warmup 200 --lr 0.0007) tok=(--tokenizer "$INIT")
else
  sched=(--size small --warmup 400 --lr 0.001) tok=()
fi
run=$OUT/$STAGE
# the stage's data, prepared once (all cores for SentencePiece; a continued stage encodes with
# the model it starts from), then trained from its arrays
[[ -f $run-data/manifest.json ]] || $FITSUB prepare --data "$DATA_ROOT/en-{tgt}/train" "${args[@]}" \
  --src en --tgt "$(IFS=,; echo "${LANGS[*]}")" --dev "$DATA_ROOT/en-{tgt}/dev/ud-pud" \
  --vocab-size 16000 "${tok[@]}" --out "$run-data"
start=(--force); [[ -f $run/last/config.json ]] && start=(--resume)
$FITSUB train --out "$run" "${start[@]}" --prepared "$run-data" \
  --method ldpe+pe --noise 4 --length-dropout 0.2 "${sched[@]}" \
  --eval-every 400 --bleu-sentences 200 --patience 0 --keep-checkpoints 3 --seed 1 \
  --threads 1 --max-time "${MINUTES}m" -q
$FITSUB average --out "$run/avg3" $(ls -d "$run"/steps/* | tail -3)
echo "stage $STAGE done: $run/avg3"
