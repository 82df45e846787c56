"""Translation speed: segments per second at batch 1 / 32 and beam 1 / 5 (random weights).

The default model size (d_model 256, 3+3 layers, 4 heads, ff 1024, vocabulary 8000) with
random weights: a random model rarely ends a hypothesis, so every segment is decoded to
`--max-len` pieces, the worst case for a subtitle-length output. Sources have `--src-len`
pieces. Run: `python bench/translate_speed.py [--device cuda] [--json out.json]`.
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from fitsub.nmt.config import ModelConfig
from fitsub.nmt.model import Transformer
from fitsub.nmt.search import beam_search


def make_model(device: torch.device, vocab: int, method: str) -> Transformer:
    """Random-weight default-size model with piece lengths of 1-6 characters."""
    torch.manual_seed(0)
    cfg = ModelConfig(vocab_size=vocab, method=method, length_unit="char", dropout=0.0)
    g = torch.Generator().manual_seed(0)
    piece_chars = torch.randint(1, 7, (vocab,), generator=g).tolist()
    lead = torch.randint(0, 2, (vocab,), generator=g).tolist()
    return Transformer(cfg, piece_chars, lead).to(device).eval()


def segments_per_second(
    model: Transformer, *, batch: int, beam: int, src_len: int, max_len: int, n_segments: int
) -> float:
    """Translate `n_segments` random sources in batches of `batch`; segments per second."""
    dev = next(model.parameters()).device
    g = torch.Generator().manual_seed(1)
    src = torch.randint(10, model.cfg.vocab_size, (n_segments, src_len), generator=g)
    src[:, -1] = model.cfg.eos_id
    lens = torch.full((n_segments,), 40)
    for _ in range(2):  # warm-up: kernels for every shape the timed runs will see
        beam_search(model, src[:batch].to(dev), lens[:batch].to(dev), beam=beam, max_len=max_len)
    if dev.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for i in range(0, n_segments, batch):
        beam_search(
            model,
            src[i : i + batch].to(dev),
            lens[i : i + batch].to(dev),
            beam=beam,
            max_len=max_len,
        )
    if dev.type == "cuda":
        torch.cuda.synchronize()
    return n_segments / (time.perf_counter() - start)


def main() -> None:
    """Print the table (and optionally write it as JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--vocab", type=int, default=8000)
    ap.add_argument("--method", default="ldpe+pe")
    ap.add_argument("--src-len", type=int, default=20)
    ap.add_argument("--max-len", type=int, default=24)
    ap.add_argument("--segments", type=int, default=64, help="segments per measurement")
    ap.add_argument(
        "--threads",
        type=int,
        default=1,
        help="CPU threads (default 1: on a shared 2-core box more threads contend and run slower)",
    )
    ap.add_argument("--json", default=None, help="also write the results to this file")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    dev = torch.device(args.device)
    model = make_model(dev, args.vocab, args.method)
    print(
        f"device {dev} ({torch.cuda.get_device_name(dev) if dev.type == 'cuda' else f'{torch.get_num_threads()} threads'}), "
        f"{model.num_parameters() / 1e6:.1f}M parameters, method {args.method}, "
        f"source {args.src_len} pieces, output {args.max_len} pieces"
    )
    rows = []
    print(f"{'batch':>6} {'beam':>5} {'segments/s':>11}")
    for batch in (1, 32):
        for beam in (1, 5):
            n = max(args.segments, batch) if batch > 1 else max(8, args.segments // 8)
            sps = segments_per_second(
                model,
                batch=batch,
                beam=beam,
                src_len=args.src_len,
                max_len=args.max_len,
                n_segments=n,
            )
            rows.append({"batch": batch, "beam": beam, "segments_per_s": round(sps, 2)})
            print(f"{batch:>6} {beam:>5} {sps:>11.1f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"device": str(dev), "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
