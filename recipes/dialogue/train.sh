#!/usr/bin/env bash
# The dialogue fine-tune of models/en-multi (issue 54): film/TV subtitles weighted up, some of the
# old data kept, on one CPU core. Everything derived from ../shared/data is written under build/
# (never committed). Usage: recipes/dialogue/train.sh [MAX_TIME]   (default 125m)
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA=${DATA:-../shared/data}
MAX_TIME=${1:-125m}
FITSUB=${FITSUB:-.venv/bin/fitsub}
B=build/dialogue

# 1. The subtitle pairs filtered (character ratio 0.6-1.9 when both sides exceed 10 characters,
#    the target not the source copied, digits on both sides or neither); the other corpora linked.
for l in it de fr es; do
  python3 recipes/dialogue/filter_subtitles.py "$DATA/en-$l/train/opensubtitles" "$l" "$B/data/en-$l/opensubtitles-f"
  for f in "$DATA/en-$l/train/"*.en; do
    n=$(basename "$f" .en)
    case $n in ted*|opensubtitles*) continue ;; esac      # TED: CC BY-NC-ND, evaluation only
    ln -sf "$(realpath "$f")" "$B/data/en-$l/$n.en"
    ln -sf "$(realpath "$DATA/en-$l/train/$n.$l")" "$B/data/en-$l/$n.$l"
  done
  # model selection: the first 250 lines of dev/opensubtitles (its first half; the report half
  # is the second, experiments/dialogue/compare.py)
  mkdir -p "$B/dev/en-$l"
  head -250 "$DATA/en-$l/dev/opensubtitles.en" > "$B/dev/en-$l/sel.en"
  head -250 "$DATA/en-$l/dev/opensubtitles.$l" > "$B/dev/en-$l/sel.$l"
done
python3 recipes/dialogue/filter_subtitles.py "$DATA/en-fr/train/opensubtitles-pronouns" fr "$B/data/en-fr/opensubtitles-pronouns-f"

# 2. Prepared once with en-multi's tokenizer: 277,012 pairs, 5.49 M target pieces an epoch.
$FITSUB prepare --data "$B/data/en-{tgt}" --tgt it,de,fr,es --dev "$B/dev/en-{tgt}/sel" \
  --corpus opensubtitles-f --corpus fr/opensubtitles-pronouns-f:0.5 --corpus tatoeba:0.03 \
  --corpus gettext-ui:0.03 --corpus wmt-news:0.5 --corpus wikipedia-seed --corpus mtgeneval:0.5 \
  --corpus cocoa-spoken:2 --corpus multi30k:0.1 --corpus de/bcontrast-chat:0.3 --corpus tico19:0.5 \
  --tokenizer models/en-multi --vocab-size 16000 --out "$B/prep" --threads 1 --force

# 3. The fine-tune on one core (taskset -c 0 keeps it there; give everything else --threads 1).
taskset -c 0 $FITSUB train --prepared "$B/prep" --out runs/dialogue --init-from models/en-multi \
  --method ldpe+pe --noise 4 --length-dropout 0.2 --dropout 0.1 --max-tokens 4096 --lr 3e-4 \
  --warmup 50 --lr-schedule deadline --eval-every 100000 --eval-time 15m --bleu-sentences 200 \
  --patience 0 --keep-checkpoints 3 --device cpu --threads 1 --no-compile --max-time "$MAX_TIME" \
  --export runs/dialogue-model
