#!/usr/bin/env bash
# The recipe of the shipped output-length predictors, models/en-LANG/length-predictor (Oka et al.
# 2020, Sec. 3.2: a frozen pretrained English encoder, all-MiniLM-L6-v2, and a regression head;
# `fitsub train-length`). Its encoder is in the default install (docs/models-and-training.md).
#
#   recipes/length-predictor.sh LANG                          # LANG = it, de, fr or es; into runs/
#   EXPORT_TO=models/en-it/length-predictor recipes/length-predictor.sh it
#
# MODEL (default models/en-LANG) is the translation model it serves (its languages and length
# unit). en-it: 36,392 pairs of the en-it first-stage corpora (models/en-it/length-predictor/
# README.md); de / fr / es: a smaller sample (12,900 pairs each) of the same mix of domains.
# Reads $DATA_ROOT (default ../shared/data); encoder features are cached under runs/.
set -euo pipefail
cd "$(dirname "$0")/.."
L=${1:?usage: recipes/length-predictor.sh it|de|fr|es}
source recipes/corpora.sh
case "$L" in
  it) corpora=tatoeba:16000,gettext-ui:8000,wikipedia-seed:6000,modernmt-europarl:2000,modernmt-ibm:2000,modernmt-microsoft:2000,cocoa-spoken
    dev_size=1000 ;;
  de) corpora=tatoeba:6000,gettext-ui:3000,wmt-news:1500,mtgeneval:1000,bcontrast-chat:1000,cocoa-spoken
    dev_size=500 ;;
  fr) corpora=tatoeba:6000,gettext-ui:3000,wmt-news:1500,mtgeneval:1000,tico19:1000,cocoa-spoken
    dev_size=500 ;;
  es) corpora=tatoeba:6000,gettext-ui:3000,wmt-news:1500,mtgeneval:1000,wikipedia-seed:1000,cocoa-spoken
    dev_size=500 ;;
  *) echo "unknown language $L (it, de, fr or es)" >&2; exit 2 ;;
esac
out=${OUT:-runs/recipe-length-$L}
"$FITSUB" train-length --model "${MODEL:-models/en-$L}" --data-dir "$DATA_ROOT/en-$L/train" \
  --corpora "$corpora" --dev-size "$dev_size" --dev "$DATA_ROOT/en-$L/dev/ud-pud" \
  --threads "${THREADS:-1}" --cache "runs/lengthpred-$L" --out "$out"
echo "predictor: $out"
if [[ -n ${EXPORT_TO:-} ]]; then
  mkdir -p "$EXPORT_TO"
  cp "$out"/{config.json,head.safetensors} "$EXPORT_TO/"
  echo "copied into $EXPORT_TO"
fi
