"""`recipes/gpu-one-call.sh start` / `wait`: a training run that outlives the device call that
started it, from a prepared set that travelled xz-compressed, picked up by the next call with its
model packed for the device tool, on the CPU with a tiny shape (the GPU machine runs the same
script)."""

from __future__ import annotations

import lzma
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run
from test_train_deadline import toy_data

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository root with the recipe and a compressed stage: build/gpu-it/{prep,src}."""
    root = tmp_path_factory.mktemp("gpu-recipe")
    (root / "recipes").mkdir()
    shutil.copy(REPO / "recipes" / "gpu-one-call.sh", root / "recipes")
    (root / "bench").mkdir()
    shutil.copy(REPO / "bench" / "gpu_watch.py", root / "bench")
    prep = root / "build" / "gpu-it" / "prep"
    args = ["prepare", "--train", str(toy_data(root)), "--tgt", "it", "--vocab-size", "80"]
    assert run([*args, "--dev-size", "16", "--threads", "1", "-o", str(prep)]) == 0
    data = prep / "data.safetensors"
    with open(data, "rb") as i, lzma.open(data.with_suffix(".safetensors.xz"), "wb") as o:
        shutil.copyfileobj(i, o)
    data.unlink()
    src = root / "build" / "gpu-it" / "src"
    shutil.copytree(REPO / "fitsub", src / "fitsub", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def recipe(root: Path, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "recipes/gpu-one-call.sh", *args],
        cwd=root,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_run_started_in_one_call_is_collected_by_the_next(repo: Path, tmp_path: Path) -> None:
    work, out1, out2 = tmp_path / "work", tmp_path / "out1", tmp_path / "out2"
    out1.mkdir()
    out2.mkdir()
    env = {
        "GPU_WORK": str(work),
        "PYTHON": sys.executable,
        "DEVICE": "cpu",
        "D_MODEL": "64",
        "LAYERS": "1+1",
        "MAX_TOKENS": "256",
        "EVAL_TIME": "3s",
        "TOUCH_GIB": "0.01",
        "EXTRA_ARGS": "--threads 1",
        "OMP_NUM_THREADS": "1",
    }
    # call 1 waits 1 s: the run (20 s) goes on without it
    first = recipe(repo, ["start", "it", "0.33", "1"], {**env, "OUT": str(out1)})
    assert first.returncode == 0, first.stderr
    assert "still training: call wait again" in first.stdout
    assert list(out1.iterdir()) == []
    # call 2 collects it
    second = recipe(repo, ["wait", "240"], {**env, "OUT": str(out2)})
    assert second.returncode == 0, second.stderr
    assert "run ended: exit 0" in second.stdout, second.stdout + (work / "start.txt").read_text()
    names = sorted(p.name for p in out2.iterdir())
    assert names == ["meta.tar", "model.safetensors.part-00", "watch.txt"]
    # the copy on the machine was unpacked; the stage that travelled is left as it came
    assert (work / "repo" / "build" / "gpu-it" / "prep" / "data.safetensors").is_file()
    assert not (repo / "build" / "gpu-it" / "prep" / "data.safetensors").exists()
    assert (work / "out" / "watch.txt").read_text().startswith('{"t": 0, "touch_s"')
    # joined here, the hash checks and the model translates
    joined = recipe(repo, ["join", str(out2)], env)
    assert joined.returncode == 0, joined.stderr
    assert "model.safetensors: OK" in joined.stdout
    line = tmp_path / "in.txt"
    line.write_text("the cat sees a dog\n", "utf-8")
    assert run(["translate", str(line), "--model", str(out2), "--lang", "it", "--threads", "1",
                "-o", str(tmp_path / "out.txt")]) == 0  # fmt: skip
    assert (tmp_path / "out.txt").read_text("utf-8").strip()
