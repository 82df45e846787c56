"""Whole-process A B A B timing: `fitsub translate` before (fitsub's own search for every pass,
$FITSUB_CT2=off) and now (CTranslate2 runs the unconstrained pass), against CTranslate2 fp32
running the same weights unconstrained (beam 5, batches of 32) in a process of its own.

Jobs, each a fresh process timed from start to exit, run in turn `--repeats` times (A B A B):
* txt: `fitsub translate N.txt --lang it --no-compare --beam 5` (N lines of a dev set's
  English side, read at run time from ../shared; never committed), off / on, and CTranslate2;
* free: the unconstrained pass alone (`NMTBackend.translate` of requests without a length), off
  / on, and CTranslate2 (the same process as for txt);
* srt: a `--cues`-cue SRT (`bench/translate_srt.py`'s file) with the comparison, off / on, and
  CTranslate2 over its cues.
Prints each run and the median per job, and the ratios of the targets (issue 45).
`--in-process`: the unconstrained pass alone without the processes' start-up (importing torch,
loading the model, its lexicon and word links): one process, A B A B, CTranslate2's
`translate_batch` (sorted batches of 32) and the same call with the search the engine asks
for (`num_hypotheses=5` finished hypotheses for its re-ranking, `return_scores`, the special
pieces suppressed) against `NMTBackend.translate` on its CTranslate2 engine and on fitsub's
search, the same sentences, one warm-up run each.
`--no-before` leaves out the $FITSUB_CT2=off jobs (fitsub's search).
Run: `python bench/speed_ab.py [--n 800] [--cues 2000] [--threads 1] [--repeats 2]
[--in-process] [--no-before]`
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

CT2_ALONE = """
import sys, ctranslate2, sentencepiece
model, path, threads, converted = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sp = sentencepiece.SentencePieceProcessor(model_file=model + "/spm.model")
texts = [t for t in open(path, encoding="utf-8").read().splitlines() if t.strip()]
tr = ctranslate2.Translator(converted, device="cpu", intra_threads=threads, inter_threads=1)
src = [sp.encode(t, out_type=str) + ["</s>"] for t in texts]
res = tr.translate_batch(src, max_batch_size=32, beam_size=5, length_penalty=0.0,
                         max_decoding_length=2 * max(map(len, src)) + 10, disable_unk=True)
out = [sp.decode_pieces(r.hypotheses[0]) for r in res]
print(len(out))
"""

FREE_ONLY = """
import sys
from fitsub.backend import Request
from fitsub.nmt.backend import NMTBackend
model, path, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
texts = [t for t in open(path, encoding="utf-8").read().splitlines() if t.strip()]
b = NMTBackend(model, device="cpu", beam=5, threads=threads)
print(len(b.translate([Request(t) for t in texts])))
"""


def converted_weights(model: Path) -> Path:
    """Where the model's CTranslate2 weights are (converted into the user's cache once)."""
    from fitsub.nmt import ct2
    from fitsub.nmt.backend import NMTBackend

    backend = NMTBackend(model, device="cpu", beam=1)
    return ct2.open_converted(model, lambda: backend.model, backend.tokenizer).path


def timed(cmd: list[str], ct2: str) -> float:
    """Seconds from start to exit of `cmd` with $FITSUB_CT2=`ct2`; fails loudly."""
    env = {**os.environ, "FITSUB_CT2": ct2}
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - start


def in_process(model: Path, texts: list[str], threads: int, repeats: int, own: bool) -> None:
    """The unconstrained pass alone, in one process: raw CTranslate2 against fitsub's engines."""
    import ctranslate2
    import sentencepiece

    from fitsub.backend import Request
    from fitsub.nmt.backend import NMTBackend

    sp = sentencepiece.SentencePieceProcessor(model_file=str(model / "spm.model"))
    tr = ctranslate2.Translator(str(model / "ct2"), device="cpu", intra_threads=threads)
    src = [sp.encode(t, out_type=str) + ["</s>"] for t in texts]
    cap = 2 * max(map(len, src)) + 10
    reqs = [Request(t) for t in texts]
    os.environ["FITSUB_CT2"] = "off"
    mine = NMTBackend(model, device="cpu", beam=5, threads=threads)
    os.environ["FITSUB_CT2"] = "on"
    fast = NMTBackend(model, device="cpu", beam=5, threads=threads)
    jobs = {
        "CTranslate2 translate_batch": lambda: tr.translate_batch(
            src, max_batch_size=32, beam_size=5, length_penalty=0.0, max_decoding_length=cap
        ),
        "CTranslate2, the engine's search (K finished, scores, suppressed)": lambda: (
            tr.translate_batch(
                src,
                max_batch_size=32,
                beam_size=5,
                length_penalty=0.0,
                max_decoding_length=cap,
                num_hypotheses=5,
                return_scores=True,
                suppress_sequences=fast.ct2.suppress,
                disable_unk=True,
            )  # fmt: skip
        ),
        "NMTBackend on CTranslate2": lambda: fast.translate(reqs),
        "NMTBackend on fitsub's search": lambda: mine.translate(reqs),
    }
    if not own:
        del jobs["NMTBackend on fitsub's search"]
    runs: dict[str, list[float]] = {name: [] for name in jobs}
    for r in range(repeats + 1):  # the first round warms up, not counted
        for name, job in jobs.items():
            start = time.process_time()
            job()
            if r:
                runs[name].append(time.process_time() - start)
    base = statistics.median(runs["CTranslate2 translate_batch"])
    print(f"{len(texts)} sentences, beam 5, {threads} thread(s), CPU seconds in process:")
    for name, v in runs.items():
        med = statistics.median(v)
        print(f"| {name} | {' / '.join(f'{x:.1f}' for x in v)} | {med:.1f} | {base / med:.2f} |")


