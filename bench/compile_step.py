"""One decoder step compiled or not: steady-state CPU time per step, compile time, same output.

The step is what a beam search runs per generated piece: the decoder layers of the shipped
`models/en-it` (pre-norm self-attention over the KV cache, cross-attention, feed-forward), the
final LayerNorm, the tied output projection and the log-softmax, for N rows (batch x beam).
Four ways, same weights, same inputs:

- `eager`: fitsub's own path (`Transformer.decode_hidden` with a `KVCache` at step t, then
  `project` and `log_softmax`), as `fitsub.nmt.search` runs it (the embedding and length
  encoding included: a few operations more than the others);
- `static`: the same layers written for static shapes: the self-attention K/V buffers hold the
  whole capacity C, the new key / value is written at step t with `index_copy_` and attention
  masks the positions after t (so every step has the same shapes), eager;
- `compiled`: `torch.compile(static, dynamic=False, fullgraph=True)` (inductor's C++ backend),
  compiled once per N (the first call's CPU time is the compile time);
- `traced`: `torch.jit.trace` of `static`, then `torch.jit.freeze`.

CPU seconds (`time.process_time`, the process's own time: the machine is shared, wall time is
noise) per step, median of `--rounds` rounds of `--steps` steps, methods alternating within a
round; the largest difference of each method's log-probabilities from `eager`'s.
Run: `python bench/compile_step.py [--rows 5 16 80] [--steps 100] [--rounds 3] [--threads 1]`.

`--job N`: the whole-process view instead: `fitsub translate` of the first N English lines of
`../shared/data/en-it/dev` (mustc-tst-common-a, then ud-pud; read at run time) as a .txt file,
beam 5, the default hard budget (and the unconstrained translation it always computes),
`--threads 1`, run as it ships (`eager`) and with
`torch.compile(Transformer.decode_hidden, dynamic=True)` patched in before the command runs
(`compiled`: the search's own cache and row bookkeeping stay eager, compile time counted),
alternating `--pairs` times; the CPU seconds of each process (user + system) and the wall time.
"""

from __future__ import annotations

import argparse
import math
import resource
import runpy
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import Tensor

from fitsub.nmt.checkpoint import load_checkpoint
from fitsub.nmt.layers import merge_heads, split_heads
from fitsub.nmt.model import Transformer

ROOT = Path(__file__).resolve().parent.parent
Step = Callable[..., Tensor]


def static_step(model: Transformer) -> Step:
    """The decoder step with every shape fixed by N, the capacity C and the source length S."""
    H = model.cfg.n_heads

    def step(
        x: Tensor,
        t: Tensor,
        self_k: list[Tensor],
        self_v: list[Tensor],
        cross_k: list[Tensor],
        cross_v: list[Tensor],
        src_mask: Tensor,
    ) -> Tensor:
        """x (N, 1, D) the embedded input, t (1,) the step; the log-probabilities (N, V)."""
        C = self_k[0].size(2)
        self_mask = (torch.arange(C, device=x.device) <= t)[None, None, None, :]  # (1,1,1,C)
        for i, layer in enumerate(model.dec_layers):
            sa, ca = layer.self_attn, layer.cross_attn
            q, k, v = sa.qkv(layer.ln1(x)).split(x.size(-1), dim=2)
            self_k[i].index_copy_(2, t, split_heads(k, H))
            self_v[i].index_copy_(2, t, split_heads(v, H))
            y = F.scaled_dot_product_attention(
                split_heads(q, H), self_k[i], self_v[i], attn_mask=self_mask
            )
            x = x + sa.proj(merge_heads(y))
            q = split_heads(ca.q(layer.ln2(x)), H)
            y = F.scaled_dot_product_attention(q, cross_k[i], cross_v[i], attn_mask=src_mask)
            x = x + ca.proj(merge_heads(y))
            x = x + layer.ff(layer.ln3(x))
        logits = model.dec_norm(x)[:, -1] @ model.output_weight.t()
        return torch.log_softmax(logits, dim=-1)

    return step


