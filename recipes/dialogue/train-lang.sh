#!/usr/bin/env bash
# A per-language dialogue fine-tune (issue 54): the shipped models/en-LANG continued on that
# language's filtered film/TV subtitles plus its own training mix scaled down (every corpus of
# the model's config at SCALE x its weight), no TED data. Run recipes/dialogue/train.sh's step 1
# first (it writes build/dialogue/data and build/dialogue/dev). Everything derived from
# ../shared/data stays under build/ (never committed).
# Usage: recipes/dialogue/train-lang.sh LANG [MAX_TIME] [SCALE]   (defaults 110m, 0.2)
# Continue a stopped run: RESUME=1 recipes/dialogue/train-lang.sh LANG MAX_TIME
source "$(dirname "$0")/finetune.sh"  # strict mode, the repository root, $FITSUB, $B
L=$1
MAX_TIME=${2:-110m}
SCALE=${3:-0.2}
M=models/en-$L

# 1. The mix: the subtitles at 1, the model's own corpora at SCALE x their weight.
mapfile -t OLD < <(python3 - "$M/config.json" "$SCALE" <<'PY'
import json, sys
corpora = json.load(open(sys.argv[1]))["train"]["config"]["corpora"]
scale = float(sys.argv[2])
for spec in corpora:
    name, _, weight = spec.partition(":")
    print(f"--corpus\n{name}:{float(weight or 1) * scale:g}")
PY
)
if [[ -z ${RESUME:-} ]]; then
  $FITSUB prepare --data "$B/data/en-$L" --tgt "$L" --dev "$B/dev/en-$L/sel" \
    --corpus opensubtitles-f "${OLD[@]}" --tokenizer "$M" --out "$B/prep-$L" --threads 1 --force
fi

# 2. The fine-tune on one core (recipes/dialogue/finetune.sh).
finetune "$B/prep-$L" "runs/dialogue-$L" "$M" "$MAX_TIME"
