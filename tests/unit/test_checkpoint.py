"""Tokenizer and checkpoint directories: save then load gives identical translations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from factories import word_texts, word_tokenizer
from hypothesis import given, settings
from hypothesis import strategies as st

from fitsub.backend import Request, TranslationBackend
from fitsub.errors import InputError, ModelMissingError
from fitsub.nmt.backend import MODEL_ENV, NMTBackend, resolve_model_dir
from fitsub.nmt.checkpoint import (
    build_model,
    load_checkpoint,
    load_extra_tensors,
    save_checkpoint,
)
from fitsub.nmt.config import ModelConfig
from fitsub.nmt.model import uninitialised
from fitsub.nmt.search import beam_search
from fitsub.nmt.tokenizer import Tokenizer

torch.set_num_threads(1)


# ---- tokenizer ---------------------------------------------------------------------------------
def test_tokenizer_ids_and_special_symbols() -> None:
    tok = word_tokenizer()
    assert (tok.pad_id, tok.unk_id, tok.bos_id, tok.eos_id) == (0, 1, 2, 3)
    assert [tok.token_id(s) for s in ("<short>", "<normal>", "<long>", "<2en>", "<2it>")] == [
        4,
        5,
        6,
        7,
        8,
    ]
    assert set(tok.special_ids()) >= {0, 1, 2, 3, 4, 5, 6, 7, 8}
    assert all(tok.piece_chars()[i] == 0 for i in tok.special_ids())
    with pytest.raises(ValueError):
        tok.token_id("<2zz>")


def test_source_ids_put_the_length_token_first_and_eos_last() -> None:
    tok = word_tokenizer()
    ids = tok.source_ids("kato rimè", "<short>")
    assert ids[0] == tok.token_id("<short>") and ids[-1] == tok.eos_id
    assert ids[1:-1] == tok.encode("kato rimè")
    assert tok.source_ids("kato rimè") == [*tok.encode("kato rimè"), tok.eos_id]
    assert tok.decode(ids) == "kato rimè"


def test_training_is_deterministic() -> None:
    a = Tokenizer.train(word_texts(200, seed=3), vocab_size=80)
    b = Tokenizer.train(word_texts(200, seed=3), vocab_size=80)
    assert a.to_bytes() == b.to_bytes()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10_000), min_size=0, max_size=12))
def test_piece_chars_give_the_decoded_length(picks: list[int]) -> None:
    tok = word_tokenizer()
    normal = [i for i in range(tok.vocab_size) if not tok.is_special(i)]
    ids = [normal[p % len(normal)] for p in picks]
    # exact for everything except runs of bare `▁` pieces at the start, where it may over-count
    if len(ids) >= 2 and tok.sp.id_to_piece(ids[0]) == "\u2581":
        assert tok.chars_of(ids) >= len(tok.decode(ids))
    else:
        assert tok.chars_of(ids) == len(tok.decode(ids))


def test_chars_of_encoded_text_is_its_length() -> None:
    tok = word_tokenizer()
    for text in word_texts(50, seed=9):
        assert tok.chars_of(tok.encode(text)) == len(text)


def test_train_from_files_matches_training_from_lines(tmp_path: Path) -> None:
    texts = word_texts(200, seed=4)
    (tmp_path / "a.txt").write_text("\n".join(texts[:100]) + "\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("\n".join(texts[100:]) + "\n", encoding="utf-8")
    from_files = Tokenizer.train_files([tmp_path / "a.txt", tmp_path / "b.txt"], vocab_size=80)
    assert from_files.to_bytes() == Tokenizer.train(texts, vocab_size=80).to_bytes()
    with pytest.raises(InputError, match="missing.txt"):
        Tokenizer.train_files([tmp_path / "missing.txt"], vocab_size=80)


def test_load_rejects_a_non_model_file(tmp_path: Path) -> None:
    bad = tmp_path / "spm.model"
    bad.write_text("not a model")
    with pytest.raises(InputError, match="spm.model"):
        Tokenizer.load(bad)


# ---- checkpoints -------------------------------------------------------------------------------
def tiny(method: str = "tok+ldpe") -> tuple[torch.nn.Module, Tokenizer, ModelConfig]:
    tok = word_tokenizer()
    cfg = ModelConfig(
        vocab_size=tok.vocab_size,
        d_model=32,
        n_heads=2,
        enc_layers=1,
        dec_layers=2,
        d_ff=64,
        method=method,
        length_thresholds=(0.9, 1.2),
        extra={"chars_per_piece": 3.5},
    )
    torch.manual_seed(3)
    model = build_model(cfg, tok).eval()
    with torch.no_grad():  # make the untrained decoder end sooner, so outputs differ by source
        model.embed.weight[tok.eos_id] *= 3
    return model, tok, cfg


def src_batch(tok: Tokenizer) -> torch.Tensor:
    rows = [tok.source_ids(t, "<short>") for t in word_texts(4, seed=11)]
    src = torch.zeros(len(rows), max(map(len, rows)), dtype=torch.long)
    for i, r in enumerate(rows):
        src[i, : len(r)] = torch.tensor(r)
    return src


def translations(model: torch.nn.Module, tok: Tokenizer) -> list[list[tuple[list[int], float]]]:
    src = src_batch(tok)
    hyps = beam_search(
        model,
        src,
        torch.tensor([30, 12, -1, 25]),
        [None, 20, None, 8],
        beam=3,
        max_len=20,
        n_best=3,
    )
    return [[(h.ids, round(h.score, 4)) for h in row] for row in hyps]


def test_save_then_load_gives_identical_translations(tmp_path: Path) -> None:
    model, tok, cfg = tiny()
    before = translations(model, tok)
    out = save_checkpoint(tmp_path / "m", model, cfg, tok, {"step": 7, "chars_per_piece": 3.5})
    loaded, tok2, cfg2, meta = load_checkpoint(out)
    assert cfg2 == cfg and meta["train"] == {"step": 7, "chars_per_piece": 3.5}
    assert tok2.to_bytes() == tok.to_bytes()
    assert translations(loaded, tok2) == before
    assert sorted(p.name for p in out.iterdir()) == [
        "config.json",
        "model.safetensors",
        "spm.model",
    ]
    assert not list(tmp_path.glob(".m.*"))  # no temporary directories left behind


def test_loading_skips_random_initialisation_and_restores_it(tmp_path: Path) -> None:
    model, tok, cfg = tiny()
    out = save_checkpoint(tmp_path / "m", model, cfg, tok)
    calls: list[str] = []
    real = torch.nn.init.normal_

    def counting(t: torch.Tensor, *a: object, **k: object) -> torch.Tensor:
        calls.append("normal_")
        return real(t, *a, **k)  # type: ignore[arg-type]

    torch.nn.init.normal_ = counting  # type: ignore[assignment]
    try:
        loaded, *_ = load_checkpoint(out)  # every weight loaded: no initialiser runs
        assert calls == []
        pairs = zip(model.parameters(), loaded.parameters(), strict=True)
        assert all(torch.equal(a, b) for a, b in pairs)
        build_model(cfg, tok)  # a fresh model (training) is initialised as before
        assert calls
    finally:
        torch.nn.init.normal_ = real
    with pytest.raises(RuntimeError), uninitialised():
        raise RuntimeError("a failed build")
    assert torch.nn.init.normal_ is real and torch.nn.init.zeros_.__name__ == "zeros_"


def test_half_precision_weights_load_as_float32(tmp_path: Path) -> None:
    model, tok, cfg = tiny()
    save_checkpoint(tmp_path / "m", model, cfg, tok, dtype="bfloat16")
    loaded, *_ = load_checkpoint(tmp_path / "m")
    assert all(p.dtype == torch.float32 for p in loaded.parameters())
    w0, w1 = model.embed.weight, loaded.embed.weight
    assert torch.allclose(w0, w1, rtol=1e-2, atol=1e-3) and not torch.equal(w0, w1)
    assert json.loads((tmp_path / "m" / "config.json").read_text())["weights_dtype"] == "bfloat16"


def test_replacing_a_checkpoint_keeps_unknown_files_and_extra_tensors(tmp_path: Path) -> None:
    model, tok, cfg = tiny()
    d = tmp_path / "m"
    opt = {"exp_avg": torch.arange(6.0).view(2, 3), "step": torch.tensor(5)}
    save_checkpoint(d, model, cfg, tok, extra_tensors={"optimizer": opt})
    (d / "train_log.jsonl").write_text('{"step": 1}\n')
    with torch.no_grad():
        model.embed.weight.add_(0.5)
    save_checkpoint(d, model, cfg, tok, {"step": 2}, extra_tensors={"optimizer": opt})
    assert (d / "train_log.jsonl").read_text() == '{"step": 1}\n'
    back = load_extra_tensors(d, "optimizer")
    assert torch.equal(back["exp_avg"], opt["exp_avg"]) and int(back["step"]) == 5
    loaded, *_ = load_checkpoint(d)
    assert torch.equal(loaded.embed.weight, model.embed.weight)
    assert not [p for p in tmp_path.iterdir() if p.name != "m"]


def test_compiled_or_wrapped_models_save_their_plain_weights(tmp_path: Path) -> None:
    model, tok, cfg = tiny()

    class Wrapper(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.module = inner

    save_checkpoint(tmp_path / "m", Wrapper(model), cfg, tok)
    loaded, *_ = load_checkpoint(tmp_path / "m")
    assert torch.equal(loaded.embed.weight, model.embed.weight)


def test_not_a_checkpoint_is_a_clear_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such directory"):
        load_checkpoint(tmp_path / "missing")
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "config.json").write_text("{}")
    with pytest.raises(InputError, match="missing model.safetensors, spm.model"):
        load_checkpoint(tmp_path / "half")
    model, tok, cfg = tiny()
    d = save_checkpoint(tmp_path / "m", model, cfg, tok)
    (d / "config.json").write_text("{not json")
    with pytest.raises(InputError, match="config.json"):
        load_checkpoint(d)
    d = save_checkpoint(tmp_path / "m2", model, cfg, tok)
    meta = json.loads((d / "config.json").read_text())
    meta["model"]["d_model"] = 64
    (d / "config.json").write_text(json.dumps(meta))
    with pytest.raises(InputError, match="weights do not match"):
        load_checkpoint(d)


# ---- backend over a checkpoint -----------------------------------------------------------------
def backend_for(tmp_path: Path, **cfg_kw: object) -> NMTBackend:
    model, tok, cfg = tiny()
    for k, v in cfg_kw.items():
        setattr(cfg, k, v)
    return NMTBackend(save_checkpoint(tmp_path / "m", model, cfg, tok), device="cpu", beam=2)


def test_backend_picks_the_length_token_from_the_thresholds(tmp_path: Path) -> None:
    backend = backend_for(tmp_path)  # tok+ldpe, thresholds (0.9, 1.2), char unit
    assert isinstance(backend, TranslationBackend)
    tok = backend.tokenizer
    text = "kato rimè solu"  # 14 characters
    for target, symbol in [(12, "<short>"), (13, "<normal>"), (16, "<normal>"), (17, "<long>")]:
        ids, units, rank_target = backend._prepare(Request(text, target_chars=target))
        assert ids[0] == tok.token_id(symbol) and units == target and rank_target == target
    # trained without length dropout: "unconstrained" means the source's own length
    assert not backend.supports_unconstrained
    ids, units, _ = backend._prepare(Request(text))
    assert ids[0] == tok.token_id("<normal>") and units == 14


def test_backend_unconstrained_and_subword_lengths(tmp_path: Path) -> None:
    backend = backend_for(tmp_path, length_dropout=0.2, length_unit="subword")
    assert backend.supports_unconstrained
    ids, units, target = backend._prepare(Request("kato rimè solu"))
    assert ids == backend.tokenizer.source_ids("kato rimè solu") and units == -1 and target is None
    _, units, _ = backend._prepare(Request("kato rimè solu", target_chars=35))
    assert units == 10  # 35 characters / 3.5 characters per piece (stored at training time)
    out = backend.translate(
        [Request("kato rimè"), Request("solu", target_chars=7, max_chars=7)], n_best=2
    )
    assert len(out) == 2 and all(1 <= len(c) <= 2 for c in out)
    assert all(len(c.text) <= 7 for c in out[1] if c.fits)


def test_resolve_model_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model, tok, cfg = tiny()
    ckpt = save_checkpoint(tmp_path / "store" / "xx-yy", model, cfg, tok)
    monkeypatch.delenv(MODEL_ENV, raising=False)
    assert resolve_model_dir(ckpt, "xx", "yy") == ckpt
    with pytest.raises(ModelMissingError, match="not a fitsub model"):
        resolve_model_dir(tmp_path, "xx", "yy")
    with pytest.raises(ModelMissingError, match=r"no xx-yy translation model.*fitsub train"):
        resolve_model_dir(None, "xx", "yy")
    monkeypatch.setenv(MODEL_ENV, str(tmp_path / "store"))
    assert resolve_model_dir(None, "xx", "yy") == ckpt
    monkeypatch.setenv(MODEL_ENV, str(ckpt))
    assert resolve_model_dir(None, "en", "de") == ckpt
