"""Do the tests notice a one-line change at a length edge? Apply each mutation, run the tests
that should catch it, restore the file, and print caught / missed per mutation and the total.

    .venv/bin/python tools/mutation_probe.py                 # every mutation, this checkout
    .venv/bin/python tools/mutation_probe.py --root DIR      # another copy (e.g. an older commit)
    .venv/bin/python tools/mutation_probe.py --only lc-11    # some mutations, by name

A mutation is caught when `pytest -x -q` over its test files fails. Every mutated file is
restored in a `finally` and checked byte for byte (and with `git diff` where DIR is a clean
checkout). When code moves, edit the table below: each row names its file, the exact fragment
it replaces (it must occur once) and the replacement.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str  # relative to the root
    old: str  # an exact fragment, found exactly once in `file`
    new: str
    tests: tuple[str, ...]  # test files run against it (those that exist)


BUDGET_TESTS = ("tests/test_budget.py", "tests/test_length_edges.py", "tests/test_units.py")
MUTATIONS: tuple[Mutation, ...] = (
    Mutation(
        "ratio-floor-to-ceil",
        "fitsub/units.py",
        "return math.floor(_decimal(ratio) * chars)",
        "return math.ceil(_decimal(ratio) * chars)",
        (*BUDGET_TESTS, "tests/test_pipeline.py"),
    ),
    Mutation(
        "fit-le-to-lt",
        "fitsub/metrics/length.py",
        "char_length(o) <= requested_chars(s, ratio)",
        "char_length(o) < requested_chars(s, ratio)",
        ("tests/test_metrics.py", "tests/test_evaluate.py"),
    ),
    Mutation(
        "lc-10-to-11-percent",
        "fitsub/metrics/length.py",
        "return 10 * abs(o - s) <= s",
        "return 100 * abs(o - s) <= 11 * s",
        ("tests/test_metrics.py", "tests/test_evaluate.py"),
    ),
    Mutation(
        "dialogue-dashes-not-counted",
        "fitsub/markup/protected.py",
        "parts = [self.prefix, self.suffix, *(t.prefix + t.suffix for t in self.turns)]",
        "parts = [self.prefix, self.suffix]",
        (*BUDGET_TESTS, "tests/test_markup.py", "tests/test_pipeline.py"),
    ),
    Mutation(
        "dialogue-markup-not-budgeted",
        "fitsub/budget/segment.py",
        "markup_chars=prot.markup_chars if timed else 0,",
        "markup_chars=0,",
        (*BUDGET_TESTS, "tests/test_pipeline.py"),
    ),
    Mutation(
        "turn-budgets-ignore-joining-spaces",
        "fitsub/pipeline/work.py",
        "room = max(budget - (len(turns) - 1), len(turns))",
        "room = max(budget, len(turns))",
        (*BUDGET_TESTS, "tests/test_pipeline.py"),
    ),
    Mutation(
        "subword-target-round-to-floor",
        "fitsub/units.py",
        "return max(1, round(chars / chars_per_subword))",
        "return max(1, int(chars / chars_per_subword))",
        ("tests/test_checkpoint.py", "tests/test_length_edges.py", "tests/test_units.py"),
    ),
    Mutation(
        "slides-get-subtitle-limits",
        "fitsub/budget/segment.py",
        "limits=limits if timed else None,",
        "limits=limits,",
        (*BUDGET_TESTS, "tests/test_pipeline.py", "tests/test_markdown.py"),
    ),
    Mutation(
        "min-ratio-ceil-to-floor",
        "fitsub/units.py",
        "return math.ceil(_decimal(ratio) * chars)",
        "return math.floor(_decimal(ratio) * chars)",
        (*BUDGET_TESTS, "tests/test_pipeline.py"),
    ),
    Mutation(
        "cps-floor-to-round",
        "fitsub/units.py",
        "return math.floor(_decimal(cps) * duration_ms / 1000)",
        "return round(_decimal(cps) * duration_ms / 1000)",
        (*BUDGET_TESTS, "tests/test_pipeline.py"),
    ),
    Mutation(
        "reflow-cpl-off-by-one",
        "fitsub/reflow.py",
        "all(char_length(line) <= cpl for line in lines_)",
        "all(char_length(line) <= cpl + 1 for line in lines_)",
        ("tests/test_reflow.py",),
    ),
    Mutation(
        "layout-ignores-markup",
        "fitsub/budget/slot.py",
        "max(0, limits.cpl * limits.lines - markup_chars)",
        "max(0, limits.cpl * limits.lines)",
        (*BUDGET_TESTS, "tests/test_pipeline.py"),
    ),
    Mutation(
        "hard-budget-le-to-lt",
        "fitsub/nmt/search.py",
        "fits = budget is None or 0 < chs[row] <= budget",
        "fits = budget is None or 0 < chs[row] < budget",
        ("tests/test_search_bounds.py",),
    ),
    Mutation(
        "min-plausible-ceil-to-floor",
        "fitsub/budget/segment.py",
        "max(MIN_CHARS, ratio_chars_ceil(MIN_SHARE, source_chars))",
        "max(MIN_CHARS, ratio_chars_floor(MIN_SHARE, source_chars))",
        BUDGET_TESTS,
    ),
)


def _git_clean(root: Path, file: str) -> bool | None:
    """Whether `file` matches git's index (None: not a git checkout)."""
    probe = subprocess.run(
        ["git", "-C", str(root), "diff", "--quiet", "--", file], capture_output=True
    )
    return None if probe.returncode not in (0, 1) else probe.returncode == 0


