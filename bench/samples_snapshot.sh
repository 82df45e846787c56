#!/usr/bin/env bash
# Translate every shipped sample with the shipped en→it model into OUT (default build/snapshot),
# with JSON reports, so that two revisions can be compared byte for byte:
#   bash bench/samples_snapshot.sh build/before; (change code); bash bench/samples_snapshot.sh build/after
#   diff -r build/before build/after && echo identical
# A behaviour-preserving change (refactoring) must leave the outputs identical.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-build/snapshot}
F=${FITSUB:-.venv/bin/fitsub}
rm -rf "$OUT"; mkdir -p "$OUT"
for s in talk.srt talk.vtt talk.ass lecture.srt slides.md deck.pptx; do
  name=${s%.*}; ext=${s##*.}; tag=${s/./-}
  $F translate "samples/$s" --lang it --ratio 1.0 -o "$OUT/$name.it.$ext" \
    --report "$OUT/$tag.json" --table-format tsv > "$OUT/$tag.table.tsv"
done
# A .pptx is a zip whose entries carry timestamps: compare its slide XML, not its bytes.
python3 - "$OUT/deck.it.pptx" > "$OUT/deck.xml.txt" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for n in sorted(z.namelist()):
        if n.startswith("ppt/slides/slide"):
            print(n); print(z.read(n).decode("utf-8"))
PY
rm "$OUT/deck.it.pptx"
