#!/usr/bin/env bash
# The declared floors, tested: a throwaway virtual environment with every runtime dependency at
# its minimum (constraints-min.txt; torch stays the local CPU build of constraints.txt), then
# `fitsub --help`, a dry run with `--model identity`, one real translation with the shipped
# en-it model, its unconstrained pass on CTranslate2 (greedy, as fitsub's own search) and the quality
# score's forced pass (on fitsub's decoder before ctranslate2 4.4, the same numbers). Run by
# `make test` (the `min-versions` target); needs the package index.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/fitsub-min.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache  # its CTranslate2 conversions go with it
# pip compiles no bytecode; the first fitsub run writes the .pyc of what it imports (as make demo)
unset PYTHONDONTWRITEBYTECODE
$PYTHON -m venv "$work/venv"
PIP_CONSTRAINT=$PWD/constraints.txt "$work/venv/bin/python" -m pip install -q --no-compile \
  -c constraints-min.txt -e '.[length,plot]' 2>&1 | grep -v '^WARNING: Location' || true
"$work/venv/bin/python" -m pip check > /dev/null || { "$work/venv/bin/python" -m pip check; exit 1; }
bin=$work/venv/bin
"$bin/python" - <<'PY'
import importlib.metadata as md
floors = {}
for line in open("constraints-min.txt", encoding="utf-8"):
    if line.strip() and not line.startswith("#"):
        name, _, version = line.strip().partition("==")
        floors[name] = version
wrong = {n: (v, md.version(n)) for n, v in floors.items() if md.version(n) != v}
assert not wrong, f"not at their floors: {wrong}"
print("min-versions:", ", ".join(f"{n} {v}" for n, v in floors.items()))
PY
"$bin/fitsub" --help > "$work/help.txt"
grep -q "translate" "$work/help.txt"
"$bin/fitsub" translate samples/talk.srt --lang it --model identity --threads 1 -q -o "$work/talk.id.srt"
cmp -s samples/talk.srt "$work/talk.id.srt" || { echo "identity run changed the file"; exit 1; }
"$bin/fitsub" translate samples/talk.srt --lang it --ratio 1.0 --threads 1 -q -o "$work/talk.it.srt"
test "$(grep -c -- '-->' "$work/talk.it.srt")" = "$(grep -c -- '-->' samples/talk.srt)"
"$bin/python" - <<'PY'
import os
from fitsub.backend import Request
from fitsub.nmt.backend import NMTBackend
import ctranslate2
texts = ["Good morning, my friend.", "Where is the house?", "We kept bees in an apiary."]
fast = NMTBackend("models/en-it", device="cpu", beam=1, threads=1)
assert fast.ct2 is not None, fast.engine_note
os.environ["FITSUB_CT2"] = "off"
own = NMTBackend("models/en-it", device="cpu", beam=1, threads=1)
got = [c[0].text for c in fast.translate([Request(t) for t in texts])]
assert got == [c[0].text for c in own.translate([Request(t) for t in texts])], got
print(f"min-versions: the unconstrained pass on ctranslate2 {ctranslate2.__version__}: greedy as fitsub's own")
# the quality score's forced pass: on CTranslate2 from 4.4, on fitsub's decoder before; the same
from fitsub.nmt.ct2_score import supported
del os.environ["FITSUB_CT2"]
scorer = NMTBackend("models/en-it", device="cpu", beam=1, threads=1)
scores = scorer.score_outputs([Request(t) for t in texts], got)
ref = own.score_outputs([Request(t) for t in texts], got)
for a, b in zip(scores, ref, strict=True):
    assert len(a.token_logprobs) == len(b.token_logprobs) > 1
    assert max(abs(x - y) for x, y in zip(a.entropies, b.entropies)) < 0.02
engine = "CTranslate2" if supported() else "fitsub's decoder"
print(f"min-versions: the quality score's forced pass on {engine}")
PY
echo "min-versions: fitsub --help, an identity run, a real translation and CTranslate2's pass passed"
