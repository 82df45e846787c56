#!/usr/bin/env bash
# The multilingual model continued for one language (issue 54): models/en-multi (its dialogue
# fine-tune) on LANG's filtered film/TV subtitles and its old corpora at the dialogue mix's
# weights, with a little of the other languages' subtitles (OTHERS x) kept so the model stays
# multilingual; no TED data. Run recipes/dialogue/train.sh's step 1 first (it writes
# build/dialogue/data and build/dialogue/dev). Everything derived from ../shared/data stays under
# build/ (never committed).
# Usage: recipes/dialogue/train-multi-lang.sh LANG [MAX_TIME] [OTHERS]   (defaults 100m, 0.1)
# Continue a stopped run: RESUME=1 recipes/dialogue/train-multi-lang.sh LANG MAX_TIME
source "$(dirname "$0")/finetune.sh"  # strict mode, the repository root, $FITSUB, $B
L=$1
MAX_TIME=${2:-100m}
OTHERS=${3:-0.1}
M=models/en-multi

# 1. The mix: LANG's subtitles at 1 and its old corpora at the dialogue weights (train.sh), the
#    other languages' subtitles at OTHERS.
SPECS=(--corpus "$L/opensubtitles-f" --corpus "$L/tatoeba:0.03" --corpus "$L/gettext-ui:0.03"
  --corpus "$L/wmt-news:0.5" --corpus "$L/wikipedia-seed" --corpus "$L/mtgeneval:0.5"
  --corpus "$L/cocoa-spoken:2" --corpus "$L/tico19:0.5")
for o in it de fr es; do
  [[ $o == "$L" ]] || SPECS+=(--corpus "$o/opensubtitles-f:$OTHERS")
done
if [[ -z ${RESUME:-} ]]; then
  $FITSUB prepare --data "$B/data/en-{tgt}" --tgt it,de,fr,es --dev "$B/dev/en-{tgt}/sel" \
    "${SPECS[@]}" --tokenizer "$M" --vocab-size 16000 --out "$B/prep-multi-$L" --threads 1 --force
fi

# 2. The fine-tune on one core (recipes/dialogue/finetune.sh).
finetune "$B/prep-multi-$L" "runs/dialogue-multi-$L" "$M" "$MAX_TIME"
