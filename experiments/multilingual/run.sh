#!/usr/bin/env bash
# Issue 12: one multilingual model (target-language tag `<2xx>`, one joint vocabulary) or one
# model per language? Both trained from scratch at equal training time on the same data (the
# corpora and weights of recipes/corpora.sh), the small shape (d256, 3 + 3) and the starter
# recipe (LDPE + ordinary encoding in characters, noise 4, 20 % of rows without a length):
#   per-language: MINUTES each for it, de, fr, es, one after the other (8,000-piece vocabularies)
#   multilingual: 4 × MINUTES on the four together (a 16,000-piece joint vocabulary)
# The two arms run at the same time, one CPU thread each, so they share the machine's load.
# Then both are scored on the first 300 sentences of each language's dev/ud-pud (beam 5,
# unconstrained and iso@1): experiments/multilingual/table.py prints the table.
#   MINUTES=15 experiments/multilingual/run.sh        # stages resume / are skipped when done
set -euo pipefail
cd "$(dirname "$0")/../.."
FITSUB=${FITSUB:-.venv/bin/fitsub}
MINUTES=${MINUTES:-15}
OUT=${OUT:-runs/ml-study}
LANGS=(it de fr es)
source recipes/corpora.sh
mkdir -p "$OUT"
recipe=(--src en --method ldpe+pe --noise 4 --length-dropout 0.2 --length-unit char --size small
  --warmup 400 --lr 0.001 --eval-every 200 --bleu-sentences 200 --patience 0 --seed 1
  --threads 1)

per_language() {
  for L in "${LANGS[@]}"; do
    [[ -f $OUT/$L/done ]] && continue
    args=()
    for c in $(corpora_of "$L"); do args+=(--corpus "$c"); done
    start=(--force); [[ -d $OUT/$L/last ]] && start=(--resume)
    $FITSUB train --out "$OUT/$L" "${start[@]}" --data "../shared/data/en-$L/train" "${args[@]}" \
      --tgt "$L" --dev "../shared/data/en-$L/dev/ud-pud" --vocab-size 8000 "${recipe[@]}" \
      --max-time "${MINUTES}m" -q
    touch "$OUT/$L/done"
  done
}

multilingual() {
  [[ -f $OUT/multi/done ]] && return
  args=()
  for L in "${LANGS[@]}"; do
    for c in $(corpora_of "$L"); do args+=(--corpus "$L/$c"); done
  done
  start=(--force); [[ -d $OUT/multi/last ]] && start=(--resume)
  $FITSUB train --out "$OUT/multi" "${start[@]}" --data '../shared/data/en-{tgt}/train' \
    "${args[@]}" --tgt "$(IFS=,; echo "${LANGS[*]}")" --dev '../shared/data/en-{tgt}/dev/ud-pud' \
    --vocab-size 16000 "${recipe[@]}" --max-time "$((4 * MINUTES))m" -q
  touch "$OUT/multi/done"
}

if [[ "${SKIP_TRAIN:-0}" != 1 ]]; then
  per_language > "$OUT/per-language.log" 2>&1 &
  multilingual > "$OUT/multi.log" 2>&1 &
  wait
fi
for L in "${LANGS[@]}"; do
  for m in "$L" multi; do
    json=$OUT/eval-$m-$L.json
    [[ -f $json ]] && continue
    $FITSUB eval --model "$OUT/$m/best" --testset "ud-pud=../shared/data/en-$L/dev/ud-pud" \
      --lang "$L" --settings unconstrained --settings iso --max-segments 300 --threads 1 \
      --json "$json" > /dev/null
  done
done
.venv/bin/python experiments/multilingual/table.py "$OUT"
