#!/usr/bin/env bash
# The recipe of the shipped models models/en-it, en-de, en-fr and en-es: the small length-
# controlled Transformer (7.6 M parameters, d 256, 3 + 3 layers, 8,000 pieces; LDPE added to the
# ordinary encoding, lengths in characters, noise [-4, 4], 20 % of rows without a length).
#
#   recipes/small-ldpe.sh LANG                      # LANG = it, de, fr or es; into runs/recipe-en-LANG
#   EXPORT_TO=models/en-it recipes/small-ldpe.sh it # also copy the result's weights there
#   STAGES=second:4800:best INIT=models/en-it recipes/small-ldpe.sh it   # one stage from a checkpoint
#   EXTRA_ARGS="--device cuda" recipes/small-ldpe.sh it                   # more `fitsub train` flags
#
# Each stage prepares its data once (`fitsub prepare` into RUNS/N-KIND-data), then trains from
# it (`fitsub train --prepared`).
# Every shipped model was trained in stages, each a separate `fitsub train` run (a fresh optimizer
# and warm-up) started from the float16 export of the stage before, with the number of updates
# each stage made (the shipped runs stopped on wall time; here `--max-steps` stops them at the
# same update). A stage is KIND:UPDATES:PICK:
#   first   from scratch on `first_corpora_of LANG` (recipes/corpora.sh), 1,000 training pairs
#           held out as dev, warm-up 400 to lr 1e-3
#   cont    the same data and settings, started from the previous stage
#   second  from the previous stage on `corpora_of LANG` (deduplicated, reweighted; web-MT),
#           dev = dev/ud-pud, warm-up 200 to lr 7e-4, no early stopping
#   third   the second stage's data and dev again, a lower peak: warm-up 300 to lr 2e-4, seed 3,
#           three checkpoints kept (en-it, session 9: +0.5 BLEU on TED dev; en-de, session 10: +0.7;
#           en-es, session 11, 800 updates: +0.5; docs/results/models.md); en-es's fourth
#           stage (session 13) is the same recipe again, 900 updates
#   PICK    best (the checkpoint with the best dev BLEU), avg (the element-wise mean of the last
#           two kept checkpoints, `fitsub average`) or avg3 (of the last three)
# The stages of each shipped model are those of its card (models/en-LANG/MODEL_CARD.md). The same
# data, seed and update counts give the same batches and random draws; the weights are identical
# bit for bit only with the same thread count and CPU (the shipped runs used one thread, en-it's
# first stage two). A stage whose export exists is skipped; a stopped stage resumes exactly.
# Reads $DATA_ROOT (default ../shared/data), never writes into models/ unless EXPORT_TO says so.
set -euo pipefail
cd "$(dirname "$0")/.."
L=${1:?usage: recipes/small-ldpe.sh it|de|fr|es}
source recipes/corpora.sh
first_corpora_of "$L" > /dev/null
case "$L" in
  it) shipped="first:5322:best second:4800:best third:1500:avg3" ;;
  de) shipped="first:1111:best cont:1268:avg cont:2808:avg second:5279:avg third:1500:best" ;;
  fr) shipped="first:1995:best cont:5699:avg second:5152:avg" ;;
  es) shipped="first:2375:best cont:1123:avg second:2805:avg third:800:avg3 third:900:avg3" ;;
esac
STAGES=${STAGES:-$shipped}
RUNS=${RUNS:-runs/recipe-en-$L}
THREADS=${THREADS:-1}
DATA=$DATA_ROOT/en-$L
mapfile -t first_flags < <(corpus_flags $(first_corpora_of "$L"))
mapfile -t second_flags < <(corpus_flags $(corpora_of "$L"))
lengths=(--method ldpe+pe --noise 4 --length-dropout 0.2 --length-unit char)

prev=${INIT:-models/en-$L} prev_run=
n=0
for stage in $STAGES; do
  IFS=: read -r kind updates pick <<< "$stage"
  n=$((n + 1))
  run=$RUNS/$n-$kind
  if [[ -f $run/export/config.json ]]; then prev=$run/export prev_run=$run; continue; fi
  start=(--init-from "$prev")
  [[ $kind == first ]] && start=()
  [[ -d $run/last ]] && start=(--resume)
  case "$kind" in  # data: what `fitsub prepare` fixes; train: the run's own settings
    first | cont)
      data=(--data "$DATA/train" "${first_flags[@]}" --src en --tgt "$L" --length-unit char
        --vocab-size 8000 --dev-size 1000 --seed 1)
      train=("${lengths[@]}" --size small --eval-every 300 --bleu-sentences 200 --seed 1
        --warmup 400 --lr 0.001) ;;
    second)
      data=(--data "$DATA/train" "${second_flags[@]}" --src en --tgt "$L" --length-unit char
        --dev "$DATA/dev/ud-pud" --seed 1)
      train=("${lengths[@]}" --warmup 200 --lr 0.0007 --eval-every 300 --bleu-sentences 300
        --patience 0 --seed 1) ;;
    third)
      data=(--data "$DATA/train" "${second_flags[@]}" --src en --tgt "$L" --length-unit char
        --dev "$DATA/dev/ud-pud" --seed 3)
      train=("${lengths[@]}" --warmup 300 --lr 0.0002 --eval-every 300 --bleu-sentences 300
        --patience 0 --seed 3) ;;
    *) echo "unknown stage kind $kind (first, cont, second or third)" >&2; exit 2 ;;
  esac
  # the stage's data, prepared once (SentencePiece on one thread, as the shipped runs trained it;
  # a continued stage encodes with the model it starts from)
  tok=(--threads 1)
  [[ $kind == first ]] || tok=(--tokenizer "$prev")
  [[ -f $run-data/manifest.json ]] || "$FITSUB" prepare "${data[@]}" "${tok[@]}" --out "$run-data"
  keep=2
  [[ $pick == avg3 ]] && keep=3
  # shellcheck disable=SC2086  # EXTRA_ARGS is a list of flags, split on spaces
  "$FITSUB" train --out "$run" --prepared "$run-data" "${start[@]}" "${train[@]}" \
    --keep-checkpoints "$keep" --threads "$THREADS" --max-steps "$updates" ${EXTRA_ARGS:-}
  picked=$run/best
  if [[ $pick == avg || $pick == avg3 ]]; then
    mapfile -t kept < <(ls -d "$run"/steps/step-* | tail -"$keep")
    "$FITSUB" average "${kept[@]}" --out "$run/avg$keep" --dtype float32 --force
    picked=$run/avg$keep
  fi
  "$FITSUB" export "$picked" "$run/export" --dtype float16 --force
  prev=$run/export prev_run=$run
done
echo "model: $prev"
if [[ -n ${EXPORT_TO:-} ]]; then  # the weights, tokenizer, config, the last run's log; the card stays
  mkdir -p "$EXPORT_TO"
  cp "$prev"/{config.json,model.safetensors,spm.model} "$EXPORT_TO/"
  cp "$prev_run/train_log.jsonl" "$EXPORT_TO/"
  echo "copied into $EXPORT_TO"
fi
