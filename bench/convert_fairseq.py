"""`fitsub convert fairseq` at a real model size: conversion time and logit agreement.

Builds a fairseq `transformer_wmt_en_de`-shaped checkpoint (d 512, 6+6 layers, FFN 2048, 8
heads, post-norm, shared embeddings, a vocabulary of `--vocab` symbols; random weights) in a
temporary folder with tests/support/fairseq_reference.py, converts it through the CLI, and
reports the wall time of the conversion, the sizes, and the largest difference between the
converted model's logits and the plain-torch fairseq reference on a few sentences.
Run: `OMP_NUM_THREADS=1 python bench/convert_fairseq.py [--vocab 8000] [--threads 1]`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fitsub.cli import main  # noqa: E402
from fitsub.convert.vocab import fairseq_rows  # noqa: E402
from fitsub.nmt.checkpoint import load_checkpoint  # noqa: E402
from tests.support.fairseq_reference import (  # noqa: E402
    TEXT,
    Variant,
    fairseq_weights,
    reference_logits,
    save_checkpoint,
    train_spm,
    write_dicts,
)


def run(argv: list[str]) -> None:
    try:
        main(argv)
    except SystemExit as exit_:
        if exit_.code:
            raise


def main_bench() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocab", type=int, default=8000, help="dictionary size (padded)")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    v = Variant(d=512, heads=8, ffn=2048, enc_layers=6, dec_layers=6)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sp = train_spm(folder)
        symbols = write_dicts(folder, sp, ("en", "it"))[0]
        symbols = [s for s in symbols if not s.startswith("madeupword")]
        symbols += [f"madeupword{i:04d}" for i in range(a.vocab - 4 - len(symbols))]
        for lang in ("en", "it"):
            (folder / f"dict.{lang}.txt").write_text("".join(f"{s} 1\n" for s in symbols), "utf-8")
        weights = fairseq_weights(v, (4 + len(symbols), 4 + len(symbols)))
        ckpt = folder / "checkpoint_best.pt"
        save_checkpoint(ckpt, v, weights, ("en", "it"))
        out = folder / "converted"
        t0 = time.perf_counter()
        run(["convert", "fairseq", str(ckpt), str(out)])
        seconds = time.perf_counter() - t0
        model, tok, cfg, _ = load_checkpoint(out)
        params = sum(p.numel() for p in model.parameters())
        src = torch.tensor([tok.source_ids(TEXT[0])])
        tgt = torch.tensor([[tok.bos_id, *tok.encode(TEXT[2])]])
        fs = {1: 3, 0: 1, 2: 2, 3: 2}
        with torch.no_grad():
            ours = model(src, tgt, None)
            ref = reference_logits(
                weights, v, src.apply_(lambda i: fs.get(i, i)), tgt.apply_(lambda i: fs.get(i, i))
            )
        diff = float((ours - ref[:, :, torch.tensor(fairseq_rows(cfg.vocab_size))]).abs().max())
        size = (ckpt.stat().st_size, (out / "model.safetensors").stat().st_size)
    print(f"model: d {v.d}, {v.enc_layers}+{v.dec_layers} layers, vocabulary {cfg.vocab_size}, "
          f"{params / 1e6:.1f} M parameters; checkpoint.pt {size[0] / 1e6:.0f} MB -> "
          f"model.safetensors {size[1] / 1e6:.0f} MB")  # fmt: skip
    print(f"convert: {seconds:.1f} s wall (threads {a.threads}, CLI start included)")
    print(f"max |logit difference| against the fairseq reference: {diff:.2e}")


if __name__ == "__main__":
    main_bench()
