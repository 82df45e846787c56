#!/usr/bin/env bash
# The comparison of Oka et al. 2021 on our data (issue 14): the AR teacher (models/en-it, LDPE
# trained with length noise) against CMLM and Levenshtein Transformer students, each trained on
#   raw         : N random human-translated en-it training pairs,
#   skd         : the same sources translated by the teacher with no length signal (Kim & Rush),
#   perldpe-skd : the same sources translated by the teacher given the reference's length
#                 (the perturbed-LDPE teacher, exact length at distillation time, as in the paper),
# for the same wall time each (MINUTES, one CPU thread), initialised from the teacher. Then
# `fitsub eval` of all seven on the first SEGMENTS of tatoeba-test-unseen and flores200-devtest,
# one thread, batch 32, with decoding speed. Every stage is skipped when its output exists, and
# distillation and training resume, so the script can be run again after an interruption.
# STAGES picks stages (data distill train eval). Reads ../shared/data; writes under runs/nat.
set -euo pipefail
cd "$(dirname "$0")/../.."
FITSUB=${FITSUB:-.venv/bin/fitsub}
PY=${PY:-.venv/bin/python}
N=${N:-20000}
MINUTES=${MINUTES:-12}
SEGMENTS=${SEGMENTS:-200}
DATA=../shared/data/en-it
OUT=runs/nat
STAGES=${STAGES:-data distill train eval}
mkdir -p "$OUT"
has() { [[ " $STAGES " == *" $1 "* ]]; }

if has data && [[ ! -s $OUT/raw.it ]]; then
  # N pairs drawn (seed 1) from the human-translated sources the teacher learnt from.
  $PY - "$DATA/train" "$OUT/raw" "$N" <<'PYEOF'
import random, sys
from pathlib import Path
train, out, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
names = ["tatoeba", "wikipedia-seed", "modernmt-europarl", "modernmt-ibm", "modernmt-microsoft",
         "cocoa-spoken", "mtgeneval", "xsid"]
pairs = []
for name in names:
    src = (train / f"{name}.en").read_text(encoding="utf-8").splitlines()
    tgt = (train / f"{name}.it").read_text(encoding="utf-8").splitlines()
    pairs += [(s.strip(), t.strip()) for s, t in zip(src, tgt) if s.strip() and t.strip()]
pairs = sorted(set(pairs))
random.Random(1).shuffle(pairs)
pick = pairs[:n]
Path(out + ".en").write_text("".join(s + "\n" for s, _ in pick), encoding="utf-8")
Path(out + ".it").write_text("".join(t + "\n" for _, t in pick), encoding="utf-8")
print(f"{len(pick)} pairs of {len(pairs)} distinct")
PYEOF
fi

if has distill; then
  $FITSUB distill "$OUT/raw.en" --model models/en-it -o "$OUT/skd" --length none \
    --beam 5 --threads 1 --quiet
  $FITSUB distill "$OUT/raw.en" --reference "$OUT/raw.it" --model models/en-it \
    -o "$OUT/perldpe-skd" --length reference --noise 0 --beam 5 --threads 1 --quiet
fi

if has train; then
  for data in raw skd perldpe-skd; do
    for arch in cmlm levt; do
      run="$OUT/$arch-$data"
      [[ -f $run/done ]] && continue
      start=(--init-from models/en-it)
      [[ -d $run/last ]] && start=(--resume)
      $FITSUB train --arch "$arch" --train "$OUT/$data" --out "$run" "${start[@]}" \
        --src en --tgt it --method ldpe+pe --noise 2 --noise-mode positive --length-unit char \
        --max-tokens 2048 --lr 0.0005 --warmup 100 --dev-size 300 --eval-every 200 \
        --bleu-sentences 100 --seed 1 --threads 1 --max-time "${MINUTES}m"
      touch "$run/done"
    done
  done
fi

if has eval; then
  models=(--model models/en-it)
  for data in raw skd perldpe-skd; do
    for arch in cmlm levt; do models+=(--model "$OUT/$arch-$data/best"); done
  done
  $FITSUB eval "${models[@]}" --testset "tatoeba=$DATA/test/tatoeba-test-unseen" \
    --testset "flores=$DATA/test/flores200-devtest" --max-segments "$SEGMENTS" \
    --settings unconstrained --settings hard --settings iso --ratio 1 --bleu --lr \
    --beam 5 --batch-size 32 --threads 1 --markdown "$OUT/table.md" --json "$OUT/table.json"
fi
