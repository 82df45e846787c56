"""Where a GPU update's time goes: the wide shape's updates on CUDA, timed in windows, under the
choices that decide it, in one process (one set-up, one short device call):

- `plain`: each batch copied to the GPU with a plain `.to(device)` (a host sync per copy);
- `pinned`: copied from pinned host memory with `non_blocking=True` (the trainer's CUDA path);
- `big`: `plain` with twice the tokens per batch (`--big-tokens`: half the launches per token);
- `compiled`: `plain` through `torch.compile(dynamic=True)`, the compile inside its first window.

Each variant trains the same model on (its own) batches of the prepared set for `--seconds`;
every `--window` updates the GPU is synchronised and one JSON line is printed: seconds per
update, target tokens/s, MFU against the measured bf16 peak (`fitsub.train.flops`), and the
allocator's device allocations (`num_device_alloc`) and host-synchronising retries in the window.
The configuration is a training log's start line (`--config`: a `train_log.jsonl`), so the probe
measures exactly the run that log describes.

    PYTHONPATH=. python3 bench/gpu_probe.py --config runs/gpu-it/model/train_log.jsonl \\
        --prepared build/gpu-it/prep --seconds 25
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from typing import Any

import numpy as np
import torch
from torch import Tensor

from fitsub.train.batches import BatchMaker, make_batches
from fitsub.train.config import TrainConfig
from fitsub.train.loop import Trainer


def _plain(self: BatchMaker, t: Tensor) -> Tensor:
    return t.to(self.device)


PINNED = BatchMaker._to_device


def sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def allocs() -> tuple[int, int]:
    if not torch.cuda.is_available():
        return 0, 0
    s = torch.cuda.memory_stats()
    return int(s.get("num_device_alloc", 0)), int(s.get("num_alloc_retries", 0))


def measure(tr: Trainer, name: str, *, tokens: int, seconds: float, window: int) -> None:
    BatchMaker._to_device = PINNED if name == "pinned" else _plain  # type: ignore[method-assign]
    tr.step_model = torch.compile(tr.ddp, dynamic=True) if name == "compiled" else tr.ddp
    enc = tr.prepared.train
    rng = np.random.default_rng(len(name))
    order = make_batches(enc.src_lens, enc.tgt_lens, tokens, rng,
                         extra_src=tr.train_batches.extra_src, extra_tgt=1)  # fmt: skip
    sync()
    start = t0 = time.perf_counter()
    a0, r0 = allocs()
    ntok, step = 0, 0
    for idx in order:
        _, n = tr._update([idx], 1000 + step)  # past the warm-up: a steady learning rate
        ntok, step = ntok + n, step + 1
        if step % window == 0:
            sync()
            now = time.perf_counter()
            a1, r1 = allocs()
            tps = ntok / (now - t0)
            rec: dict[str, Any] = {
                "variant": name, "tokens": tokens, "updates": step,
                "s_per_update": round((now - t0) / window, 4), "tok_per_s": round(tps),
                "mfu": None if tr.mfu is None else round(tr.mfu.of(tps), 4),
                "device_allocs": a1 - a0, "alloc_retries": r1 - r0,
                "elapsed": round(now - start, 1),
            }  # fmt: skip
            print(json.dumps(rec), flush=True)
            t0, ntok, a0, r0 = now, 0, a1, r1
            if now - start > seconds:
                break


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", required=True, help="a train_log.jsonl (its start line)")
    ap.add_argument("--prepared", required=True)
    ap.add_argument("--seconds", type=float, default=25.0)
    ap.add_argument("--compile-seconds", type=float, default=60.0)
    ap.add_argument("--window", type=int, default=25)
    ap.add_argument("--big-tokens", type=int, default=65536)
    ap.add_argument("--variants", default="plain,pinned,big,compiled")
    ap.add_argument("--device", default="cuda", help="cpu: a dry run of the probe itself")
    ap.add_argument("--tiny", action="store_true", help="d 64, 1 + 1 layers (a dry run)")
    a = ap.parse_args()
    with open(a.config, encoding="utf-8") as fh:
        start = json.loads(fh.readline())
    assert start["event"] == "start", "the log's first line must be its start line"
    d = dict(start["config"])
    with tempfile.TemporaryDirectory() as tmp:
        d.update(out_dir=tmp, prepared=a.prepared, export_dir=None, max_time=None,
                 lr_schedule="inverse-sqrt", eval_every=10**9, bleu_sentences=0,
                 keep_checkpoints=0, compile=False, device=a.device, resume=False)  # fmt: skip
        if a.tiny:
            d.update(d_model=64, n_heads=1, enc_layers=1, dec_layers=1, d_ff=256, threads=1)
        t = time.perf_counter()
        tr = Trainer(TrainConfig.from_dict(d))
        print(
            json.dumps(
                {
                    "setup_s": round(time.perf_counter() - t, 1),
                    "peak_tflops": None if tr.mfu is None else round(tr.mfu.peak / 1e12),
                }
            )
        )
        for name in a.variants.split(","):
            tokens = a.big_tokens if name == "big" else tr.cfg.max_tokens
            secs = a.compile_seconds if name == "compiled" else a.seconds
            measure(tr, name, tokens=tokens, seconds=secs, window=a.window)


if __name__ == "__main__":
    main()
