#!/usr/bin/env bash
# Length predictors (fitsub train-length, Oka et al. 2020) for the starter models
# models/en-de, en-fr, en-es: a smaller sample than en-it's (models/en-it/length-predictor:
# 36 k pairs), 12 k pairs per language, the same mix of domains. Needs the `length` extra.
set -euo pipefail
cd "$(dirname "$0")/.."
FITSUB=${FITSUB:-.venv/bin/fitsub}
for lang in ${LANGS:-de fr es}; do
  case "$lang" in
    de) corpora=tatoeba:6000,gettext-ui:3000,wmt-news:1500,mtgeneval:1000,bcontrast-chat:1000,cocoa-spoken ;;
    fr) corpora=tatoeba:6000,gettext-ui:3000,wmt-news:1500,mtgeneval:1000,tico19:1000,cocoa-spoken ;;
    es) corpora=tatoeba:6000,gettext-ui:3000,wmt-news:1500,mtgeneval:1000,wikipedia-seed:1000,cocoa-spoken ;;
  esac
  $FITSUB train-length --model "models/en-$lang" --data-dir "../shared/data/en-$lang/train" \
    --corpora "$corpora" --dev-size 500 --dev "../shared/data/en-$lang/dev/ud-pud" \
    --threads "${THREADS:-1}" --cache "runs/lengthpred-$lang"
done
