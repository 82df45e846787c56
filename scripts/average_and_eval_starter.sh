#!/usr/bin/env bash
# Average the last two kept checkpoints of a CONTINUE=1 starter run, keep the average when it
# beats the best single checkpoint on 300 held-out dev pairs, then evaluate the shipped model.
#   bash scripts/average_and_eval_starter.sh LANG            (the two newest in runs/en-LANG-cont/steps)
#   bash scripts/average_and_eval_starter.sh LANG DIR_A DIR_B (any two checkpoint directories)
# The starter script trains with `--keep-checkpoints 2`, which keeps OUT/steps/step-NNNNNN.
set -euo pipefail
cd "$(dirname "$0")/.."
F=.venv/bin/fitsub
L=$1
if [ $# -ge 3 ]; then a=$2; b=$3; else
  mapfile -t kept < <(ls -d runs/en-$L-cont/steps/step-* | tail -2); a=${kept[0]}; b=${kept[1]}
fi
$F average "$a" "$b" --out runs/en-$L-avg2 --dtype float32 --force
for m in runs/en-$L-cont/best runs/en-$L-avg2; do
  name=$(echo $m | tr '/' '_')
  $F eval --model $m --testset dev=runs/en-$L-cont/dev --lang $L --settings unconstrained --max-segments 300 --threads 1 --json runs/dev_$name.json > runs/dev_$name.txt
done
best=$(python3 -c "
import json
a=json.load(open('runs/dev_runs_en-${L}-cont_best.json'))['rows'][0]['metrics']['bleu']['score']
b=json.load(open('runs/dev_runs_en-${L}-avg2.json'))['rows'][0]['metrics']['bleu']['score']
print('avg2' if b>a else 'best')")
echo "chosen: $best"
if [ "$best" = avg2 ]; then
  $F export runs/en-$L-avg2 runs/en-$L-avg2-export --dtype float16 --force
  cp runs/en-$L-avg2-export/{config.json,model.safetensors,spm.model} models/en-$L/
fi
$F eval --model models/en-$L --testset tatoeba=../shared/data/en-$L/test/tatoeba-test-unseen --testset flores=../shared/data/en-$L/test/flores200-devtest --lang $L --settings unconstrained --settings hard --settings iso --max-segments 100 --threads 1 --json runs/eval_$L.json > runs/eval_$L.txt
echo finished