def setup(model: Transformer, n: int, t: int, capacity: int, s: int) -> dict[str, object]:
    """Inputs of one step at position t for n rows: a cache filled by t eager steps."""
    g = torch.Generator().manual_seed(n)
    V, D = model.cfg.vocab_size, model.cfg.d_model
    src = torch.randint(4, V, (n, s), generator=g)
    memory, src_pad = model.encode(src)
    toks = torch.randint(4, V, (n, t + 1), generator=g)
    cache = model.new_cache(capacity)
    for j in range(t):
        model.decode_hidden(toks[:, j : j + 1], memory, src_pad, None, cache)
    H, hd = model.cfg.n_heads, D // model.cfg.n_heads
    self_k = [torch.zeros(n, H, capacity, hd) for _ in model.dec_layers]
    self_v = [torch.zeros(n, H, capacity, hd) for _ in model.dec_layers]
    for i in range(len(model.dec_layers)):
        k, v = cache.self_k[i], cache.self_v[i]
        assert k is not None and v is not None
        self_k[i][:, :, :t] = k[:n, :, :t]
        self_v[i][:, :, :t] = v[:n, :, :t]
    cross_k = [k for k in cache.cross_k if k is not None]
    cross_v = [v for v in cache.cross_v if v is not None]
    tok = toks[:, t : t + 1]
    x = model.embed(tok) * math.sqrt(D) + model.position_table(t + 1, src.device)[t:]
    return {
        "cache": cache, "memory": memory, "src_pad": src_pad, "tok": tok, "t": t,
        "static": (x, torch.tensor([t]), self_k, self_v, cross_k, cross_v, ~src_pad[:, None, None, :]),
    }  # fmt: skip


def eager_step(model: Transformer, inp: dict[str, object]) -> Tensor:
    """fitsub's own step (search.py's calls) at the same position."""
    cache = inp["cache"]
    assert hasattr(cache, "steps")
    cache.steps = inp["t"]
    h = model.decode_hidden(inp["tok"], inp["memory"], inp["src_pad"], None, cache)[:, -1]  # type: ignore[arg-type]
    return torch.log_softmax(model.project(h).float(), dim=-1)


def cpu(fn: Callable[[], object], steps: int) -> float:
    """CPU seconds per call of `fn`, over `steps` calls."""
    start = time.process_time()
    for _ in range(steps):
        fn()
    return (time.process_time() - start) / steps


DEV = ROOT.parent / "shared" / "data" / "en-it" / "dev"


