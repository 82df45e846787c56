"""`fitsub translate` with and without a busy neighbour, under several thread policies: whole
process, alternating runs, medians.

Each run translates the first `--n` lines of a dev file (`../shared/data/en-it/dev`, read at run
time and written to a temporary slides .txt; never copied into the repository) with the shipped
model, beam 5, the default hard budget, `--no-compare` (the setting of issue 31). A *busy
neighbour* is `--busy` processes spinning in a Python loop (`while True: pass`), started by
this script before the run and killed after it. Policies (`--policies`):

- `old`: the process as before issue 31: the Typer app called without `fitsub.threads`'
  set-up, so torch's defaults (one thread per core, libgomp's default spin of 300,000);
- `new`: `python -m fitsub translate` as shipped (free cores measured at start, short spin);
- `tN` (`t1`, `t2`, ...): `new` with `--threads N` (the short spin);
- `tN-spin` / `tN-passive`: `--threads N` with libgomp's default spin / `OMP_WAIT_POLICY=PASSIVE`.

Rounds alternate the order of the loads and rotate the policies, so slow drifts of the machine's
own load fall on every policy alike. OpenMP / thread variables of the calling shell are removed
from the runs' environment (each policy sets its own). The table gives the median seconds per
(policy, load), the spread (min-max), busy / idle per policy and each policy / `old`.
Run: `python bench/load_test.py [--n 100] [--rounds 3] [--policies old new t1 t2] [--json F]`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT.parent / "shared" / "data" / "en-it" / "dev" / "mustc-tst-common-a.en"
OMP_VARS = (
    "OMP_NUM_THREADS",
    "OMP_WAIT_POLICY",
    "GOMP_SPINCOUNT",
    "KMP_BLOCKTIME",
    "MKL_NUM_THREADS",
)
# the command line as before issue 31: the Typer app without `prepare_cpu`
LEGACY = "import sys; from fitsub.cli import app; app.main(args=sys.argv[1:], prog_name='fitsub')"


def command(policy: str, args: list[str]) -> tuple[list[str], dict[str, str]]:
    """The command line and extra environment of one policy."""
    if policy == "old":
        return [sys.executable, "-c", LEGACY, *args], {}
    cmd = [sys.executable, "-m", "fitsub", *args]
    if policy == "new":
        return cmd, {}
    name, _, wait = policy.partition("-")
    if not name.startswith("t") or not name[1:].isdigit() or wait not in ("", "spin", "passive"):
        raise SystemExit(f"unknown policy {policy!r}: old, new, tN, tN-spin, tN-passive")
    env = {"spin": {"GOMP_SPINCOUNT": "300000"}, "passive": {"OMP_WAIT_POLICY": "PASSIVE"}}
    return [*cmd, "--threads", name[1:]], env.get(wait, {})


def timed(cmd: list[str], env: dict[str, str], timeout: float, log: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one whole process, which must succeed. A run past
    `timeout` is killed and counts as `timeout` seconds (a lower bound: `>` in the table)."""
    t0 = time.perf_counter()
    with log.open("wb") as err:
        proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - t0 > timeout:
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                proc.returncode = -9
                return timeout, usage.ru_utime + usage.ru_stime
            time.sleep(0.02)
    took = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{log.read_text()[-2000:]}")
    return took, usage.ru_utime + usage.ru_stime


def spinners(n: int) -> list[subprocess.Popen[bytes]]:
    """`n` busy neighbours: Python processes spinning until killed."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def main() -> None:
    """Alternate the runs, print the table (and write `--json`)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100, help="sentences per run")
    ap.add_argument("--data", type=Path, default=DEV, help="English lines (dev, not test)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--busy", type=int, default=1, help="spinning neighbours in the busy runs")
    ap.add_argument("--policies", nargs="+", default=["old", "new"])
    ap.add_argument("--model", type=Path, default=ROOT / "models" / "en-it")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds before a run is cut")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    lines = [s for s in a.data.read_text("utf-8").splitlines() if s.strip()][: a.n]
    base = {k: v for k, v in os.environ.items() if k not in OMP_VARS}
    base["PYTHONPATH"] = str(ROOT)
    times: dict[tuple[str, str], list[float]] = {}
    cpu: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "dev.txt"
        src.write_text("\n\n".join(lines) + "\n", "utf-8")
        args = ["translate", str(src), "--lang", "it", "--model", str(a.model), "--beam", "5",
                "--no-compare", "-q", "-o", str(Path(tmp) / "out.txt")]  # fmt: skip
        for policy in a.policies:  # validate every policy before the first run
            command(policy, args)
        for r in range(a.rounds):
            loads = ["idle", "busy"] if r % 2 == 0 else ["busy", "idle"]
            order = a.policies[r % len(a.policies) :] + a.policies[: r % len(a.policies)]
            for load in loads:
                procs = spinners(a.busy if load == "busy" else 0)
                try:
                    for policy in order:
                        cmd, extra = command(policy, args)
                        took, used = timed(cmd, {**base, **extra}, a.timeout, Path(tmp) / "err")
                        times.setdefault((policy, load), []).append(took)
                        cpu.setdefault((policy, load), []).append(used)
                        print(f"round {r + 1} {load:4} {policy:12} {took:7.2f} s, CPU {used:6.2f} s "
                              f"(load average {os.getloadavg()[0]:.2f})", flush=True)  # fmt: skip
                finally:
                    for p in procs:
                        p.kill()
                        p.wait()
    report(a, len(lines), times, cpu)
    if a.json:
        rows = [
            {"policy": p, "load": load, "seconds": v, "cpu_seconds": cpu[(p, load)]}
            for (p, load), v in times.items()
        ]
        a.json.write_text(json.dumps({"n": len(lines), "busy": a.busy, "runs": rows}, indent=1))


def report(
    a: argparse.Namespace,
    n: int,
    times: dict[tuple[str, str], list[float]],
    cpu: dict[tuple[str, str], list[float]],
) -> None:
    """The table: medians (min-max) of wall seconds, CPU seconds, the ratios."""
    med = {k: statistics.median(v) for k, v in times.items()}

    def cell(key: tuple[str, str]) -> str:
        cut = ">" if max(times[key]) >= a.timeout else ""
        lo, hi = min(times[key]), max(times[key])
        return f"{cut}{med[key]:.1f} ({lo:.1f}-{hi:.1f}), CPU {statistics.median(cpu[key]):.1f}"

    print(f"\n{n} sentences, beam 5, hard budget, --no-compare, {a.rounds} rounds, {a.busy} "
          f"busy neighbour(s) in 'busy', {os.cpu_count()} CPUs; median (min-max) wall seconds")  # fmt: skip
    print("| policy | idle | busy | busy / idle | idle / old | busy / old |")
    print("|---|---|---|---|---|---|")
    for p in a.policies:
        i, b = med[(p, "idle")], med[(p, "busy")]
        rel = " | "
        if "old" in a.policies:
            rel = f"{i / med[('old', 'idle')]:.2f} | {b / med[('old', 'busy')]:.2f}"
        print(f"| {p} | {cell((p, 'idle'))} | {cell((p, 'busy'))} | {b / i:.2f} | {rel} |")


if __name__ == "__main__":
    main()
