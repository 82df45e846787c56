#!/usr/bin/env bash
# The window as wide as the judge's band (issue 60): every run of docs/results/dubbing.md's
# section of that name. DATA=../shared/data OLD=/work/old60 (a worktree of the release before:
# git worktree add --detach /work/old60 bcca41f) LANGS="it" SETS="scene fresh" VARIANTS="..."
# Outputs under build/win60/ (never committed); one JSON row a run in build/win60/rows.jsonl.
# German, French, Spanish (their section): LANGS="fr es de" VARIANTS="old new-speech" OUT=build/win60b;
# German's and French's first halves end before line 760: --extra fills up from lines 251-400.
set -euo pipefail
DATA=${DATA:-../shared/data}
OLD=${OLD:-/work/old60}
NEW=${NEW:-$PWD}  # the tree under test (a worktree of it keeps others' edits out)
LANGS=${LANGS:-it}
SETS=${SETS:-scene fresh}
VARIANTS=${VARIANTS:-old new old-speech new-speech new-speech-est}
OUT=${OUT:-build/win60}
PY="$PWD/.venv/bin/python"
export OMP_NUM_THREADS=1
mkdir -p "$OUT"
for lang in $LANGS; do
  "$PY" experiments/dubbing/window.py lines "$DATA" --lang "$lang" --first 561 --last 760 --extra 251-400 \
    --out "$OUT/$lang"
  for set in $SETS; do
    if [ "$set" = scene ]; then src="$PWD/samples/dubbing/scene.srt"; ext=srt; ref=(); else
      src="$PWD/$OUT/$lang/fresh.en.txt"; ext=txt; ref=(--ref "$OUT/$lang/fresh.$lang.txt"); fi
    for v in $VARIANTS; do
      o="$PWD/$OUT/$lang/$set.$v.$ext"
      rank=estimate; case $v in *speech*) rank=speech;; esac
      args=("$src" --lang "$lang" --profile dubbing --unit seconds --rank-by "$rank" --threads 1 -q
            -o "$o" --report "$o.report.json")
      start=$(date +%s)
      case $v in
        old|old-speech) (cd "$OLD" && "$PY" -m fitsub translate "${args[@]}") ;;
        new|new-speech) (cd "$NEW" && PYTHONPATH="$NEW" "$PY" experiments/dubbing/window.py translate --shape band --by speech -- "${args[@]}") ;;
        new-speech-est) (cd "$NEW" && PYTHONPATH="$NEW" "$PY" experiments/dubbing/window.py translate --shape band --by estimate -- "${args[@]}") ;;
      esac
      took=$(( $(date +%s) - start ))
      voice=(); [ "$lang" = it ] && voice=(--voice festival)
      (cd "$NEW" && "$PY" -m fitsub dub-check "$o" --source "$src" --lang "$lang" "${voice[@]}" --json "$o.check.json" >/dev/null)
      "$PY" experiments/dubbing/window.py summary --source "$src" --report "$o.report.json" \
        --check "$o.check.json" "${ref[@]}" --lang "$lang" --name "$set/$v (${took} s)" | tee -a "$OUT/rows.jsonl"
    done
  done
done