def job(n: int, pairs: int) -> None:
    """Whole `fitsub translate` processes, eager and compiled, alternating (module docstring)."""
    lines: list[str] = []
    for name in ("mustc-tst-common-a", "ud-pud"):
        lines += [x for x in (DEV / f"{name}.en").read_text("utf-8").splitlines() if x.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "dev.txt"
        src.write_text("\n".join(lines[:n]) + "\n", "utf-8")
        cmd = ["translate", str(src), "--lang", "it", "--threads", "1", "--beam", "5", "-q"]
        cmd += ["-o", str(Path(tmp) / "out.txt")]
        outputs: dict[str, str] = {}
        runs: dict[str, list[tuple[float, float]]] = {"eager": [], "compiled": []}
        for _ in range(pairs):
            for how in runs:
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run([sys.executable, __file__, "--worker", how, *cmd], check=True)
                wall = time.perf_counter() - start
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                runs[how].append((used, wall))
                outputs[how] = (Path(tmp) / "out.txt").read_text("utf-8")
                print(f"{how}: {used:.1f} s CPU, {wall:.1f} s wall", flush=True)
        for how, rs in runs.items():
            cpu_s = statistics.median(r[0] for r in rs)
            wall_s = statistics.median(r[1] for r in rs)
            print(f"{n} lines, {how}: median {cpu_s:.1f} s CPU, {wall_s:.1f} s wall")
        print("same output:", outputs["eager"] == outputs["compiled"])


def worker(how: str, argv: list[str]) -> None:
    """Run `fitsub` with argv, the decoder compiled first when `how` is "compiled"."""
    if how == "compiled":
        from fitsub.nmt import model as M

        M.Transformer.decode_hidden = torch.compile(  # type: ignore[method-assign]
            M.Transformer.decode_hidden, dynamic=True
        )
    sys.argv = ["fitsub", *argv]
    runpy.run_module("fitsub", run_name="__main__")


def main() -> None:
    """Compile, check and time the step for each row count."""
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3:])
        return
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", type=int, nargs="+", default=[5, 16, 80])
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--position", type=int, default=20, help="the step t (cache length)")
    ap.add_argument("--capacity", type=int, default=64)
    ap.add_argument("--source", type=int, default=32, help="source length S")
    ap.add_argument("--methods", nargs="+", default=["eager", "static", "compiled", "traced"])
    ap.add_argument("--job", type=int, default=0, help="whole translate runs of N dev lines")
    ap.add_argument("--pairs", type=int, default=2)
    args = ap.parse_args()
    if args.job:
        job(args.job, args.pairs)
        return
    torch.set_num_threads(args.threads)
    model = load_checkpoint(ROOT / "models" / "en-it")[0]
    model.eval().requires_grad_(False)
    print(f"torch {torch.__version__}, {torch.backends.cpu.get_cpu_capability()}, "
          f"{args.threads} thread(s), t={args.position}, C={args.capacity}, S={args.source}")  # fmt: skip
    with torch.inference_mode():
        for n in args.rows:
            measure(model, n, args)


def measure(model: Transformer, n: int, args: argparse.Namespace) -> None:
    """Build, check and time each method of the step for n rows; print one line each."""
    inp = setup(model, n, args.position, args.capacity, args.source)
    st = inp["static"]
    assert isinstance(st, tuple)
    plain = static_step(model)
    fns: dict[str, Callable[[], Tensor]] = {
        "eager": lambda: eager_step(model, inp),
        "static": lambda: plain(*st),
    }
    build: dict[str, float] = {}
    if "compiled" in args.methods:
        start = time.process_time()
        comp = torch.compile(plain, dynamic=False, fullgraph=True)
        comp(*st)
        build["compiled"] = time.process_time() - start
        fns["compiled"] = lambda: comp(*st)
    if "traced" in args.methods:
        start = time.process_time()
        with torch.no_grad():
            traced = torch.jit.freeze(torch.jit.trace(_Wrap(plain), st).eval())  # type: ignore[no-untyped-call]
        traced(*st)
        build["traced"] = time.process_time() - start
        fns["traced"] = lambda: traced(*st)
    fns = {k: v for k, v in fns.items() if k in args.methods}
    ref = eager_step(model, inp)
    diffs = {k: float((fn() - ref).abs().max()) for k, fn in fns.items()}
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(args.rounds):
        for k, fn in fns.items():
            times[k].append(cpu(fn, args.steps))
    base = statistics.median(times["eager"]) if "eager" in times else None
    for k, ts in times.items():
        med = statistics.median(ts)
        rel = f"{base / med:.2f}x eager" if base else ""
        extra = f", built in {build[k]:.1f} s CPU" if k in build else ""
        print(f"N={n:3d} {k:9s} {1e3 * med:7.2f} ms/step CPU {rel}"
              f" (max |diff| {diffs[k]:.1e}){extra}")  # fmt: skip


class _Wrap(torch.nn.Module):
    """`static_step` as a module for `torch.jit.trace` (lists flattened to tensors)."""

    def __init__(self, step: Step) -> None:
        super().__init__()
        self.step = step

    def forward(self, x: Tensor, t: Tensor, *rest: list[Tensor]) -> Tensor:
        """The step's log-probabilities."""
        a, b, c, d, m = rest
        return self.step(x, t, a, b, c, d, m)


if __name__ == "__main__":
    main()
