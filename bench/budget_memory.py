"""Peak memory and time of `fitsub budget` on a big SRT (issue 18: under ~10x the file size).

Writes an SRT of about `--mb` megabytes (cues cycled from samples/talk.srt), then runs
`fitsub budget FILE` (the table) and `fitsub budget FILE --json` in child processes, each
measured with resource.getrusage(RUSAGE_CHILDREN) (peak RSS) and wall time; also the peak of a
`fitsub budget --help` as the baseline. Output goes to /dev/null.
Run: `python bench/budget_memory.py [--mb 50] [--json-only]`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build_srt(path: Path, megabytes: float) -> int:
    """Write about `megabytes` MB of SRT to `path`; return the number of cues."""
    sys.path.insert(0, str(ROOT))
    from fitsub.formats import read_document

    texts = [s.text for s in read_document(ROOT / "samples" / "talk.srt").segments]
    target = int(megabytes * 1e6)
    written, n = 0, 0
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        while written < target:
            start = n * 3000
            h, rem = divmod(start, 3_600_000)
            m, rem = divmod(rem, 60_000)
            s, ms = divmod(rem, 1000)
            stamp = f"{h:02d}:{m:02d}:{s:02d},{ms:03d}"
            end = start + 2500
            h, rem = divmod(end, 3_600_000)
            m, rem = divmod(rem, 60_000)
            s, ms = divmod(rem, 1000)
            block = f"{n + 1}\n{stamp} --> {h:02d}:{m:02d}:{s:02d},{ms:03d}\n{texts[n % len(texts)]}\n\n"
            fh.write(block)
            written += len(block.encode("utf-8"))
            n += 1
    return n


def measure(args: list[str]) -> tuple[float, float, int]:
    """(peak RSS in MB, wall seconds, exit code) of one child process."""
    code = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.perf_counter() - t, rc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
    ).stdout.split()
    return int(out[0]) / 1024, float(out[1]), int(out[2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=50.0)
    parser.add_argument("--json-only", action="store_true")
    a = parser.parse_args()
    env_python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.srt"
        cues = build_srt(path, a.mb)
        size = path.stat().st_size / 1e6
        print(f"file: {size:.1f} MB, {cues:,} cues")
        base, _, _ = measure([env_python, "-m", "fitsub", "budget", "--help"])
        print(f"baseline (fitsub budget --help): {base:.0f} MB")
        runs = [("budget --json", ["--json"])]
        if not a.json_only:
            runs.insert(0, ("budget (table)", []))
        for name, extra in runs:
            rss, wall, rc = measure([env_python, "-m", "fitsub", "budget", str(path), *extra])
            print(
                f"{name:15} peak RSS {rss:7.0f} MB = {rss / size:5.1f} x file "
                f"({(rss - base) / size:4.1f} x above baseline), {wall:6.1f} s, exit {rc}"
            )


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
