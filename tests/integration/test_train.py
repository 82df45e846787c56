"""`fitsub train` end to end on toy parallel text: checkpoints, loss, resume, fine-tuning, stopping."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from fitsub.cli import main
from fitsub.nmt.checkpoint import load_checkpoint
from fitsub.nmt.loss import projected_nll, smoothed_nll
from fitsub.train.config import TrainConfig
from fitsub.train.loop import train
from fitsub.train.optim import inverse_sqrt_lr

torch.set_num_threads(1)

WORDS = (
    "cat dog house red blue big small runs eats sees the a man woman child tree car book".split()
)


def write_toy(d: Path, n: int = 400, seed: int = 0) -> Path:
    """A made-up language pair: each English word maps to its reverse plus `o`."""
    rng = random.Random(seed)
    src, tgt = [], []
    for _ in range(n):
        ws = [rng.choice(WORDS) for _ in range(rng.randint(2, 8))]
        src.append(" ".join(ws))
        tgt.append(" ".join(w[::-1] + "o" for w in ws))
    d.mkdir(parents=True, exist_ok=True)
    (d / "toy.en").write_text("\n".join(src) + "\n", "utf-8")
    (d / "toy.it").write_text("\n".join(tgt) + "\n", "utf-8")
    return d


TINY = ["--size", "tiny", "--vocab-size", "60", "--max-tokens", "512", "--warmup", "5"]
TINY += ["--lr", "3e-3", "--threads", "1", "--dev-size", "40", "--bleu-sentences", "16", "-q"]


def run_cli(args: list[str]) -> int:
    try:
        main(["train", *args])
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return 0


def log_of(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "train_log.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_toy(tmp_path_factory.mktemp("toy"))


def test_cli_trains_saves_and_resumes(toy: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["--out", str(out), "--data", str(toy), "--method", "tok+ldpe", *TINY]
    assert run_cli([*args, "--max-steps", "40", "--eval-every", "20", "--log-every", "5"]) == 0
    for name in ("config.json", "model.safetensors", "spm.model", "train_log.jsonl"):
        assert (out / "best" / name).is_file() and (out / "last" / name).is_file()
    meta = json.loads((out / "last" / "config.json").read_text())
    assert meta["model"]["method"] == "tok+ldpe"
    t_short, t_long = meta["model"]["length_thresholds"]
    assert 0.5 < t_short <= t_long < 2.0
    assert meta["model"]["extra"]["chars_per_piece"] > 1.0
    assert meta["train"]["state"]["step"] == 40
    steps = [r for r in log_of(out) if r["event"] == "step"]
    assert [r["step"] for r in steps] == list(range(5, 41, 5))
    assert steps[-1]["loss"] < steps[0]["loss"] - 0.5  # it learns
    evals = [r for r in log_of(out) if r["event"] == "eval"]
    assert [e["step"] for e in evals] == [20, 40] and evals[1]["dev_loss"] < evals[0]["dev_loss"]
    model, tok, cfg, _ = load_checkpoint(out / "best")  # a loadable checkpoint
    assert cfg.method == "tok+ldpe" and tok.vocab_size == cfg.vocab_size
    # the held-out dev pairs are written out for `fitsub eval`, still aligned pairs of the data
    dev_en = (out / "dev.en").read_text("utf-8").splitlines()
    dev_it = (out / "dev.it").read_text("utf-8").splitlines()
    en, it = ((toy / f"toy.{lang}").read_text().splitlines() for lang in ("en", "it"))
    assert len(dev_en) == len(dev_it) == 40
    assert set(zip(dev_en, dev_it, strict=True)) <= set(zip(en, it, strict=True))

    # --resume with only the new limit: continues from step 40 with the saved options
    assert run_cli(["--out", str(out), "--resume", "--max-steps", "50", "-q"]) == 0
    log = log_of(out)
    assert {"event": "resume", "step": 40} in log
    assert [r["step"] for r in log if r["event"] == "step"][-2:] == [45, 50]
    assert json.loads((out / "last" / "config.json").read_text())["train"]["state"]["step"] == 50


def test_resumed_run_makes_the_same_updates(toy: Path, tmp_path: Path) -> None:
    def cfg(out: Path, steps: int, resume: bool = False) -> TrainConfig:
        return TrainConfig.from_options(
            out_dir=str(out), data_dir=str(toy), dev_size=40, method="ldpe", noise=2,
            length_dropout=0.2, d_model=32, n_heads=2, enc_layers=1, dec_layers=1, d_ff=64,
            vocab_size=60, max_tokens=512, max_steps=steps, warmup=5, lr=3e-3, eval_every=6,
            bleu_sentences=0, threads=1, resume=resume,
        )  # fmt: skip

    train(cfg(tmp_path / "straight", 12))
    train(cfg(tmp_path / "killed", 6))
    # a kill between the two renames of a save leaves only the previous `last` aside
    (tmp_path / "killed" / "last").rename(tmp_path / "killed" / ".last.old-x1")
    (tmp_path / "killed" / ".last.tmp-x2").mkdir()  # and the new one half-written
    (tmp_path / "killed" / ".last.tmp-x2" / "model.safetensors").write_bytes(b"\0" * 10)
    with open(tmp_path / "killed" / "train_log.jsonl", "a") as fh:
        fh.write('{"event": "step", "step": 7, "lo')  # a line cut short by the kill
    train(cfg(tmp_path / "killed", 12, resume=True))
    a = load_file(str(tmp_path / "straight" / "last" / "model.safetensors"))
    b = load_file(str(tmp_path / "killed" / "last" / "model.safetensors"))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    steps = [r["step"] for r in log_of(tmp_path / "killed") if r["event"] in ("eval", "resume")]
    assert steps == [6, 6, 12]
    assert sorted(p.name for p in (tmp_path / "killed").iterdir()) == [
        "best", "dev.en", "dev.it", "last", "spm.model", "train_log.jsonl"
    ]  # fmt: skip


def test_finetune_adds_a_length_method_and_keeps_the_tokenizer(toy: Path, tmp_path: Path) -> None:
    base = tmp_path / "base"
    assert run_cli(["--out", str(base), "--data", str(toy), *TINY, "--max-steps", "6"]) == 0
    ft = tmp_path / "ft"
    args = ["--out", str(ft), "--data", str(toy), *TINY, "--max-steps", "4"]
    args += ["--init-from", str(base / "last"), "--method", "tok+lrpe", "--noise", "2"]
    assert run_cli([*args, "--token-dropout", "0.25"]) == 0
    meta = json.loads((ft / "last" / "config.json").read_text())
    assert meta["model"]["method"] == "tok+lrpe" and meta["model"]["noise"] == 2
    assert meta["model"]["token_dropout"] == 0.25
    assert (ft / "last" / "spm.model").read_bytes() == (base / "last" / "spm.model").read_bytes()
    start = load_file(str(base / "last" / "model.safetensors"))
    tuned = load_file(str(ft / "last" / "model.safetensors"))
    assert start.keys() == tuned.keys()
    # 4 small updates move the weights only a little away from the starting point
    delta = sum(float((start[k] - tuned[k]).abs().mean()) for k in start) / len(start)
    assert 0 < delta < 0.02
    # with no length flags, a fine-tune keeps its model's length control (not `baseline`)
    ft2 = tmp_path / "ft2"
    args = ["--out", str(ft2), "--data", str(toy), *TINY, "--max-steps", "2"]
    assert run_cli([*args, "--init-from", str(ft / "last"), "--length-dropout", "0.5"]) == 0
    model = json.loads((ft2 / "last" / "config.json").read_text())["model"]
    assert (model["method"], model["noise"], model["length_dropout"]) == ("tok+lrpe", 2, 0.5)
    assert model["token_dropout"] == 0.25  # the token's share too
    # a method without the token drops the token's share it would have taken
    ft3 = tmp_path / "ft3"
    args = ["--out", str(ft3), "--data", str(toy), *TINY, "--max-steps", "2"]
    assert run_cli([*args, "--init-from", str(ft / "last"), "--method", "lrpe"]) == 0
    model = json.loads((ft3 / "last" / "config.json").read_text())["model"]
    assert (model["method"], model["token_dropout"]) == ("lrpe", 0.0)


def test_early_stopping_and_max_time(toy: Path, tmp_path: Path) -> None:
    out = tmp_path / "flat"
    args = ["--out", str(out), "--data", str(toy), *TINY, "--lr", "0", "--bleu-sentences", "0"]
    assert run_cli([*args, "--max-steps", "30", "--eval-every", "3", "--patience", "2"]) == 0
    done = [r for r in log_of(out) if r["event"] == "done"][0]
    assert done == {"event": "done", "step": 9, "reason": "early_stopping"}  # lr 0: no change
    # --max-time bounds the whole command: one too short to train at all is refused, and
    # nothing is written (tests/system/test_train_deadline.py runs a deadline to its end)
    out2 = tmp_path / "timed"
    assert run_cli(["--out", str(out2), "--data", str(toy), *TINY, "--max-time", "0.001s"]) == 2
    assert not out2.exists() or not any(out2.iterdir())


def test_bad_input_is_one_line_exit_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = tmp_path / "bad"
    d.mkdir()
    (d / "x.en").write_text("one\ntwo\n")
    (d / "x.it").write_text("uno\n")
    out = tmp_path / "out"
    assert run_cli(["--out", str(out), "--data", str(d), *TINY]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "x.it" in err and "not line-aligned" in err
    assert not out.exists()
    assert run_cli(["--out", str(out), "--data", str(d), "--method", "nope"]) == 2
    assert run_cli(["--out", str(out), "--resume"]) == 2
    assert "cannot resume" in capsys.readouterr().err
    assert run_cli(["--out", str(out), "--data", str(d), "--max-time", "soon"]) == 2


def test_existing_run_is_not_overwritten(toy: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run_cli(["--out", str(out), "--data", str(toy), *TINY, "--max-steps", "2"]) == 0
    before = (out / "last" / "model.safetensors").read_bytes()
    assert run_cli(["--out", str(out), "--data", str(toy), *TINY, "--max-steps", "2"]) == 2
    assert (out / "last" / "model.safetensors").read_bytes() == before


def test_learning_rate_warms_up_then_decays() -> None:
    lrs = [inverse_sqrt_lr(s, 1e-3, 100) for s in (1, 50, 100, 400)]
    assert lrs == pytest.approx([1e-5, 5e-4, 1e-3, 5e-4])


def _loss_case(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    hidden = torch.randn(5, 7, 16, generator=g)
    weight = torch.randn(50, 16, generator=g) * 0.5
    target = torch.randint(1, 50, (5, 7), generator=g)
    target[0, 4:] = 0  # padding
    target[3, 2:] = 0
    return hidden, weight, target


@pytest.mark.parametrize("eps", [0.0, 0.1])
@pytest.mark.parametrize("chunk", [4, 512])
def test_projected_loss_and_gradients_equal_the_logit_loss(eps: float, chunk: int) -> None:
    h0, w0, target = _loss_case()
    h1, w1 = h0.clone().requires_grad_(), w0.clone().requires_grad_()
    ref = smoothed_nll(h1 @ w1.t(), target, 0, eps)
    ref.backward()
    h2, w2 = h0.clone().requires_grad_(), w0.clone().requires_grad_()
    out = projected_nll(h2, w2, target, 0, eps, chunk=chunk)
    (2.0 * out).backward()  # the incoming gradient scales both
    assert out.item() == pytest.approx(ref.item(), rel=1e-5)
    assert h1.grad is not None and h2.grad is not None and w1.grad is not None
    assert w2.grad is not None
    assert torch.allclose(h2.grad, 2.0 * h1.grad, atol=1e-5)
    assert torch.allclose(w2.grad, 2.0 * w1.grad, atol=1e-5)
    assert h2.grad[0, 4:].abs().max() == 0  # pad rows get no gradient
    with torch.no_grad():
        assert projected_nll(h2, w2, target, 0, eps, chunk=chunk).item() == pytest.approx(
            ref.item(), rel=1e-5
        )


def test_projected_loss_in_bf16_is_close_to_fp32() -> None:
    h, w, target = _loss_case(1)
    ref = smoothed_nll(h @ w.t(), target, 0, 0.1)
    out = projected_nll(h, w, target, 0, 0.1, dtype=torch.bfloat16, chunk=8)
    assert out.item() == pytest.approx(ref.item(), rel=2e-2)
    assert out.item() != ref.item()  # the products really ran in bf16
