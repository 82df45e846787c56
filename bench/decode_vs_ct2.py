"""fitsub's search against CTranslate2 on the same weights: sentences/s, tokens/s, peak RSS, ratio.

The shipped `models/en-it` (`ldpe+pe`, trained with length dropout) in its unconstrained mode has
no length term: its decoder adds only the ordinary sinusoidal encoding of the token index, like
the encoder. So it *is* a standard pre-norm Transformer (GELU, fused QKV, tied embeddings scaled
by sqrt(d), final LayerNorms) and CTranslate2 can represent it: `convert` writes a
CTranslate2 model whose position table is fitsub's (interleaved sin / cos; CTranslate2's own
default concatenates them). fitsub decodes through `NMTBackend` (requests with no length, the
whole-word rule on), CTranslate2 through `Translator.translate_batch` with the same beam, batch
size, sum-of-log-probability scores (`length_penalty=0`), no `<unk>` and sources sorted by length.

Steps: (1) greedy outputs of both on `--check` sentences must agree on >= 95 %; (2) for threads
1 and 2, greedy and beam 5, batch 1 / 16 / 64, runs alternate fitsub, CTranslate2, fitsub, ...
(`--pairs` pairs) in two long-lived worker processes (`--threads 0`: fitsub's own choice,
`fitsub.threads`, the cores free at start and between batches, with its short spin, against
CTranslate2 on every core); the table gives the median of each
engine's runs, target tokens/s, the worker's peak RSS so far (configurations run in order of
batch, so a row's RSS is the peak up to it) and the ratio fitsub / CTranslate2 of sentences/s;
(3) with `--constrained`, fitsub's beam 5 with a hard budget (1.0x the source) against
unconstrained. `--int8` compares fitsub's int8 with CTranslate2's int8.
Sentences: `samples/*.srt` cues and lines of `../shared/data/en-it/test` (read at run time).
Run: `python bench/decode_vs_ct2.py [--n 200] [--pairs 3] [--threads 1 2] [--int8] [--json F]`
(CTranslate2 is a default dependency since issue 45; `fitsub.nmt.ct2` holds the engine fitsub uses).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TEST = ROOT.parent / "shared" / "data" / "en-it" / "test"


def sentences(n: int) -> list[str]:
    """Sample cues, then lines of four test sets in turn (../shared, read at run time)."""
    sys.path.insert(0, str(ROOT))
    from fitsub.formats import read_document

    out: list[str] = []
    for name in ("talk.srt", "lecture.srt"):
        out += [s.text.replace("\n", " ") for s in read_document(ROOT / "samples" / name).segments]
    files = ["tatoeba-test-unseen", "cocoa-topical-chat", "flores200-devtest", "ntrex128"]
    lines = [
        (TEST / f"{f}.en").read_text("utf-8").splitlines()
        for f in files
        if (TEST / f"{f}.en").is_file()
    ]
    i = 0
    while len(out) < n and lines:
        for rows in lines:
            if i < len(rows) and len(rows[i]) <= 200:
                out.append(rows[i])
        i += 1
    return [s for s in out if s.strip()][:n]


def convert(model_dir: Path, out_dir: Path) -> Path:
    """Write a CTranslate2 model of the checkpoint's weights (unconstrained mode): fitsub's own
    conversion (`fitsub.nmt.ct2`), the one `fitsub translate` uses."""
    from fitsub.nmt.checkpoint import load_checkpoint
    from fitsub.nmt.ct2 import checkpoint_digest, expressible
    from fitsub.nmt.ct2 import convert as ct2_convert

    model, tok, cfg, _ = load_checkpoint(model_dir)
    why = expressible(cfg, unconstrained=True)
    if why is not None:
        raise SystemExit(f"{model_dir}: {why}")
    return ct2_convert(model, tok, out_dir, checkpoint_digest(model_dir))


def _peak_mb() -> float:
    """This process's peak RSS (VmHWM: ru_maxrss would carry the parent's peak across exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker(engine: str, model_dir: Path, ct2_dir: Path, threads: int, int8: bool) -> None:
    """Read {"beam", "batch", "budget"} lines from stdin; answer {"s", "tokens", "outputs"}."""
    sys.path.insert(0, str(ROOT))
    texts = json.loads(sys.stdin.readline())
    if engine == "fitsub":
        if threads == 0:  # fitsub's own choice, as `fitsub translate` makes it (fitsub.threads)
            from fitsub.threads import prepare_cpu

            prepare_cpu(["translate"])
        import torch

        from fitsub.backend import Request
        from fitsub.nmt.backend import NMTBackend

        if threads:
            torch.set_num_threads(threads)
        kw: dict[str, Any] = {"int8": int8}
        backend = NMTBackend(model_dir, device="cpu", **kw)
        sp = backend.tokenizer.sp
    else:
        import ctranslate2

        translator = ctranslate2.Translator(
            str(ct2_dir), device="cpu", compute_type="int8" if int8 else "float32",
            intra_threads=threads or (os.cpu_count() or 1), inter_threads=1,
        )  # fmt: skip
        import sentencepiece  # not fitsub's Tokenizer: it would import torch into this process

        sp = sentencepiece.SentencePieceProcessor(model_file=str(model_dir / "spm.model"))
        src = [sp.encode(t, out_type=str) + ["</s>"] for t in texts]
        max_len = 2 * max(map(len, src)) + 10
    print(json.dumps({"ready": _peak_mb()}), flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        start = time.perf_counter()
        if engine == "fitsub":
            backend.beam, backend.batch_size = job["beam"], job["batch"]
            if job.get("budget"):
                reqs = [Request(t, len(t), len(t)) for t in texts]
            else:
                reqs = [Request(t) for t in texts]
            outs = [c[0].text if c else "" for c in backend.translate(reqs)]
        else:
            res = translator.translate_batch(
                src, max_batch_size=job["batch"], beam_size=job["beam"], length_penalty=0.0,
                max_decoding_length=max_len, disable_unk=True,
            )  # fmt: skip
            outs = [sp.decode_pieces(r.hypotheses[0]) for r in res]
        secs = time.perf_counter() - start
        tokens = sum(len(sp.encode(o)) for o in outs)
        print(
            json.dumps({"s": secs, "tokens": tokens, "rss": _peak_mb(), "outputs": outs}),
            flush=True,
        )


class Worker:
    """A worker process speaking JSON lines."""

    def __init__(
        self, engine: str, model: Path, ct2: Path, threads: int, int8: bool, texts: list[str]
    ) -> None:
        cmd = [sys.executable, __file__, "--worker", engine, "--model", str(model), "--ct2", str(ct2),
               "--threads-one", str(threads)] + (["--int8"] if int8 else [])  # fmt: skip
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.ask(texts)

    def ask(self, job: Any) -> dict[str, Any]:
        assert self.p.stdin is not None and self.p.stdout is not None
        self.p.stdin.write(json.dumps(job) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise SystemExit("a worker died")
        return dict(json.loads(line))

    def close(self) -> None:
        assert self.p.stdin is not None
        self.p.stdin.close()
        self.p.wait()


def main() -> None:
    """Check agreement, then time the alternating runs and print the table."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model", type=Path, default=ROOT / "models" / "en-it")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 16, 64])
    ap.add_argument("--beams", type=int, nargs="+", default=[1, 5])
    ap.add_argument("--int8", action="store_true")
    ap.add_argument("--constrained", action="store_true")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--ct2", type=Path, default=None)
    ap.add_argument("--worker", choices=["fitsub", "ct2"])
    ap.add_argument("--threads-one", type=int, default=1)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.model, args.ct2, args.threads_one, args.int8)
        return
    texts = sentences(args.n)
    with tempfile.TemporaryDirectory() as tmp:
        ct2 = args.ct2 or Path(tmp) / "ct2"
        if args.ct2 is None:
            convert(args.model, ct2)
        rows = []
        for threads in args.threads:
            a = Worker("fitsub", args.model, ct2, threads, args.int8, texts)
            b = Worker("ct2", args.model, ct2, threads, args.int8, texts)
            if threads == args.threads[0]:
                fa, fb = a.ask({"beam": 1, "batch": 16}), b.ask({"beam": 1, "batch": 16})
                same = sum(x == y for x, y in zip(fa["outputs"], fb["outputs"], strict=True))
                print(f"greedy agreement fitsub / CTranslate2: {same}/{len(texts)} "
                      f"({100 * same / len(texts):.1f} %; target >= 95 %)", flush=True)  # fmt: skip
            for batch in sorted(args.batches):
                for beam in args.beams:
                    runs: dict[str, list[dict[str, Any]]] = {"fitsub": [], "ct2": []}
                    for _ in range(args.pairs):
                        runs["fitsub"].append(a.ask({"beam": beam, "batch": batch}))
                        runs["ct2"].append(b.ask({"beam": beam, "batch": batch}))
                    row: dict[str, Any] = {"threads": threads, "beam": beam, "batch": batch}
                    for eng, rs in runs.items():
                        s = statistics.median(r["s"] for r in rs)
                        row[eng] = {"sent_s": len(texts) / s, "tok_s": rs[0]["tokens"] / s,
                                    "rss_mb": rs[-1]["rss"], "runs_s": [r["s"] for r in rs]}  # fmt: skip
                    row["ratio"] = row["fitsub"]["sent_s"] / row["ct2"]["sent_s"]
                    rows.append(row)
                    print(_line(row), flush=True)
                    if args.constrained and beam > 1 and batch > 1:
                        free, fit = [], []
                        for _ in range(args.pairs):
                            free.append(a.ask({"beam": beam, "batch": batch})["s"])
                            fit.append(a.ask({"beam": beam, "batch": batch, "budget": True})["s"])
                        row["constrained_over_free"] = statistics.median(fit) / statistics.median(
                            free
                        )
                        print(
                            f"    constrained / unconstrained time: {row['constrained_over_free']:.2f}"
                        )
            a.close()
            b.close()
    print()
    print(table(rows, args.int8))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), "utf-8")


def _line(row: dict[str, Any]) -> str:
    f, c = row["fitsub"], row["ct2"]
    return (f"threads {row['threads']} beam {row['beam']} batch {row['batch']}: fitsub "
            f"{f['sent_s']:.1f} sent/s {f['tok_s']:.0f} tok/s {f['rss_mb']:.0f} MB | CT2 "
            f"{c['sent_s']:.1f} sent/s {c['tok_s']:.0f} tok/s {c['rss_mb']:.0f} MB | "
            f"ratio {row['ratio']:.2f}")  # fmt: skip


def table(rows: list[dict[str, Any]], int8: bool) -> str:
    """The Markdown table of the runs."""
    kind = "int8" if int8 else "fp32"
    out = [f"| threads | beam | batch | fitsub sent/s | CT2 {kind} sent/s | fitsub tok/s | "
           f"CT2 tok/s | fitsub RSS MB | CT2 RSS MB | fitsub / CT2 |",
           "|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in rows:
        f, c = r["fitsub"], r["ct2"]
        out.append(f"| {r['threads']} | {'greedy' if r['beam'] == 1 else r['beam']} | {r['batch']} "
                   f"| {f['sent_s']:.1f} | {c['sent_s']:.1f} | {f['tok_s']:.0f} | {c['tok_s']:.0f} "
                   f"| {f['rss_mb']:.0f} | {c['rss_mb']:.0f} | {r['ratio']:.2f} |")  # fmt: skip
    return "\n".join(out)


if __name__ == "__main__":
    main()
