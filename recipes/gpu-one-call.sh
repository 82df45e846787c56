#!/usr/bin/env bash
# One GPU call that trains: everything but the updates happens on the CPU beforehand, and the GPU
# command always ends with an exported model (docs/models-and-training.md, "One GPU call").
#
#   recipes/gpu-one-call.sh prepare LANG|all        # here (CPU): build/gpu-LANG/ = a bare copy of
#                                                   # the source tree, the prepared set (xz over
#                                                   # 30 MB) and the typer/click wheels
#                                                   # (TOKENIZER=DIR: encode with DIR's pieces)
#   recipes/gpu-one-call.sh check LANG|all [SECONDS] # on the GPU machine, first: every CUDA path
#                                                   # once (updates, dev BLEU, saves, export)
#   recipes/gpu-one-call.sh train LANG|all MINUTES  # on the GPU machine, from the repository root:
#                                                   # trains until MINUTES after it starts, exports
#                                                   # float16 into $OUT (≤ 15 MB parts + meta.tar)
#   recipes/gpu-one-call.sh start LANG|all MINUTES [WAIT]  # on the GPU machine: `train` in a
#                                                   # new process session that outlives the call,
#                                                   # then `wait WAIT` (default 570)
#   recipes/gpu-one-call.sh wait SECONDS            # the next call (within the machine's 30 s of
#                                                   # warmth): until the run ends, then its files
#                                                   # into $OUT
#   recipes/gpu-one-call.sh join DIR                # here: join the parts, check the hash
#                                                   # (DIR: the returned model/ folder)
#   DEVICE=cpu D_MODEL=64 LAYERS=1+1 MAX_TOKENS=1024 recipes/gpu-one-call.sh train it 1   # the
#                                                   # same command on the CPU, a tiny shape
#
# `prepare` does the data step for the chosen shape (fitsub prepare: read, weight, deduplicate,
# filter, SentencePiece on every core, encode) and copies fitsub/ beside it, so the GPU machine
# runs `python -m fitsub` from that copy with the core dependencies alone (no install step, no
# network). With the device tool: carry build/gpu-LANG (the tracked models/ left out of the tree
# that travels: docs/models-and-training.md, "One GPU call"), command
#   recipes/gpu-one-call.sh check LANG 45 && recipes/gpu-one-call.sh train LANG 8
# The wide shape (d 512, a deep encoder and a shallow decoder, Kasai et al. 2021) saw en-it's
# 4.3 M target pieces 21 times in 8 minutes on an H100 (470 k target tokens/s at full speed;
# docs/results/gpu-run.md), so it trains with dropout 0.3, a learning rate that warms up then
# decays by a cosine to 10 % at the deadline (--lr-schedule deadline), and exports the mean of the
# last 5 kept checkpoints (an evaluation every 40 s). `all` is one model for it, de, fr and es
# (a 16,000-piece joint vocabulary, a `<2xx>` tag; 4 + 2 layers to stay under 60 MB).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:?usage: recipes/gpu-one-call.sh prepare|check|train|start|wait|join ...}
LANG_=${2:-it}
DATA_ROOT=${DATA_ROOT:-../shared/data}
FITSUB=${FITSUB:-.venv/bin/fitsub}
stage=build/gpu-$LANG_       # what travels: prep/ and src/ only
runs=build/gpu-$LANG_-run   # the run's checkpoints (optimizer state, kept steps): stay where made
work=${GPU_WORK:-/tmp/fitsub-gpu}  # `start`: the run's own copy, outside the tree a call replaces
if [[ $LANG_ == all ]]; then
  tgt=it,de,fr,es vocab=16000 layers=4+2
else
  tgt=$LANG_ vocab=8000 layers=5+2
fi