def main() -> None:
    """Run the jobs A B A B and print the table."""
    from translate_srt import build_srt

    from fitsub.formats import read_document

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=800)
    ap.add_argument("--cues", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--source", type=Path, default=ROOT.parent / "shared/data/en-it/dev/ud-pud.en")
    ap.add_argument("--jobs", nargs="+", default=["txt", "free", "srt"])
    ap.add_argument("--in-process", action="store_true")
    ap.add_argument("--no-before", action="store_true", help="skip the $FITSUB_CT2=off jobs")
    args = ap.parse_args()
    model = str(ROOT / "models" / "en-it")
    converted = str(converted_weights(Path(model)))
    if args.in_process:
        lines = args.source.read_text("utf-8").splitlines()[: args.n]
        in_process(Path(model), lines, args.threads, args.repeats, own=not args.no_before)
        return
    py, t = sys.executable, str(args.threads)
    fitsub = [py, "-m", "fitsub"]
    with tempfile.TemporaryDirectory() as tmp:
        txt = Path(tmp) / "dev.txt"
        txt.write_text("\n".join(args.source.read_text("utf-8").splitlines()[: args.n]) + "\n")
        srt = Path(tmp) / "long.srt"
        srt.write_text(build_srt(args.cues), encoding="utf-8")
        cues = Path(tmp) / "cues.txt"
        cues.write_text("\n".join(s.text.replace("\n", " ") for s in read_document(srt).segments))
        out = str(Path(tmp) / "out")
        jobs: dict[str, tuple[list[str], str]] = {}
        if "txt" in args.jobs:
            run = [*fitsub, "translate", str(txt), "--lang", "it", "--no-compare", "--beam", "5",
                   "--threads", t, "-q", "-o", out + ".txt"]  # fmt: skip
            jobs["txt: fitsub translate, before (fitsub search)"] = (run, "off")
            jobs["txt: fitsub translate, now (CTranslate2 unconstrained)"] = (run, "on")
        if "txt" in args.jobs or "free" in args.jobs:
            jobs["txt: CTranslate2 fp32 alone"] = (
                [py, "-c", CT2_ALONE, model, str(txt), t, converted],
                "on",
            )
        if "free" in args.jobs:
            free = [py, "-c", FREE_ONLY, model, str(txt), t]
            jobs["free: unconstrained pass, fitsub search"] = (free, "off")
            jobs["free: unconstrained pass, CTranslate2 engine"] = (free, "on")
        if "srt" in args.jobs:
            run = [*fitsub, "translate", str(srt), "--lang", "it", "--threads", t, "-q",
                   "-o", out + ".srt"]  # fmt: skip
            jobs["srt: fitsub translate + comparison, before"] = (run, "off")
            jobs["srt: fitsub translate + comparison, now"] = (run, "on")
            jobs["srt: CTranslate2 fp32 alone"] = (
                [py, "-c", CT2_ALONE, model, str(cues), t, converted],
                "on",
            )
        if args.no_before:
            jobs = {name: job for name, job in jobs.items() if job[1] != "off"}
        runs: dict[str, list[float]] = {name: [] for name in jobs}
        for r in range(args.repeats):
            for name, (cmd, ct2) in jobs.items():
                runs[name].append(timed(cmd, ct2))
                print(f"run {r + 1}: {name}: {runs[name][-1]:.1f} s", flush=True)
    med = {name: statistics.median(v) for name, v in runs.items()}
    print(f"\n{args.n} sentences, {args.cues} cues, --threads {args.threads}, beam 5\n")
    print("| job | runs (s) | median (s) |\n|---|---|---|")
    for name, v in runs.items():
        print(f"| {name} | {' / '.join(f'{x:.1f}' for x in v)} | {med[name]:.1f} |")
    for a, b in (
        ("txt: CTranslate2 fp32 alone", "txt: fitsub translate, before (fitsub search)"),
        ("txt: CTranslate2 fp32 alone", "txt: fitsub translate, now (CTranslate2 unconstrained)"),
        ("txt: CTranslate2 fp32 alone", "free: unconstrained pass, fitsub search"),
        ("txt: CTranslate2 fp32 alone", "free: unconstrained pass, CTranslate2 engine"),
    ):
        if a in med and b in med:
            print(f"{b}: {med[a] / med[b]:.2f}x CTranslate2's speed")
    for b in (
        "srt: fitsub translate + comparison, before",
        "srt: fitsub translate + comparison, now",
    ):
        if b in med:
            print(f"{b}: {med[b] / med['srt: CTranslate2 fp32 alone']:.2f}x CTranslate2's time")


if __name__ == "__main__":
    main()
