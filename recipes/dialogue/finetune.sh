# Sourced by recipes/dialogue/train-lang.sh and train-multi-lang.sh: the dialogue fine-tune's
# one training command. finetune PREPARED RUN MODEL MAX_TIME: continue MODEL (or, with RESUME
# set, the stopped run RUN) on PREPARED, on one core (taskset -c 0; give everything else
# --threads 1), the export in RUN-model. Sourcing it also sets the scripts' common ground: strict
# mode, the repository root as the working directory, $FITSUB and $B (the recipe's build folder).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
FITSUB=${FITSUB:-.venv/bin/fitsub}
B=build/dialogue

finetune() {
  local prep=$1 run=$2 model=$3 max_time=$4
  local init=(--init-from "$model" --force)
  [[ -z ${RESUME:-} ]] || init=(--resume)
  taskset -c 0 ${FITSUB:-.venv/bin/fitsub} train --prepared "$prep" --out "$run" "${init[@]}" \
    --dropout 0.1 --max-tokens 4096 --lr 3e-4 --warmup 50 --lr-schedule deadline \
    --eval-every 100000 --eval-time 15m --bleu-sentences 200 --patience 0 --keep-checkpoints 3 \
    --device cpu --threads 1 --no-compile --max-time "$max_time" --export "$run-model"
}
