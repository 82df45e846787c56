"""Checkpoint averaging (`fitsub average`) and the run's kept checkpoints (`--keep-checkpoints`)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file
from test_train import TINY, run_cli, write_toy

from fitsub.cli import main
from fitsub.errors import InputError
from fitsub.nmt.checkpoint import load_checkpoint
from fitsub.train.average import average_checkpoints

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny run that keeps its last 3 of 4 evaluated checkpoints."""
    base = tmp_path_factory.mktemp("avg")
    out = base / "run"
    args = ["--out", str(out), "--data", str(write_toy(base / "toy")), *TINY]
    assert (
        run_cli([*args, "--max-steps", "24", "--eval-every", "6", "--keep-checkpoints", "3"]) == 0
    )
    return out


def test_a_run_keeps_its_last_n_evaluated_checkpoints(run: Path) -> None:
    kept = sorted(p.name for p in (run / "steps").iterdir())
    assert kept == ["step-000012", "step-000018", "step-000024"]
    last = load_file(str(run / "last" / "model.safetensors"))
    newest = load_file(str(run / "steps" / "step-000024" / "model.safetensors"))
    assert all(torch.equal(last[k], newest[k]) for k in last)


def test_the_average_is_the_mean_of_the_weights(run: Path, tmp_path: Path) -> None:
    steps = sorted((run / "steps").iterdir())
    avg = average_checkpoints(steps, tmp_path / "avg", dtype="float32")
    got = load_file(str(avg / "model.safetensors"))
    ws = [load_file(str(s / "model.safetensors")) for s in steps]
    name = next(k for k, v in got.items() if v.is_floating_point() and v.dim() == 2)
    expected = (ws[0][name] + ws[1][name] + ws[2][name]) / 3
    assert torch.allclose(got[name], expected, atol=1e-6)
    assert not torch.allclose(got[name], ws[2][name])  # the runs' weights moved: a real mean
    model, tok, cfg, meta = load_checkpoint(avg)  # a loadable model with its tokenizer
    assert tok.vocab_size == cfg.vocab_size and len(meta["train"]["averaged_from"]) == 3


def test_checkpoints_that_differ_are_refused(run: Path, tmp_path: Path) -> None:
    steps = sorted((run / "steps").iterdir())
    with pytest.raises(InputError, match="at least two"):
        average_checkpoints(steps[:1], tmp_path / "one")
    odd = tmp_path / "odd"
    odd.mkdir()
    for f in steps[0].iterdir():
        (odd / f.name).write_bytes(f.read_bytes())
    w = load_file(str(odd / "model.safetensors"))
    w.pop(next(iter(w)))
    save_file(w, str(odd / "model.safetensors"))
    with pytest.raises(InputError, match="tensor names differ"):
        average_checkpoints([steps[0], odd], tmp_path / "bad")
    assert not (tmp_path / "bad").exists()


def test_cli_writes_the_average_and_will_not_clobber(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = [str(p) for p in sorted((run / "steps").iterdir())]
    out = tmp_path / "avg"

    def cli(*args: str) -> int:
        try:
            main(["average", *args])
        except SystemExit as e:
            return int(e.code or 0)
        return 0

    assert cli(*steps, "--out", str(out)) == 0
    assert "average of 3 checkpoints" in capsys.readouterr().out
    assert cli(*steps, "--out", str(out)) == 2  # not empty without --force
    err = capsys.readouterr().err
    assert "not empty" in err and len(err.strip().splitlines()) == 1
    assert cli(*steps, "--out", str(out), "--force") == 0
