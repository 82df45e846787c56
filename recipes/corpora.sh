# The one list of training corpora, sourced by recipes/ and experiments/ (bash). Every name is a
# file pair NAME.en / NAME.LANG in $DATA_ROOT/en-LANG/train (recipes/README.md says where the data
# comes from); `NAME:WEIGHT` repeats (or samples) a corpus, as `fitsub train --corpus` reads it.
#
#   first_corpora_of LANG   the first stage of a shipped model (trained from scratch): human
#                           translations only (web-machine-translated and the lowercased Europarl
#                           left out), UI strings halved, cocoa-spoken × 4 (the only spoken,
#                           formal data).
#   corpora_of LANG         the second stage (the continuation every shipped model ends with),
#                           chosen for en-it by experiments/data-study (docs/results/data.md):
#                           every human-translated source, tatoeba down-weighted (the first stage
#                           saw it several times), UI strings and multi30k halved, the long formal
#                           sources doubled, cocoa-spoken × 4, plus the machine-translated web set
#                           (+1.3 dev BLEU). de / fr / es by analogy (web-MT where the pair has it).
#   EN_IT_FIRST             `fitsub train` arguments of the en-it first stage (data, corpora,
#                           shape, vocabulary, dev split, evaluation, seed), which the en-it
#                           studies share.
DATA_ROOT=${DATA_ROOT:-../shared/data}
FITSUB=${FITSUB:-.venv/bin/fitsub}

first_corpora_of() {
  case "$1" in
    it) echo tatoeba gettext-ui:0.5 wikipedia-seed modernmt-europarl modernmt-ibm \
      modernmt-microsoft cocoa-spoken:4 ;;
    de) echo tatoeba gettext-ui:0.5 multi30k wmt-news bcontrast-chat mtgeneval xsid cocoa-spoken:4 ;;
    fr) echo tatoeba gettext-ui:0.5 multi30k wmt-news tico19 mtgeneval cocoa-spoken:4 ;;
    es) echo tatoeba gettext-ui:0.5 wikipedia-seed wmt-news tico19 mtgeneval cocoa-spoken:4 ;;
    *) echo "unknown language $1 (it, de, fr or es)" >&2; return 2 ;;
  esac
}

EN_IT_HUMAN=(tatoeba:0.3 gettext-ui:0.5 wikipedia-seed:2 modernmt-europarl modernmt-ibm
  modernmt-microsoft mtgeneval xsid wmt-news:2 cocoa-spoken:4)
corpora_of() {
  case "$1" in
    it) echo "${EN_IT_HUMAN[@]}" web-machine-translated ;;
    de) echo tatoeba:0.5 gettext-ui:0.5 multi30k:0.5 wmt-news:2 bcontrast-chat mtgeneval xsid \
      cocoa-spoken:4 web-machine-translated ;;
    fr) echo tatoeba:0.5 gettext-ui:0.5 multi30k:0.5 wmt-news:2 tico19:2 mtgeneval cocoa-spoken:4 \
      web-machine-translated ;;
    es) echo tatoeba:0.5 gettext-ui:0.5 wikipedia-seed:2 wmt-news:2 tico19:2 mtgeneval \
      cocoa-spoken:4 ;;
    *) echo "unknown language $1 (it, de, fr or es)" >&2; return 2 ;;
  esac
}

# `--corpus A --corpus B …` for the corpus specs given.
corpus_flags() {
  local c
  for c in "$@"; do printf -- '--corpus\n%s\n' "$c"; done
}

# The first stage's settings: the small shape (d 256, 3 + 3 layers), 8,000 pieces, lengths in
# characters, 1,000 training pairs held out by English source as dev, evaluated every 300 updates.
SMALL_FIRST=(--length-unit char --size small --vocab-size 8000 --dev-size 1000 --eval-every 300
  --bleu-sentences 200 --seed 1)
mapfile -t _en_it_first < <(corpus_flags $(first_corpora_of it))
EN_IT_FIRST=(--data "$DATA_ROOT/en-it/train" "${_en_it_first[@]}" --src en --tgt it "${SMALL_FIRST[@]}")
unset _en_it_first
