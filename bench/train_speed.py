"""Training speed of `fitsub train` on this machine: peak matmul throughput, tokens/s, MFU, and
a bf16-vs-fp32 quality check, in one command:

    .venv/bin/python bench/train_speed.py                 # everything (~15 min on 2 cores)
    .venv/bin/python bench/train_speed.py --sizes small --precisions bf16 --no-quality --threads 1
    .venv/bin/python bench/train_speed.py --no-speed --quality-steps 60   # only the quality check

It prints the peak 2048² matmul FLOP/s (bf16, fp32) with the threads the trainer uses, one JSON
line and one table row per (size, precision) with steady-state target tokens/s, seconds per
update and MFU, the bf16 / fp32 speed ratio, and (quality) the dev loss after the same updates in
fp32 and bf16 next to the fp32 seed-to-seed difference. Each measured run trains a fresh model
with the real `Trainer` (bf16 autocast, the chunked projected loss, fast dropout).

Data: en-it training text from ../shared/data when it exists (read at run time into a temporary
directory, never into the repository), otherwise synthetic sentences of made-up words.

MFU (model FLOP utilisation) = model FLOPs per second / measured peak bf16 matmul FLOP/s, with the
model FLOPs of `train_flops_per_target_token` (the 6N rule of Kaplan et al. 2020, eq. 2.1, split
by where each parameter acts, plus the attention term of Chowdhery et al. 2022 (PaLM), app. B).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from fitsub.nmt.config import ModelConfig
from fitsub.train import corpus as D
from fitsub.train.config import TrainConfig
from fitsub.train.events import EvalEvent, StepEvent, TrainEvent
from fitsub.train.loop import Trainer

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "en-it" / "train"
SIZES = {"small": (256, 4, 3, 3, 1024), "base": (512, 8, 6, 6, 2048)}


def peak_matmul(dtype: torch.dtype, n: int = 2048, reps: int = 10) -> float:
    """Best-of-`reps` FLOP/s of an n×n by n×n matrix product in `dtype` (2 n³ FLOPs)."""
    a, b = torch.randn(n, n).to(dtype), torch.randn(n, n).to(dtype)
    for _ in range(2):
        a @ b
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t)
    return 2 * n**3 / best


def train_flops_per_target_token(cfg: ModelConfig, enc: D.Encoded) -> float:
    """Training FLOPs (forward + backward = 3 × forward) per target token, for this data.

    Matrix multiplies: 6 FLOPs per parameter per token it acts on (Kaplan et al. 2020, C = 6N):
    encoder layers act on source tokens, decoder layers and the output projection (V × d, tied to
    the embedding but a full matmul) on target tokens; embedding lookups, norms and biases are not
    counted. Attention (PaLM app. B: 6 × 2 × d per query-key pair): encoder self-attention
    Σ s², decoder causal self-attention Σ t(t+1)/2, cross-attention Σ t·s, over sentences with
    s, t counting EOS / BOS. Per target token: divide by Σ t.
    """
    d, f, V = cfg.d_model, cfg.d_ff, cfg.vocab_size
    enc_layer = 4 * d * d + 2 * d * f  # q, k, v, out + feed-forward
    dec_layer = 8 * d * d + 2 * d * f  # self- and cross-attention + feed-forward
    s = enc.src_lens.astype(np.float64) + 1 + int(cfg.length_token)
    t = enc.tgt_lens.astype(np.float64) + 1
    linear = 6.0 * (
        cfg.enc_layers * enc_layer * s.sum() + (cfg.dec_layers * dec_layer + V * d) * t.sum()
    )
    pairs = cfg.enc_layers * (s * s).sum() + cfg.dec_layers * (
        (t * (t + 1) / 2).sum() + (t * s).sum()
    )
    attention = 12.0 * d * pairs
    return float((linear + attention) / t.sum())


def bench_data(tmp: Path, pairs: int, seed: int = 0) -> tuple[str, str]:
    """Write `pairs` training pairs to tmp/bench.{en,it}; returns (prefix, description)."""
    rng = random.Random(seed)
    if SHARED.is_dir():
        src: list[str] = []
        tgt: list[str] = []
        for stem, share in (("tatoeba", 0.8), ("gettext-ui", 0.2)):
            c = D.read_parallel(SHARED / f"{stem}.en", SHARED / f"{stem}.it")
            pick = rng.sample(range(len(c)), min(len(c), int(pairs * share)))
            src += [c.src[i] for i in pick]
            tgt += [c.tgt[i] for i in pick]
        what = f"{len(src)} pairs sampled from shared en-it tatoeba (80%) + gettext-ui (20%)"
    else:
        syll = [
            "ka",
            "to",
            "ri",
            "me",
            "so",
            "lu",
            "ne",
            "pa",
            "ze",
            "qui",
            "vo",
            "ga",
            "der",
            "an",
        ]
        words = ["".join(rng.choice(syll) for _ in range(rng.randint(1, 4))) for _ in range(5000)]
        src, tgt = [], []
        for _ in range(pairs):
            n = max(1, int(rng.lognormvariate(2.0, 0.5)))
            s = [rng.choice(words) for _ in range(n)]
            src.append(" ".join(s))
            tgt.append(" ".join(w[::-1] + rng.choice(["o", "a", "e", "i"]) for w in s))
        what = f"{pairs} synthetic pairs (no shared data found)"
    (tmp / "bench.en").write_text("\n".join(src) + "\n", "utf-8")
    (tmp / "bench.it").write_text("\n".join(tgt) + "\n", "utf-8")
    return str(tmp / "bench"), what


def run_trainer(cfg: TrainConfig, skip: int) -> tuple[dict[str, Any], Trainer]:
    """Train `cfg.max_steps` updates; steady-state tokens/s over the updates after `skip`."""
    events: list[TrainEvent] = []
    trainer = Trainer(cfg, events.append)
    t0 = time.perf_counter()
    trainer.run()
    wall = time.perf_counter() - t0
    steps = [e for e in events if isinstance(e, StepEvent)][skip:]
    tokens = sum(e.tokens for e in steps)
    seconds = sum(e.seconds for e in steps)
    evals = [e for e in events if isinstance(e, EvalEvent)]
    return {
        "tokens_per_s": tokens / seconds,
        "step_s": statistics.median(e.seconds for e in steps),
        "tokens_per_step": tokens / len(steps),
        "flops_per_token": train_flops_per_target_token(trainer.mcfg, trainer.prepared.train),
        "dev_loss": evals[-1].dev_loss if evals else None,
        "wall_s": wall,
        "bf16": trainer.bf16,
    }, trainer


def base_config(
    out: Path, prefix: str, size: str, args: argparse.Namespace, **kw: Any
) -> TrainConfig:
    d, h, e, dl, f = SIZES[size]
    options: dict[str, Any] = dict(
        train_prefixes=[prefix], dev_size=300, d_model=d, n_heads=h,
        enc_layers=e, dec_layers=dl, d_ff=f, vocab_size=8000, spm_sentences=20_000,
        max_tokens=args.max_tokens, log_every=1, eval_every=10**9, bleu_sentences=0,
        compile=args.compile, threads=args.threads, seed=args.seed, patience=0,
    )  # fmt: skip
    return TrainConfig.from_options(str(out), **{**options, **kw})


def fairseq_speed(trainer: Trainer, tmp: Path, args: argparse.Namespace) -> float | None:
    """fairseq-train's steady-state target tokens/s on the same pieces and architecture (CPU).

    None when fairseq is not installed. fairseq's --max-tokens bounds max(src, tgt) per row, so it
    gets half of ours (which counts source + target).
    """
    if importlib.util.find_spec("fairseq") is None or shutil.which("fairseq-train") is None:
        return None
    sp, work = trainer.tokenizer.sp, tmp / "fairseq"
    work.mkdir()
    for split, enc in (("train", trainer.prepared.train), ("valid", trainer.prepared.dev)):
        for side, ids, off in (("en", enc.src_ids, enc.src_off), ("it", enc.tgt_ids, enc.tgt_off)):
            lines = (
                " ".join(sp.id_to_piece(int(i)) for i in ids[off[k] : off[k + 1]])
                for k in range(len(enc))
            )
            (work / f"{split}.{side}").write_text("\n".join(lines) + "\n", "utf-8")
    subprocess.run(
        ["fairseq-preprocess", "--source-lang", "en", "--target-lang", "it", "--trainpref",
         str(work / "train"), "--validpref", str(work / "valid"), "--destdir", str(work / "bin"),
         "--joined-dictionary", "--workers", "2"],
        check=True, capture_output=True,
    )  # fmt: skip
    m = trainer.mcfg
    cmd = [
        "fairseq-train", str(work / "bin"), "--cpu", "--arch", "transformer",
        "--encoder-layers", str(m.enc_layers), "--decoder-layers", str(m.dec_layers),
        "--encoder-embed-dim", str(m.d_model), "--decoder-embed-dim", str(m.d_model),
        "--encoder-ffn-embed-dim", str(m.d_ff), "--decoder-ffn-embed-dim", str(m.d_ff),
        "--encoder-attention-heads", str(m.n_heads), "--decoder-attention-heads", str(m.n_heads),
        "--share-all-embeddings", "--encoder-normalize-before", "--decoder-normalize-before",
        "--activation-fn", "gelu", "--dropout", str(m.dropout), "--optimizer", "adam",
        "--adam-betas", "(0.9, 0.98)", "--lr", "7e-4", "--lr-scheduler", "inverse_sqrt",
        "--warmup-updates", "1000", "--criterion", "label_smoothed_cross_entropy",
        "--label-smoothing", "0.1", "--max-tokens", str(args.max_tokens // 2),
        "--max-update", str(args.warmup_steps + args.steps), "--log-format", "json",
        "--log-interval", "1", "--no-save", "--disable-validation", "--seed", str(args.seed),
    ]  # fmt: skip
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    wps = [
        float(json.loads(line[line.index("{") :])["wps"])
        for line in out.splitlines()
        if "train_inner" in line and "{" in line
    ]
    return statistics.median(wps[args.warmup_steps :]) if len(wps) > args.warmup_steps else None


def speed(args: argparse.Namespace, tmp: Path, prefix: str) -> None:
    if (
        args.threads
    ):  # the peak with the threads the trainer will use, so MFU compares like with like
        torch.set_num_threads(args.threads)
    bf16_peak, fp32_peak = peak_matmul(torch.bfloat16), peak_matmul(torch.float32)
    print(f"threads {torch.get_num_threads()}  peak 2048² matmul: bf16 {bf16_peak / 1e12:.3f} "
          f"TFLOP/s, fp32 {fp32_peak / 1e12:.3f} TFLOP/s (best of 10)")  # fmt: skip
    rows = []
    first: Trainer | None = None
    for size in args.sizes.split(","):
        for precision in args.precisions.split(","):
            cfg = base_config(
                tmp / f"{size}-{precision}", prefix, size, args, precision=precision,
                max_steps=args.warmup_steps + args.steps,
            )  # fmt: skip
            r, trainer = run_trainer(cfg, args.warmup_steps)
            first = first or trainer
            model_flops = r["tokens_per_s"] * r["flops_per_token"]
            rows.append((size, precision, r, model_flops))
            print(json.dumps({"size": size, "precision": precision, **r}), flush=True)
    head = f"{'model':<8}{'prec':<6}{'tgt tok/s':>11}{'tok/step':>10}{'s/step':>8}{'GFLOP/tok':>11}{'TFLOP/s':>9}{'MFU bf16':>10}{'MFU fp32':>10}"
    print("\n" + head + "\n" + "-" * len(head))
    for size, precision, r, fl in rows:
        print(f"{size:<8}{precision:<6}{r['tokens_per_s']:>11,.0f}{r['tokens_per_step']:>10,.0f}"
              f"{r['step_s']:>8.2f}{r['flops_per_token'] / 1e9:>11.4f}{fl / 1e12:>9.3f}"
              f"{fl / bf16_peak:>10.1%}{fl / fp32_peak:>10.1%}")  # fmt: skip
    by = {(s, p): r for s, p, r, _ in rows}
    for size in args.sizes.split(","):
        if (size, "bf16") in by and (size, "fp32") in by:
            ratio = by[size, "bf16"]["tokens_per_s"] / by[size, "fp32"]["tokens_per_s"]
            print(f"{size}: bf16 / fp32 tokens/s = {ratio:.2f}×")
    assert first is not None
    fs = fairseq_speed(first, tmp, args)
    if fs is None:
        print("fairseq-train: fairseq not installed (pip install '.[fairseq]'); row skipped")
    else:
        ours = rows[0][2]["tokens_per_s"]
        print(
            f"fairseq-train ({rows[0][0]}, fp32 CPU): {fs:,.0f} tgt tok/s; fitsub {rows[0][1]} / fairseq = {ours / fs:.2f}×"
        )


def quality(args: argparse.Namespace, tmp: Path, prefix: str) -> None:
    """Dev loss after the same updates (same batches) in fp32 and bf16, and fp32 with another seed."""
    runs = [("fp32", args.seed), ("bf16", args.seed), ("fp32", args.seed + 1)]
    losses = {}
    for precision, seed in runs:
        cfg = base_config(
            tmp / f"q-{precision}-{seed}", prefix, "small", args, precision=precision, seed=seed,
            max_steps=args.quality_steps, warmup=max(1, args.quality_steps // 4), lr=1e-3,
        )  # fmt: skip
        r, _ = run_trainer(cfg, 0)
        losses[precision, seed] = r["dev_loss"]
        print(f"{precision} seed {seed}: dev loss {r['dev_loss']:.4f} after {args.quality_steps} "
              f"updates of ~{r['tokens_per_step']:,.0f} target tokens", flush=True)  # fmt: skip
    diff = abs(losses["bf16", args.seed] - losses["fp32", args.seed])
    noise = abs(losses["fp32", args.seed + 1] - losses["fp32", args.seed])
    print(f"|bf16 - fp32| = {diff:.4f}; seed-to-seed fp32 difference = {noise:.4f}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--sizes", default="small,base", help="comma list of: small, base")
    p.add_argument("--precisions", default="bf16,fp32", help="comma list of: bf16, fp32")
    p.add_argument("--steps", type=int, default=15, help="measured updates per configuration")
    p.add_argument("--warmup-steps", type=int, default=4, help="updates not measured")
    p.add_argument("--max-tokens", type=int, default=8192)
    p.add_argument("--pairs", type=int, default=40_000, help="training pairs to sample")
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--compile", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--speed", action=argparse.BooleanOptionalAction, default=True,
                   help="measure tokens/s and MFU (default: on)")  # fmt: skip
    p.add_argument("--quality", action=argparse.BooleanOptionalAction, default=True,
                   help="compare dev loss after the same updates, fp32 vs bf16 (default: on)")  # fmt: skip
    p.add_argument("--quality-steps", type=int, default=100)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="fitsub-bench-") as td:
        tmp = Path(td)
        prefix, what = bench_data(tmp, args.pairs, args.seed)
        print(f"torch {torch.__version__}; data: {what}")
        if args.speed:
            speed(args, tmp, prefix)
        if args.quality:
            quality(args, tmp, prefix)


if __name__ == "__main__":
    main()
