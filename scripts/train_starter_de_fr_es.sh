#!/usr/bin/env bash
# Starter en→de / en→fr / en→es models (models/en-de, models/en-fr, models/en-es): the shipped
# en→it recipe (LDPE + ordinary encoding, character lengths, noise [-4, 4], 20 % of rows without a
# length, small preset), one short run per language, one after the other on one CPU thread.
# Reads ../shared/data (never copied into the repo). Each run resumes exactly when started again.
# MINUTES (default 38) is each language's wall-time budget; LANGS picks the languages.
# CONTINUE=1 continues training from the shipped models/en-LANG (a new run, runs/en-LANG-cont,
# fresh optimizer and warm-up) when the original run directory is gone, e.g. on a new machine.
set -euo pipefail
cd "$(dirname "$0")/.."
FITSUB=${FITSUB:-.venv/bin/fitsub}
MINUTES=${MINUTES:-38}

corpora() {
  # Human-translated sources only (web-machine-translated and lowercased Europarl are left out,
  # as for en→it); gettext-ui at half weight (UI strings, many placeholders); cocoa-spoken × 4
  # (the only spoken, formal data). Per language: every other human source in train/.
  case "$1" in
    de) echo tatoeba gettext-ui:0.5 multi30k wmt-news bcontrast-chat mtgeneval xsid cocoa-spoken:4 ;;
    fr) echo tatoeba gettext-ui:0.5 multi30k wmt-news tico19 mtgeneval cocoa-spoken:4 ;;
    es) echo tatoeba gettext-ui:0.5 wikipedia-seed wmt-news tico19 mtgeneval cocoa-spoken:4 ;;
    *) echo "unknown language $1" >&2; exit 2 ;;
  esac
}

for lang in ${LANGS:-de fr es}; do
  args=()
  for c in $(corpora "$lang"); do args+=(--corpus "$c"); done
  run="runs/en-$lang-starter"
  resume=()
  if [[ "${CONTINUE:-0}" == 1 ]]; then
    run="runs/en-$lang-cont"
    [[ -d $run/last ]] && resume=(--resume) || resume=(--init-from "models/en-$lang")
  fi
  [[ -d $run/last ]] && resume=(--resume)
  $FITSUB train --out "$run" "${resume[@]}" \
    --data "../shared/data/en-$lang/train" "${args[@]}" --src en --tgt "$lang" \
    --method ldpe+pe --noise 4 --length-dropout 0.2 --warmup 400 --lr 0.001 \
    --length-unit char --size small --vocab-size 8000 --dev-size 1000 --eval-every 300 \
    --bleu-sentences 200 --seed 1 --threads "${THREADS:-1}" --max-time "${MINUTES}m" \
    --keep-checkpoints 2
  # Export beside the run, then replace only the weights, tokenizer, config and log: the model
  # card and the length predictor in models/en-LANG stay.
  $FITSUB export "$run/best" "$run/export" --dtype float16 --force
  cp "$run/export/"{config.json,model.safetensors,spm.model,train_log.jsonl} "models/en-$lang/"
done
