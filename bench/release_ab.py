"""Whole-process A B A B: the default `fitsub translate` of an earlier release (A: a checkout of
it, e.g. `git worktree add --detach ../old REV`) against this tree (B), in the same Python
environment, on the same files, each run a fresh process timed from start to exit.

    python bench/release_ab.py --old ../old --txt dev200.en [--srt samples/lecture.srt]
        [--threads 2] [--repeats 2]

`--txt`: a plain-text file of English lines (e.g. 200 lines of a dev set, read from ../shared at
run time, never committed). Prints every run and the median per job with the ratio B / A.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_once(tree: Path, src: Path, threads: int, lang: str = "it") -> float:
    """Seconds of one `python -m fitsub translate SRC --lang LANG` in `tree` (its own package)."""
    out = Path(tempfile.mkdtemp()) / ("out" + src.suffix)
    cmd = [sys.executable, "-m", "fitsub", "translate", str(src), "--lang", lang]
    t0 = time.perf_counter()
    done = subprocess.run(
        [*cmd, "--threads", str(threads), "-o", str(out), "-q"],
        cwd=tree,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{tree}: {done.stderr.strip()[-400:]}")
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--old", type=Path, required=True, help="a checkout of the earlier release")
    ap.add_argument("--txt", type=Path, required=True)
    ap.add_argument("--srt", type=Path, default=ROOT / "samples" / "lecture.srt")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--lang", default="it", help="the target language (its default model)")
    args = ap.parse_args()
    trees = {"A old": args.old.resolve(), "B this": ROOT}
    jobs = {args.txt.name: args.txt.resolve(), args.srt.name: args.srt.resolve()}
    times: dict[tuple[str, str], list[float]] = {(j, t): [] for j in jobs for t in trees}
    for r in range(args.repeats):
        for job, src in jobs.items():
            for tag, tree in trees.items():
                seconds = run_once(tree, src, args.threads, args.lang)
                times[(job, tag)].append(seconds)
                print(f"run {r + 1} {job:14s} {tag:7s} {seconds:6.1f} s", flush=True)
    for job in jobs:
        a, b = (statistics.median(times[(job, t)]) for t in trees)
        print(f"{job}: A {a:.1f} s, B {b:.1f} s, B / A {b / a:.2f}")


if __name__ == "__main__":
    main()
