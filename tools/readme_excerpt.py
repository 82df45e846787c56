"""README.md's excerpt of the demo's output, written from a real run of the demo command.

After shipping or retraining a model (or changing what the table shows), one command rewrites
the block between the README's markers from the demo's real output:

    .venv/bin/python tools/readme_excerpt.py          # or: make readme

`--check` rewrites nothing: exit 1, saying so, when the README's block is not what the run
gives (tests/system/test_readme.py runs the same comparison). The run is `make demo`'s command
with `--threads 1` (one thread: the same output on any machine), its table as an 80-column
terminal shows it, then the summary's main rows.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
START = "<!-- demo excerpt: written by tools/readme_excerpt.py from a real run; do not edit -->"
END = "<!-- end of demo excerpt -->"
WIDTH = 80
# `make demo`'s command (the Makefile's `demo` target), one thread
DEMO = ["translate", "samples/talk.srt", "--lang", "it", "--ratio", "1.0", "--threads", "1"]
SUMMARY_ROWS = ("flagged segments", "within budget")
SEGMENTS = 5  # the table's first segments shown (the README stays a five-minute read)


# The same kernels on every x86-64 CPU (AVX2 is the floor of the machines this runs on): without
# these, CTranslate2, PyTorch and oneDNN pick AVX-512 or AMX code where the CPU has it, whose
# float rounding may flip a close beam, and the excerpt would drift with the machine.
SAME_MATHS = {
    "CT2_FORCE_CPU_ISA": "AVX2",
    "ATEN_CPU_CAPABILITY": "avx2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
}


def demo_output(out_dir: Path) -> str:
    """What the demo command prints on an 80-column terminal (its output files in `out_dir`)."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "FORCE_COLOR")}
    env.update(COLUMNS=str(WIDTH), TERM="dumb", NO_COLOR="1", **SAME_MATHS)
    outputs = ["-o", str(out_dir / "talk.it.srt"), "--report", str(out_dir / "talk.it.json")]
    args = [sys.executable, "-m", "fitsub", *DEMO, *outputs, "--table-format", "rich"]
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"readme_excerpt: the demo failed: {done.stderr.strip()[-500:]}")
    return done.stdout


def excerpt(output: str) -> str:
    """The per-segment table as printed (without its title, which names the output path), its
    first `SEGMENTS` segments, then the summary's main rows and every flag counted."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("┏"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("└"))
    table, shown = lines[start : start + 3], 0
    for line in lines[start + 3 : end]:
        shown += line.split("│")[1].strip() != ""  # a segment's first line names its id
        if shown > SEGMENTS:
            break
        table.append(line)
    table.append(lines[end])
    left = sum(line.split("│")[1].strip() != "" for line in lines[start + 3 : end]) - SEGMENTS
    if left > 0:
        table.append(f"({left} more segments)")
    rows, flags = [], []
    for line in lines[end + 1 :]:
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if len(cells) != 3:
            continue
        label, unconstrained, fitted = cells
        if label in SUMMARY_ROWS:
            both = f"unconstrained {unconstrained}, " if unconstrained else ""
            rows.append(f"{label}: {both}fitted {fitted}")
        elif line.startswith("│   ") and fitted not in ("", "0"):  # a flag's count
            flags.append(f"{label} {fitted}")
    if flags and rows:
        rows[0] += f" ({', '.join(flags)})"
    return "\n".join(["```text", *table, *rows, "```"])


def with_excerpt(readme: str, block: str) -> str:
    """`readme` with the text between the markers replaced by `block`."""
    head, sep, rest = readme.partition(START)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise SystemExit(f"readme_excerpt: {README.name} lacks the markers {START!r} / {END!r}")
    return f"{head}{START}\n{block}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    """Rewrite README.md's excerpt, or with --check say whether it is the demo's output."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="Compare only; exit 1 on a drift.")
    args = parser.parse_args(argv)
    out_dir = ROOT / "build"
    out_dir.mkdir(exist_ok=True)
    block = excerpt(demo_output(out_dir))
    readme = README.read_text(encoding="utf-8")
    updated = with_excerpt(readme, block)
    if args.check:
        if updated != readme:
            print("README.md's demo excerpt differs from the demo's output: run "
                  "tools/readme_excerpt.py")  # fmt: skip
            return 1
        return 0
    if updated != readme:
        README.write_text(updated, encoding="utf-8")
        print("README.md: demo excerpt rewritten")
    else:
        print("README.md: demo excerpt unchanged")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