case "$what" in
  prepare)
    source recipes/corpora.sh
    args=()
    if [[ $LANG_ == all ]]; then
      for L in it de fr es; do for c in $(corpora_of "$L"); do args+=(--corpus "$L/$c"); done; done
      data=$DATA_ROOT/en-{tgt}/train dev=$DATA_ROOT/en-{tgt}/dev/ud-pud
    else
      for c in $(corpora_of "$LANG_"); do args+=(--corpus "$c"); done
      data=$DATA_ROOT/en-$LANG_/train dev=$DATA_ROOT/en-$LANG_/dev/ud-pud
    fi
    # TOKENIZER=models/en-multi: encode with that model's SentencePiece (to continue it)
    tok=(); [[ -n ${TOKENIZER:-} ]] && tok=(--tokenizer "$TOKENIZER")
    mkdir -p "$stage"
    [[ -f $stage/prep/manifest.json ]] || "$FITSUB" prepare --data "$data" "${args[@]}" \
      --src en --tgt "$tgt" --dev "$dev" --vocab-size "$vocab" "${tok[@]}" --out "$stage/prep"
    # over ~30 MB the arrays travel xz-compressed (token ids shrink to ~35 %; `train` unpacks)
    big=$stage/prep/data.safetensors
    if [[ -f $big ]] && (($(stat -c %s "$big") > 30000000)); then xz -T0 -6 "$big"; fi
    rm -rf "$stage/src" && mkdir -p "$stage/src"
    cp -r fitsub "$stage/src/" && find "$stage/src" -name __pycache__ -prune -exec rm -rf {} +
    # the GPU machine's typer is older than fitsub's floor: these travel as wheels (network here)
    if ! ls "$stage"/whl/typer-*.whl > /dev/null 2>&1; then
      "${PYTHON:-python3}" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
        --implementation cp -d "$stage/whl" typer==0.16.0 click==8.5.1 \
        || echo "no wheels fetched (no network?): put typer and click wheels in $stage/whl" >&2
    fi
    du -sh "$stage"/*
    echo "carry $stage; on the GPU machine: recipes/gpu-one-call.sh train $LANG_ MINUTES"
    ;;
  start)
    # A run longer than one device call (one call is at most 10 minutes): on the GPU machine,
    # copies the recipe and the stage to $GPU_WORK, starts `train LANG MINUTES` there in a new
    # process session (setsid: it outlives the call, until the machine goes back) beside
    # bench/gpu_watch.py, then waits up to WAIT seconds (`wait`). The next call, within the
    # machine's 30 s of warmth, is `recipes/gpu-one-call.sh wait SECONDS`.
    MINUTES=${3:?usage: recipes/gpu-one-call.sh start LANG|all MINUTES [WAIT]}
    rm -rf "$work" && mkdir -p "$work/repo/build" "$work/out"
    cp -r recipes "$work/repo/" && cp -r "$stage" "$work/repo/build/" && cp bench/gpu_watch.py "$work/"
    setsid nohup "${PYTHON:-python3}" "$work/gpu_watch.py" --until "$work/rc" \
      --touch-gib "${TOUCH_GIB:-8}" > "$work/out/watch.txt" 2>&1 < /dev/null &
    setsid nohup env OUT="$work/out" bash -c "'$work/repo/recipes/gpu-one-call.sh' train $LANG_ \
      $MINUTES; echo \$? > '$work/rc'" > "$work/start.txt" 2>&1 < /dev/null &
    exec "$0" wait "${4:-570}"
    ;;
  wait)
    # waits until the started run has ended or SECONDS have passed, printing its progress each
    # minute; once it has ended, its model parts and logs go to $OUT (the device tool's folder)
    end=$((SECONDS + ${2:?usage: recipes/gpu-one-call.sh wait SECONDS}))
    while [[ ! -f $work/rc ]] && ((SECONDS < end)); do
      sleep 5
      ((SECONDS % 60 < 5)) && tail -n 1 "$work/out/train.txt" 2>/dev/null | cut -c1-300
    done
    tail -n 4 "$work/out/watch.txt" "$work/start.txt" 2>/dev/null | cut -c1-400
    if [[ -f $work/rc ]]; then
      echo "run ended: exit $(cat "$work/rc")"
      if [[ -n ${OUT:-} && -d $work/out/model ]]; then
        cp "$work"/out/model/* "$OUT"/ && cp "$work/out/watch.txt" "$OUT"/ && ls -la "$OUT"
      fi
    else
      echo "still training: call wait again"
    fi
    ;;
  check|train)
    # a prepared set that travelled compressed (xz: token ids shrink to ~35 %) is unpacked here
    for f in "$stage"/prep/*.xz; do
      [[ -f $f ]] || continue
      "${PYTHON:-python3}" -c 'import lzma, shutil, sys
with lzma.open(sys.argv[1]) as i, open(sys.argv[1][:-3], "wb") as o: shutil.copyfileobj(i, o)' \
        "$f" && rm "$f"
    done
    # check (GPU, first, SECONDS long; default 45): the same shape with an evaluation every 100
    # updates, checkpoints and an export, so every CUDA path runs once before the long run
    # train (GPU): trains until MINUTES after it starts, evaluating every EVAL_TIME (default 40s,
    # --eval-time: by the clock, as fast or slow as the updates run), exports float16 into $OUT,
    # packed into at most 8 files (the device tool's limit): model.safetensors in ≤ 15 MB parts +
    # meta.tar (config, tokenizer, logs, the SHA-256); the checkpoints stay in build/gpu-LANG-run/run
    OUT=${OUT:-$runs/out}
    mkdir -p "$OUT" "$runs"
    root=$PWD
    [[ $OUT == /* ]] || OUT=$root/$OUT
    # from the bare copy: `python -m fitsub` needs torch, numpy, sentencepiece, safetensors,
    # typer, rich and sacrebleu, nothing installed from this repository
    fit() {  # fit OUT_DIR MAX_TIME EXPORT_DIR EVAL_EVERY BLEU_SENTENCES [more flags]
      (cd "$stage/src" && "${PYTHON:-python3}" -m fitsub train --prepared "$root/$stage/prep" \
        --out "$1" --force --d-model "${D_MODEL:-512}" --layers "${LAYERS:-$layers}" \
        --dropout "${DROPOUT:-0.3}" \
        --method ldpe+pe --noise 4 --length-dropout 0.2 --max-tokens "${MAX_TOKENS:-32768}" \
        --lr "${LR:-0.002}" --warmup "${WARMUP:-800}" --lr-schedule deadline \
        --eval-every "$4" --bleu-sentences "$5" --patience 0 --keep-checkpoints 5 \
        --seed 1 --device "${DEVICE:-cuda}" --max-time "$2" --export "$3" "${@:6}" ${EXTRA_ARGS:-})
    }
    if [[ $what == check ]]; then
      rm -rf "$runs/check-model"
      fit "$root/$runs/check" "${3:-45}s" "$root/$runs/check-model" 100 64 2>&1 \
        | tee "$OUT/check.txt"
      echo "check: done" | tee -a "$OUT/check.txt"
      exit 0
    fi
    MINUTES=${3:?usage: recipes/gpu-one-call.sh train LANG|all MINUTES}
    rm -rf "$OUT/model"
    fit "$root/$runs/run" "${MINUTES}m" "$OUT/model" "${EVAL_EVERY:-1000000}" 200 \
      --eval-time "${EVAL_TIME:-40s}" 2>&1 | tee "$OUT/train.txt"
    cp "$root/$runs/run/train_log.jsonl" "$OUT/model/"
    cp "$OUT/train.txt" "$OUT/model/"
    [[ -f $OUT/check.txt ]] && cp "$OUT/check.txt" "$OUT/model/"
    (cd "$OUT/model" && sha256sum model.safetensors > model.sha256 \
      && split -b 15M -d model.safetensors model.safetensors.part- && rm model.safetensors \
      && tar -cf meta.tar --exclude 'model.safetensors.part-*' --exclude meta.tar . \
      && find . -maxdepth 1 -type f ! -name 'model.safetensors.part-*' ! -name meta.tar -delete)
    ls -la "$OUT/model"
    ;;
  join)
    dir=${2:?usage: recipes/gpu-one-call.sh join DIR}
    (cd "$dir" && { [[ ! -f meta.tar ]] || { tar -xf meta.tar && rm meta.tar; }; } \
      && cat model.safetensors.part-* > model.safetensors && sha256sum -c model.sha256 \
      && rm model.safetensors.part-*)
    echo "joined $dir/model.safetensors"
    ;;
  *) echo "unknown step $what (prepare, check, train, start, wait or join)" >&2; exit 2 ;;
esac
