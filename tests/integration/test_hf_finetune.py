"""`fitsub train --init-from <HF model> --method tok|ldpe+pe`: fine-tuning with length info."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

pytest.importorskip("transformers")

import torch  # noqa: E402
from factories import make_m2m, make_marian  # noqa: E402
from hf_helpers import DICT, EN  # noqa: E402

from fitsub.backend import Request  # noqa: E402
from fitsub.cli import main  # noqa: E402
from fitsub.errors import InputError  # noqa: E402
from fitsub.hf.backend import HFBackend  # noqa: E402
from fitsub.train.corpus import Corpus  # noqa: E402
from fitsub.train.hf_finetune import FinetuneConfig, finetune  # noqa: E402
from fitsub.units import char_length  # noqa: E402


def run(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def length_task(n: int, seed: int = 3) -> list[tuple[str, str]]:
    """A toy task whose references come in three lengths: the first half of the words
    translated, all of them, or all of them and the last one again twice."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = rng.choices(EN, k=rng.randint(3, 7))
        it = [DICT[w] for w in words]
        kind = rng.randrange(3)
        if kind == 0:
            it = it[: (len(it) + 1) // 2]
        elif kind == 2:
            it = it + it[-1:] * 2
        out.append((" ".join(words), " ".join(it)))
    return out


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.set_num_threads(1)
    return make_marian(tmp_path_factory.mktemp("ft") / "base", steps=200)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> str:
    prefix = tmp_path_factory.mktemp("ftdata") / "train"
    pairs = length_task(480)
    Path(f"{prefix}.en").write_text("\n".join(s for s, _ in pairs) + "\n", encoding="utf-8")
    Path(f"{prefix}.it").write_text("\n".join(t for _, t in pairs) + "\n", encoding="utf-8")
    return str(prefix)


TEST = [s for s, _ in length_task(12, seed=99)]


def _lengths(model: Path, ratio: float) -> float:
    backend = HFBackend(str(model), lang="it", device="cpu", beam=2)
    reqs = [Request(s, target_chars=round(ratio * char_length(s))) for s in TEST]
    outs = backend.translate(reqs)
    return sum(char_length(o[0].text) for o in outs) / len(outs)


@pytest.mark.slow
def test_length_tokens_make_short_outputs_shorter(base: Path, data: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = [
        "train", "--init-from", str(base), "--method", "tok", "--train", data, "--src", "en",
        "--tgt", "it", "--out", str(out), "--max-steps", "250", "--lr", "3e-3",
        "--warmup", "10", "--max-tokens", "800", "--device", "cpu", "--threads", "1", "-q",
    ]  # fmt: skip
    assert run(args) == 0
    best = out / "best"
    meta = json.loads((best / "fitsub.json").read_text("utf-8"))
    assert meta["method"] == "tok" and meta["base_model"] == str(base)
    lo, hi = meta["length_thresholds"]
    assert 0 < lo < hi
    assert (best / "model.safetensors").is_file()
    assert not list(best.glob("*.bin")) and not list(best.glob("*.pt"))
    short, long = _lengths(best, 0.3), _lengths(best, 2.0)
    assert short < long, (short, long)
    # the fine-tuned model also runs under the hard budget
    backend = HFBackend(str(best), lang="it", device="cpu", beam=2)
    for s, cands in zip(TEST, backend.translate([Request(s, 10, 10) for s in TEST]), strict=True):
        assert all(char_length(c.text) <= 10 for c in cands if c.fits), s


@pytest.mark.slow
def test_ldpe_fine_tuning_saves_a_loadable_model(base: Path, data: str, tmp_path: Path) -> None:
    pairs = Corpus(*map(list, zip(*length_task(300), strict=True)))
    cfg = FinetuneConfig(
        base=str(base), out_dir=str(tmp_path / "run"), method="ldpe+pe", lr=3e-3, warmup=10,
        max_tokens=800, max_steps=150, device="cpu", threads=1,
    )  # fmt: skip
    best = finetune(cfg, pairs)
    meta = json.loads((best / "fitsub.json").read_text("utf-8"))
    assert meta["method"] == "ldpe+pe" and meta["chars_per_piece"] > 0
    backend = HFBackend(str(best), lang="it", device="cpu", beam=2)
    assert backend.positions is not None and backend.name.endswith(":ldpe+pe")
    short, long = _lengths(best, 0.3), _lengths(best, 2.0)
    assert short < long, (short, long)


def test_pe_methods_need_sinusoidal_positions(tmp_path: Path) -> None:
    m2m = make_m2m(tmp_path / "m2m", steps=0)
    cfg = FinetuneConfig(base=str(m2m), out_dir=str(tmp_path / "run"), method="lrpe+pe")
    with pytest.raises(InputError, match="needs --method tok"):
        finetune(cfg, Corpus(["the dog"], ["il cane"]))
    with pytest.raises(InputError, match="cannot fine-tune"):
        finetune(FinetuneConfig(base=str(m2m), out_dir=str(tmp_path), method="abs"), Corpus())


def test_fine_tuning_pairs_are_deduplicated_like_fitsub_training(tmp_path: Path) -> None:
    from fitsub.train.hf_finetune import read_pairs

    (tmp_path / "a.en").write_text("Hi there.\nHi there.\nHi there.\nGo.\n", encoding="utf-8")
    (tmp_path / "a.it").write_text("Ciao a te.\nCiao a te.\nSalve a lei.\nVai.\n", encoding="utf-8")
    # the repeat and the same-length retranslation go, from --data and from --train alike
    for data, prefixes in ((tmp_path, []), (None, [str(tmp_path / "a")])):
        pairs = read_pairs(data, [], prefixes, "en", "it", seed=0)
        assert pairs.tgt == ["Ciao a te.", "Vai."]