def probe(root: Path, m: Mutation, python: str) -> tuple[str, float]:
    """'caught', 'missed' or 'skipped: why' for one mutation, and the seconds it took."""
    path = root / m.file
    # test files by name, wherever they sit under tests/ (unit / integration / system)
    tests = [
        str(found.relative_to(root))
        for t in m.tests
        for found in sorted((root / "tests").rglob(Path(t).name))
    ]
    if not path.is_file():
        return f"skipped: no {m.file}", 0.0
    original = path.read_bytes()
    text = original.decode("utf-8")
    if text.count(m.old) != 1:
        return f"skipped: fragment found {text.count(m.old)} times", 0.0
    if not tests:
        return "skipped: no test file", 0.0
    was_clean = _git_clean(root, m.file)
    start = time.perf_counter()
    try:
        path.write_text(text.replace(m.old, m.new), "utf-8")
        env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
        run = subprocess.run(
            [python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
        )
    finally:
        path.write_bytes(original)
    if path.read_bytes() != original or (was_clean and not _git_clean(root, m.file)):
        raise SystemExit(f"{m.file} was not restored: check it by hand")
    seconds = time.perf_counter() - start
    if run.returncode == 1:
        return "caught", seconds
    if run.returncode == 0:
        return "missed", seconds
    return f"error (pytest exit {run.returncode})", seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout to mutate")
    ap.add_argument("--only", nargs="*", default=None, help="mutation names")
    ap.add_argument("--python", default=sys.executable, help="the Python that has pytest")
    args = ap.parse_args()
    root = args.root.resolve()
    check = subprocess.run(
        [args.python, "-c", "import fitsub; print(fitsub.__file__)"],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
    )
    if not check.stdout.strip().startswith(str(root)):
        raise SystemExit(f"fitsub does not import from {root}: {check.stdout or check.stderr}")
    chosen = [m for m in MUTATIONS if args.only is None or m.name in args.only]
    caught = 0
    for m in chosen:
        verdict, seconds = probe(root, m, args.python)
        caught += verdict == "caught"
        print(f"{m.name:36s} {verdict:10s} {seconds:6.1f} s  ({m.file})", flush=True)
    print(f"caught {caught} of {len(chosen)}")


if __name__ == "__main__":
    main()
