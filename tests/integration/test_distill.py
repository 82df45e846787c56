"""`fitsub distill` (SKD with a perturbed length signal) and distill -> train --arch cmlm ->
translate / eval through the CLI on a toy corpus."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest
import torch
from cli_helpers import translate_toy_srt

from fitsub.backend import Candidate, Request
from fitsub.cli import main
from fitsub.errors import InputError
from fitsub.nat.checkpoint import checkpoint_arch, load_cmlm
from fitsub.train.distill import DistillConfig, distill, output_paths, perturbations
from fitsub.units import char_length

torch.set_num_threads(1)

WORDS = "cat dog house red blue big small runs eats sees the a man woman child tree".split()


def write_toy(d: Path, n: int = 300, seed: int = 0) -> Path:
    """English words -> each word reversed plus `o` (as tests/integration/test_train.py)."""
    rng = random.Random(seed)
    src, tgt = [], []
    for _ in range(n):
        ws = [rng.choice(WORDS) for _ in range(rng.randint(2, 6))]
        src.append(" ".join(ws))
        tgt.append(" ".join(w[::-1] + "o" for w in ws))
    d.mkdir(parents=True, exist_ok=True)
    (d / "toy.en").write_text("\n".join(src) + "\n", "utf-8")
    (d / "toy.it").write_text("\n".join(tgt) + "\n", "utf-8")
    return d


class LengthEcho:
    """Teacher double: answers `x` repeated to the requested length (`-` without one)."""

    lexicon = links = None  # no word resources (TranslationBackend.lexicon, .links)

    name = "echo"

    def __init__(self) -> None:
        self.calls: list[list[Request]] = []

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        self.calls.append(list(requests))
        return [[Candidate("x" * (r.target_chars or 0) or "-", -1.0)] for r in requests]


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_toy(tmp_path_factory.mktemp("toy"))


def config(toy: Path, out: Path, **kw: object) -> DistillConfig:
    base: dict[str, object] = dict(
        source=str(toy / "toy.en"), reference=str(toy / "toy.it"), out=str(out), model="m"
    )
    base.update(kw)
    return DistillConfig(**base)  # type: ignore[arg-type]


def test_reference_length_is_perturbed_within_the_window(toy: Path, tmp_path: Path) -> None:
    refs = (toy / "toy.it").read_text().splitlines()
    exact = distill(config(toy, tmp_path / "k0", noise=0), LengthEcho())
    src_out, tgt_out, _ = output_paths(config(toy, tmp_path / "k0"))
    got = tgt_out.read_text().splitlines()
    assert [len(g) for g in got] == [char_length(r) for r in refs]  # k = 0: the reference length
    assert src_out.read_text() == (toy / "toy.en").read_text()
    assert exact["lengths"]["minus_ref_sd"] == 0.0 and exact["done"] == exact["total"] == 300

    noisy = distill(config(toy, tmp_path / "k4", noise=4), LengthEcho())
    got = output_paths(config(toy, tmp_path / "k4"))[1].read_text().splitlines()
    diffs = [len(g) - char_length(r) for g, r in zip(got, refs, strict=True)]
    assert set(diffs) == set(range(-4, 5))  # perLDPE window [-4, 4] (Oka et al. 2021)
    assert noisy["lengths"]["minus_ref_sd"] > 1.0
    assert noisy["lengths"]["ref_ratio_mean"] == exact["lengths"]["ref_ratio_mean"]
    positive = perturbations(1000, 2, "positive", 1)
    assert set(positive.tolist()) == {0, 1, 2}

    plain = LengthEcho()  # plain SKD: no length signal at all
    distill(config(toy, tmp_path / "none", length="none"), plain)
    assert all(r.target_chars is None for call in plain.calls for r in call)


def test_resume_continues_and_writes_what_an_uninterrupted_run_writes(
    toy: Path, tmp_path: Path
) -> None:
    whole = config(toy, tmp_path / "whole", length="source", group=64)
    distill(whole, LengthEcho())
    part = config(toy, tmp_path / "part", length="source", group=64, reference=None)
    part.reference = str(toy / "toy.it")
    distill(part, LengthEcho())
    src, tgt, meta_path = output_paths(part)
    meta = json.loads(meta_path.read_text())
    meta["done"], meta["stats"]["n"] = 128, 128.0  # "killed" after two groups ...
    meta_path.write_text(json.dumps(meta))
    with open(tgt, "a") as fh:
        fh.write("half a line")  # ... while appending the third
    echo = LengthEcho()
    out = distill(part, echo)
    assert sum(len(c) for c in echo.calls) == 300 - 128  # only the rest is translated
    assert out["done"] == 300
    for a, b in zip(output_paths(whole), output_paths(part), strict=True):
        if a.suffix != ".json":
            assert a.read_bytes() == b.read_bytes()
    with pytest.raises(InputError, match="other settings"):
        distill(config(toy, tmp_path / "part", length="source", noise=1), LengthEcho())
    with pytest.raises(InputError, match="needs --reference"):
        distill(config(toy, tmp_path / "x", reference=None), LengthEcho())


def run(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


TINY = ["--size", "tiny", "--vocab-size", "60", "--max-tokens", "512", "--warmup", "5"]
TINY += ["--lr", "3e-3", "--threads", "1", "--dev-size", "20", "--bleu-sentences", "8", "-q"]


def test_distill_train_translate_eval_end_to_end(
    toy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    teacher = tmp_path / "teacher"
    args = ["train", "--out", str(teacher), "--data", str(toy), "--method", "ldpe", *TINY]
    assert run([*args, "--max-steps", "120", "--eval-every", "120"]) == 0  # ~8 s
    dist = tmp_path / "dist"
    distill_args = ["distill", str(toy / "toy.en"), "--reference", str(toy / "toy.it")]
    distill_args += ["--model", str(teacher / "best"), "-o", str(dist), "--noise", "2"]
    distill_args += ["--beam", "2", "--batch-size", "16", "--threads", "1", "--limit", "120"]
    assert run(distill_args) == 0
    assert "distilled 120/120 sentences" in capsys.readouterr().out
    assert len((tmp_path / "dist.it").read_text().splitlines()) == 120
    assert run([*distill_args, "-q"]) == 0  # a finished run: nothing left to do

    student = tmp_path / "student"
    args = ["train", "--out", str(student), "--train", str(dist), "--arch", "cmlm"]
    args += ["--method", "ldpe", "--noise", "2", "--noise-mode", "positive", *TINY]
    assert run([*args, "--init-from", str(teacher / "best"), "--max-steps", "20"]) == 0
    assert checkpoint_arch(student / "best") == checkpoint_arch(student / "last") == "cmlm"
    _, _, cfg, meta = load_cmlm(student / "last")
    assert cfg.length_unit == "subword" and cfg.noise_mode == "positive"
    assert meta["train"]["config"]["arch"] == "cmlm" and cfg.extra["length_ratio"] > 0
    evals = [json.loads(x) for x in (student / "train_log.jsonl").read_text().splitlines()]
    assert [e["step"] for e in evals if e["event"] == "eval"] == [20]
    assert run(["train", "--out", str(student), "--resume", "--max-steps", "24", "-q"]) == 0

    code, data = translate_toy_srt(tmp_path, student / "best")
    assert code == 0 and data is not None
    assert data["meta"]["model"].startswith("nat:") and (tmp_path / "toy.it.srt").is_file()
    rows = [r for r in data["segments"] if r["translated"]]
    assert rows and all(r["fits"] or not r["model_fits"] for r in rows)

    ev = tmp_path / "ev.json"
    code = run(
        ["eval", "--model", str(student / "best"), "--src", str(toy / "toy.en"), "--ref"]
        + [str(toy / "toy.it"), "--max-segments", "12", "--json", str(ev), "-q"]
    )
    assert code == 0, capsys.readouterr().err
    rows = json.loads(ev.read_text())["rows"]
    assert [r["mode"] for r in rows] == ["unconstrained", "length"]
    assert all(r["metrics"]["n"] == 12 and r["metrics"]["bleu"] is not None for r in rows)


def test_cmlm_training_resumes_exactly(toy: Path, tmp_path: Path) -> None:
    from safetensors.torch import load_file

    from fitsub.train.config import TrainConfig
    from fitsub.train.loop import train

    def cfg(out: Path, steps: int, resume: bool = False) -> TrainConfig:
        return TrainConfig.from_options(
            out_dir=str(out), data_dir=str(toy), dev_size=20, arch="cmlm", method="ldpe+pe",
            noise=2, noise_mode="positive", d_model=32, n_heads=2, enc_layers=1, dec_layers=1,
            d_ff=64, vocab_size=60, max_tokens=512, max_steps=steps, warmup=5, lr=3e-3,
            eval_every=4, bleu_sentences=4, threads=1, resume=resume,
        )  # fmt: skip

    train(cfg(tmp_path / "straight", 8))
    train(cfg(tmp_path / "killed", 4))
    train(cfg(tmp_path / "killed", 8, resume=True))
    a = load_file(str(tmp_path / "straight" / "last" / "model.safetensors"))
    b = load_file(str(tmp_path / "killed" / "last" / "model.safetensors"))
    assert "mask_embed" in a and a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    log = [
        json.loads(x) for x in (tmp_path / "straight" / "train_log.jsonl").read_text().splitlines()
    ]
    assert all("dev_bleu" in e for e in log if e["event"] == "eval")
