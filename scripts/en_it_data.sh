# Sourced by scripts/train_en_it.sh and scripts/compare_methods_en_it.sh: the en→it training data
# and the settings every en→it run shares (read from ../shared/data, never copied into the repo).
DATA=${DATA:-../shared/data/en-it/train}
FITSUB=${FITSUB:-.venv/bin/fitsub}
COMMON=(--data "$DATA" --corpus tatoeba --corpus gettext-ui:0.5 --corpus wikipedia-seed
        --corpus modernmt-europarl --corpus modernmt-ibm --corpus modernmt-microsoft
        --corpus cocoa-spoken:4 --src en --tgt it --length-unit char --size small
        --vocab-size 8000 --dev-size 1000 --eval-every 300 --bleu-sentences 200 --seed 1)
