#!/usr/bin/env bash
# Translate every shipped sample with the shipped models into OUT (default build/snapshot), with
# JSON reports and an eval report, so that two revisions can be compared byte for byte:
#   bash bench/samples_snapshot.sh build/before; (change code); bash bench/samples_snapshot.sh build/after
#   diff -r build/before build/after && echo identical
# A behaviour-preserving change (refactoring) must leave the outputs identical.
# Every sample into Italian; the subtitle samples with references (bees, film) into de, fr, es too;
# the dubbing scene by speaking time; an eval report (BLEU, length) on bees.srt against its
# Italian reference. FITSUB="taskset -c 1 .venv/bin/fitsub" pins it to one core.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-build/snapshot}
F=${FITSUB:-.venv/bin/fitsub}
rm -rf "$OUT"; mkdir -p "$OUT"
run() {  # run SAMPLE LANG [ARGS...]
  local s=$1 l=$2; shift 2
  local base=${s##*/} ; local name=${base%.*} ext=${base##*.}
  local tag=${base/./-}-$l
  $F translate "samples/$s" --lang "$l" -o "$OUT/$name.$l.$ext" --report "$OUT/$tag.json" \
    --table-format tsv --threads 1 "$@" > "$OUT/$tag.table.tsv"
}
for s in talk.srt talk.vtt talk.ass lecture.srt slides.md deck.pptx tagged.srt tagged.vtt tagged.ass; do
  run "$s" it --ratio 1.0
done
for l in it de fr es; do
  run bees.srt "$l"
  run film.srt "$l"
done
run dubbing/scene.srt it --profile dubbing --unit syllables
$F eval --src samples/bees.srt --ref samples/bees.it-ref.srt --lang it --bleu --lr --threads 1 \
  --json "$OUT/eval-bees-it.json" --quiet
# The eval report's speed and absolute model path are not output: dropped before comparing.
python3 - "$OUT/eval-bees-it.json" <<'PY'
import json, os, sys
path = sys.argv[1]
report = json.load(open(path, encoding="utf-8"))
for row in report["rows"]:
    row["metrics"].pop("segments_per_s", None)
    row["model"] = os.path.relpath(row["model"]) if row.get("model") else row.get("model")
json.dump(report, open(path, "w", encoding="utf-8"), indent=1, sort_keys=True)
PY
# A .pptx is a zip whose entries carry timestamps: compare its slide XML, not its bytes.
python3 - "$OUT/deck.it.pptx" > "$OUT/deck.xml.txt" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for n in sorted(z.namelist()):
        if n.startswith("ppt/slides/slide"):
            print(n); print(z.read(n).decode("utf-8"))
PY
rm "$OUT/deck.it.pptx"
