#!/usr/bin/env bash
# Long fuzz run: N mutated SRT / WebVTT / slide files (UTF-32 and BOM-less UTF-16 / UTF-32, empty
# WebVTT / ASS, ASS drawings among the mutations) through `fitsub translate` (in-process,
# toy backend, no model), outcomes per mutation. Usage: tools/fuzz.sh [N=10000] [SEED=18]
# Failing inputs are saved beside the temporary folder (the path is printed with each failure).
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-10000}"
SEED="${2:-18}"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
exec "${PYTHON:-.venv/bin/python}" tests/system/test_fuzz.py "$N" "$SEED"
