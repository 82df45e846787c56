"""The backend registry (`fitsub.cli.registry`): which kind of model `--model` names and which loader
opens it; the model family as a typed field of `ModelConfig`, read from older configs' `extra`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fitsub.backend import Candidate, Request
from fitsub.cli import registry
from fitsub.cli.registry import LOADERS, LoadOptions, ModelKind, model_kind, open_model
from fitsub.errors import ModelMissingError
from fitsub.identity import IdentityBackend
from fitsub.nmt.config import ModelConfig, config_arch

SHIPPED = Path(__file__).resolve().parents[2] / "models"


def checkpoint(folder: Path, model: dict[str, object]) -> Path:
    """A directory holding a fitsub checkpoint's three files (only the config is read here)."""
    folder.mkdir(parents=True)
    meta = {"format": "fitsub-checkpoint-1", "model": {"vocab_size": 8, **model}}
    (folder / "config.json").write_text(json.dumps(meta), encoding="utf-8")
    (folder / "model.safetensors").write_bytes(b"")
    (folder / "spm.model").write_bytes(b"")
    return folder


def test_each_kind_of_model_is_told_apart(tmp_path: Path) -> None:
    assert model_kind(Path("identity")) is ModelKind.IDENTITY
    assert model_kind(Path("Helsinki-NLP/opus-mt-en-it")) is ModelKind.HUGGING_FACE
    hf = tmp_path / "marian"
    hf.mkdir()
    (hf / "config.json").write_text(json.dumps({"model_type": "marian"}), encoding="utf-8")
    assert model_kind(hf) is ModelKind.HUGGING_FACE
    assert model_kind(checkpoint(tmp_path / "ar", {})) is ModelKind.AUTOREGRESSIVE
    assert model_kind(checkpoint(tmp_path / "cmlm", {"arch": "cmlm"})) is ModelKind.CMLM
    assert model_kind(checkpoint(tmp_path / "levt", {"arch": "levt"})) is ModelKind.LEVT
    # a checkpoint written before the arch field: the family sits in `extra`
    old = checkpoint(tmp_path / "old", {"extra": {"arch": "levt", "chars_per_piece": 3.1}})
    assert model_kind(old) is ModelKind.LEVT
    # unreadable: the autoregressive loader says what is wrong
    broken = checkpoint(tmp_path / "broken", {"arch": "rnn"})
    assert model_kind(broken) is ModelKind.AUTOREGRESSIVE
    assert [k for k in ModelKind if k.is_checkpoint] == [
        ModelKind.AUTOREGRESSIVE,
        ModelKind.CMLM,
        ModelKind.LEVT,
    ]
    assert set(LOADERS) == set(ModelKind)  # every kind has its loader


class Recorder:
    """A loader double: records what it was asked to open."""

    lexicon = links = None  # no word resources (TranslationBackend.lexicon, .links)

    opened: list[tuple[Path, LoadOptions]] = []

    def __init__(self, model: Path, how: LoadOptions) -> None:
        Recorder.opened.append((model, how))

    name = "recorder"

    def translate(self, requests: list[Request], n_best: int = 1) -> list[list[Candidate]]:
        return [[Candidate(r.text, 0.0)] for r in requests]


def test_open_model_hands_the_located_model_to_its_kinds_loader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for kind in (ModelKind.AUTOREGRESSIVE, ModelKind.CMLM, ModelKind.HUGGING_FACE):
        monkeypatch.setitem(LOADERS, kind, Recorder)
    Recorder.opened = []
    ar = checkpoint(tmp_path / "ar", {})
    cmlm = checkpoint(tmp_path / "cmlm", {"extra": {"arch": "cmlm"}})
    open_model(ar, src_lang="en", lang="de", device="cpu", beam=3, threads=1)
    open_model(cmlm, src_lang="en", lang="it", batch_size=8)
    open_model(Path("owner/some-model"), src_lang="en", lang="fr")
    assert [(m, h.lang, h.beam, h.batch_size) for m, h in Recorder.opened] == [
        (ar, "de", 3, None),  # None: the kind's own batch size
        (cmlm, "it", 5, 8),
        (Path("owner/some-model"), "fr", 5, None),
    ]
    assert Recorder.opened[0][1] == LoadOptions(
        src_lang="en", lang="de", device="cpu", beam=3, batch_size=None, threads=1
    )
    assert isinstance(open_model(Path("identity"), src_lang="en", lang="it"), IdentityBackend)


def test_no_model_is_the_pairs_shipped_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FITSUB_MODEL_DIR", raising=False)
    assert registry.locate(None, src_lang="en", lang="it") == SHIPPED / "en-it"
    with pytest.raises(ModelMissingError, match="no xx-yy translation model"):
        registry.locate(None, src_lang="xx", lang="yy")
    with pytest.raises(ModelMissingError, match="not a fitsub model directory"):
        registry.locate(tmp_path, src_lang="en", lang="it")


def test_the_model_family_is_a_field_read_from_older_configs_extra() -> None:
    old = {"vocab_size": 8, "extra": {"arch": "cmlm", "length_ratio": 1.2}}
    cfg = ModelConfig.from_dict(old)
    assert cfg.arch == "cmlm" and cfg.extra == {"length_ratio": 1.2}
    written = cfg.to_dict()
    assert written["arch"] == "cmlm" and "arch" not in written["extra"]
    assert ModelConfig.from_dict(written) == cfg
    assert ModelConfig(vocab_size=8).to_dict()["arch"] == "ar"
    assert config_arch(old) == config_arch(written) == "cmlm" and config_arch({}) == "ar"
    with pytest.raises(ValueError, match="unknown arch 'rnn'"):
        ModelConfig.from_dict({"vocab_size": 8, "arch": "rnn"})
    with pytest.raises(ValueError, match="disagree"):
        ModelConfig.from_dict({"vocab_size": 8, "arch": "levt", "extra": {"arch": "cmlm"}})


@pytest.mark.parametrize("pair", ["en-it", "en-de", "en-fr", "en-es", "en-es-single", "en-multi"])
def test_the_shipped_models_read_unchanged(pair: str) -> None:
    meta = json.loads((SHIPPED / pair / "config.json").read_text(encoding="utf-8"))
    cfg = ModelConfig.from_dict(meta["model"])
    assert cfg.arch == "ar" and model_kind(SHIPPED / pair) is ModelKind.AUTOREGRESSIVE
    written = cfg.to_dict()  # every field they hold reads back as written
    assert {k: written[k] for k in meta["model"]} == meta["model"] and written["arch"] == "ar"


def test_a_multilingual_model_takes_the_language_files_of_the_pair(tmp_path: Path) -> None:
    from fitsub.nmt.checkpoint import language_files

    shipped, own = tmp_path / "models", tmp_path / "mine"
    (shipped / "en-de").mkdir(parents=True)
    own.mkdir()
    assert language_files(own, shipped, "en", "de") == own  # the pair has no lexicon either
    (shipped / "en-de" / "lexicon.txt.gz").write_bytes(b"")
    assert language_files(own, shipped, "en", "de") == shipped / "en-de"
    assert language_files(own, shipped, "en", None) == own  # one language: its own folder
    assert language_files(own, shipped, "en", "fr") == own
    (own / "lexicon.txt.gz").write_bytes(b"")
    assert language_files(own, shipped, "en", "de") == own  # its own comes first
