#!/usr/bin/env bash
# Reproduces the shipped en→it model (models/en-it) and the method comparison in the README.
# Reads ../shared/data (never copied into the repo). CPU, 2 threads; see models/en-it/MODEL_CARD.md.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/en_it_data.sh

# 1. The base model: LDPE added to the ordinary encoding, character lengths, noise [-4, 4], and
#    20 % of the rows trained without a length (the unconstrained mode of the same model).
#    The shipped checkpoint stopped this run at update 600 and resumed it (exact resume) with
#    `--resume --max-time 45m --threads 2`; one uninterrupted run makes the same updates.
$FITSUB train --out runs/en-it-base --method ldpe+pe --noise 4 --length-dropout 0.2 \
  --warmup 400 --lr 0.001 "${COMMON[@]}" --threads 2 --max-time 80m
$FITSUB export runs/en-it-base/best models/en-it --dtype float16

# 2. Trained longer: the shipped model resumed from runs/en-it-base/last (exact resume).
#    Session 2: `--resume --threads 1 --max-time 110m` (see MODEL_CARD.md for the steps reached).
# $FITSUB train --out runs/en-it-base --resume --threads 1 --max-time 110m
# $FITSUB export runs/en-it-base/best models/en-it --dtype float16
#
# The method comparison (baseline, length tokens, LDPE, LRPE) is scripts/compare_methods_en_it.sh.
