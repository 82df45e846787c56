#!/usr/bin/env bash
# The dubbing measurements of docs/results/dubbing.md: the shipped models on 200 dev lines a
# language and on samples/dubbing/scene.srt, char-isometric (--ratio 1.0, with its unconstrained
# run) and syllable-isometric (--unit syllables), then the tables. One thread: the CPU is shared.
#   DATA=../shared/data experiments/dubbing/run.sh
set -euo pipefail
DATA=${DATA:-../shared/data}
OUT=build/dub
mkdir -p "$OUT"
for l in it de es; do
  { sed -n 101,200p "$DATA/en-$l/dev/ud-pud.en"; sed -n 1,100p "$DATA/en-$l/dev/mustc-tst-common-a.en"; } > "$OUT/dev.$l.src.txt"
  { sed -n 101,200p "$DATA/en-$l/dev/ud-pud.$l"; sed -n 1,100p "$DATA/en-$l/dev/mustc-tst-common-a.$l"; } > "$OUT/dev.$l.ref"
done
sed -n 101,300p "$DATA/en-fr/dev/ud-pud.en" > "$OUT/dev.fr.src.txt"  # en-fr: no MuST-C dev set
sed -n 101,300p "$DATA/en-fr/dev/ud-pud.fr" > "$OUT/dev.fr.ref"
for l in it de fr es; do
  for input in "dev.$l.src.txt" scene.srt; do
    src="$OUT/$input"; stem=dev; ext=txt
    if [ "$input" = scene.srt ]; then src=samples/dubbing/scene.srt; stem=scene; ext=srt; fi
    dub=""  # subtitles: the dubbing profile (no reading-speed limit), in characters
    if [ "$stem" = scene ]; then dub="--profile dubbing --unit char"; fi
    # shellcheck disable=SC2086
    [ -f "$OUT/char.$stem.$l.json" ] || .venv/bin/fitsub translate "$src" --lang "$l" --ratio 1.0 $dub \
      --threads 1 -q -o "$OUT/char.$stem.$l.$ext" --report "$OUT/char.$stem.$l.json"
    [ -f "$OUT/syl.$stem.$l.json" ] || .venv/bin/fitsub translate "$src" --lang "$l" --unit syllables \
      --threads 1 -q -o "$OUT/syl.$stem.$l.$ext" --report "$OUT/syl.$stem.$l.json"
  done
done
.venv/bin/python experiments/dubbing/measure.py predictors "$OUT"
.venv/bin/python experiments/dubbing/measure.py systems "$OUT" char.dev syl.dev
.venv/bin/python experiments/dubbing/measure.py systems "$OUT" char.scene syl.scene
