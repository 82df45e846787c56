"""Peak RSS and wall time of `fitsub translate` (with the comparison) on a generated N-cue SRT.

Builds the file as `bench/translate_srt.py` does (cues of samples/talk.srt cycled), then runs
`python -m fitsub translate FILE --lang it --ratio 1.0 -o OUT --quiet --threads T` in a child
process under `/usr/bin/time -v` (Linux) and prints its maximum resident set size and elapsed time.
Targets (issue 15): peak RSS < 500 MB on 2,000 cues; 1,000 cues in < 15 s.
Run: `python bench/translate_memory.py [--cues 2000] [--threads 2] [--beam 5]`.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from translate_srt import build_srt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    """Run the child and print peak RSS and time."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cues", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--beam", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "long.srt"
        src.write_text(build_srt(args.cues), encoding="utf-8")
        cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "fitsub", "translate", str(src),
               "--lang", "it", "--ratio", "1.0", "-o", str(Path(tmp) / "out.srt"), "--quiet",
               "--threads", str(args.threads), "--beam", str(args.beam)]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", res.stderr)
    wall = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", res.stderr)
    if res.returncode or rss is None or wall is None:
        raise SystemExit(f"fitsub translate failed ({res.returncode}):\n{res.stderr[-2000:]}")
    print(f"cues: {args.cues}, beam {args.beam}, threads {args.threads}: peak RSS "
          f"{int(rss.group(1)) / 1024:.0f} MB (target < 500 MB), wall {wall.group(1)} "
          f"(with the comparison; target for 1,000 cues < 15 s)")  # fmt: skip


if __name__ == "__main__":
    main()
