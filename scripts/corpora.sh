# Sourced by the issue-12 training scripts: the training corpora of each pair with their weights
# (`fitsub train --corpus NAME:WEIGHT`). en-it: chosen in scripts/data_study_en_it.sh (README
# "Which data helps"): every human-translated source, tatoeba down-weighted (the first model saw
# it 5 times), UI strings halved, the long formal sources doubled, cocoa-spoken × 4, plus the
# machine-translated web set (+1.3 dev BLEU). de / fr / es by analogy (the same reasons; web-MT
# where the pair has it; europarl-lowercased is en-it only and left out).
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
    *) echo "unknown language $1" >&2; return 2 ;;
  esac
}
