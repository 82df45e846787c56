"""Issue 59's targets in one run: the release before (A, a checkout: `git worktree add --detach
../old REV`) against this tree (B), whole process, A B A B, in the same Python environment.

Jobs, each a fresh process timed from start to exit, its peak RSS read from the kernel
(`os.wait4`):
* one: a one-line SRT (`fitsub translate one.srt --lang it`): target <= 2.5 s;
* txt: N lines of a dev set's English side (read at run time from ../shared, never committed),
  `--no-compare --beam 5`, against CTranslate2 fp32 alone on the same lines and weights
  (`speed_ab.CT2_ALONE`, its own process): target >= 0.3 x CTranslate2's speed (0.6 x with a
  length-token model);
* srt: a `--cues`-cue SRT (`translate_srt.build_srt`) with the comparison: target peak RSS
  <= 500 MB at 1,000 cues.
Prints every run, then per job the medians of A and B, B / A, and each target met or not.
Name the CPU beside the figures (`lscpu`): this machine's speed varies.

    python bench/speed_targets.py --old ../old [--n 800] [--cues 1000] [--threads 2] [--model M]
        [--repeats 2] [--jobs one txt srt]
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

ONE = "1\n00:00:01,000 --> 00:00:03,500\nI keep bees in my garden.\n"


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """(seconds, peak RSS in MB, CPU seconds: user + system) of `cmd` run in `cwd` to its exit;
    fails loudly. On a shared machine the CPU seconds are the steadier figure."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:6])} ...: exit {proc.returncode}: {err.strip()[-400:]}")
    return seconds, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime  # maxrss: kB


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--old", type=Path, required=True, help="a checkout of the release before")
    ap.add_argument("--n", type=int, default=800)
    ap.add_argument("--cues", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--source", type=Path, default=ROOT.parent / "shared/data/en-it/dev/ud-pud.en")
    ap.add_argument("--jobs", nargs="+", default=["one", "txt", "srt"])
    ap.add_argument("--model", type=Path, default=ROOT / "models" / "en-it", help="both trees'")
    ap.add_argument("--a-env", action="append", default=[], help="KEY=VALUE for A's processes")
    ap.add_argument(
        "--b-env",
        action="append",
        default=[],
        help="KEY=VALUE for B's processes (with --old .: "
        "one tree two ways, e.g. FITSUB_TOKEN_PATH=on, the token path against the search)",
    )
    ap.add_argument("--prepare-into", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    model = args.model.resolve()
    if args.prepare_into is not None:  # the child that writes the inputs (see `prepared`)
        prepare(args, model)
        return
    py, t = sys.executable, str(args.threads)
    trees = {"A": args.old.resolve(), "B": ROOT}
    with tempfile.TemporaryDirectory() as tmp:
        files = {"one": Path(tmp) / "one.srt", "txt": Path(tmp) / "dev.txt"}
        files["srt"] = Path(tmp) / "long.srt"
        goal, converted = prepared(Path(tmp))
        out = Path(tmp) / "out"
        from speed_ab import CT2_ALONE

        extra = {"one": [], "txt": ["--no-compare", "--beam", "5"], "srt": []}
        runs: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
        for r in range(args.repeats):
            for job in args.jobs:
                src = files[job]
                for tag, tree in trees.items():
                    cmd = [py, "-m", "fitsub", "translate", str(src), "--lang", "it", "--model",
                           str(model), *extra[job], "--threads", t, "-q", "-o", f"{out}{src.suffix}"]  # fmt: skip
                    env = dict(
                        kv.split("=", 1) for kv in (args.a_env if tag == "A" else args.b_env)
                    )
                    runs.setdefault((job, tag), []).append(run(cmd, tree, env))
                    s, mb, cpu = runs[(job, tag)][-1]
                    print(
                        f"run {r + 1} {job:4s} {tag}: {s:6.1f} s ({cpu:.1f} s CPU), peak {mb:5.0f} MB",
                        flush=True,
                    )
                if job == "txt":
                    cmd = [py, "-c", CT2_ALONE, str(model), str(src), t, converted]
                    runs.setdefault((job, "CTranslate2"), []).append(run(cmd, ROOT))
                    print(
                        f"run {r + 1} txt  CTranslate2: {runs[(job, 'CTranslate2')][-1][0]:6.1f} s"
                    )
    med = {
        k: (statistics.median(s for s, _, _ in v), max(m for _, m, _ in v), statistics.median(c for _, _, c in v))
        for k, v in runs.items()
    }  # fmt: skip
    print(f"\n--threads {args.threads}, {args.n} sentences, {args.cues} cues; medians, peak RSS")
    for job in args.jobs:
        (a, ma, ca), (b, mb, cb) = med[(job, "A")], med[(job, "B")]
        print(f"{job}: A {a:.1f} s ({ca:.1f} CPU) {ma:.0f} MB, B {b:.1f} s ({cb:.1f} CPU) {mb:.0f} MB,"
              f" B / A {b / a:.2f} wall, {cb / ca:.2f} CPU")  # fmt: skip
    if "one" in args.jobs:
        b = med[("one", "B")][0]
        print(f"target one-line file <= 2.5 s: {b:.1f} s, {'met' if b <= 2.5 else 'not met'}")
    if "txt" in args.jobs:
        ct2, (a, _, _), (b, _, _) = (
            med[("txt", "CTranslate2")][0],
            med[("txt", "A")],
            med[("txt", "B")],
        )
        met = "met" if ct2 / b >= goal else "not met"
        print(f"target txt >= {goal} x CTranslate2: A {ct2 / a:.2f} x, B {ct2 / b:.2f} x, {met}")
    if "srt" in args.jobs:
        mb = med[("srt", "B")][1]
        met = "met" if mb <= 500 else "not met"
        print(f"target peak RSS <= 500 MB at {args.cues} cues: B {mb:.0f} MB, {met}")


def prepared(folder: Path) -> tuple[float, str]:
    """The inputs written into `folder` by a child process (`prepare`): this process keeps only
    the standard library, so the children it starts begin small (the kernel counts a child's
    peak RSS from the fork, when it is still a copy of this process); (the target ratio, the
    CTranslate2 weights' folder)."""
    proc = subprocess.run(
        [sys.executable, __file__, *sys.argv[1:], "--prepare-into", str(folder)],
        check=True,
        capture_output=True,
        text=True,
    )
    goal, converted = proc.stdout.strip().splitlines()[-1].split("\t")
    return float(goal), converted


def prepare(args: argparse.Namespace, model: Path) -> None:
    """Write the jobs' inputs into `args.prepare_into`; print the target ratio (0.6 with a
    length-token model, else 0.3: the issue's two) and the converted weights' folder."""
    from speed_ab import converted_weights
    from translate_srt import build_srt

    from fitsub.nmt.config import ModelConfig
    from fitsub.nmt.model_files import read_config
    from fitsub.nmt.token_path import has_token_path

    folder = args.prepare_into
    (folder / "one.srt").write_text(ONE, encoding="utf-8")
    if "txt" in args.jobs:
        lines = args.source.read_text("utf-8").splitlines()[: args.n]
        (folder / "dev.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "long.srt").write_text(build_srt(args.cues), encoding="utf-8")
    goal = 0.6 if has_token_path(ModelConfig.from_dict(read_config(model)["model"])) else 0.3
    print(f"{goal}\t{converted_weights(model)}")


if __name__ == "__main__":
    main()
