"""One multilingual model (several --tgt): per-language data read through `{tgt}`, corpus specs
scoped to a language, the `<2xx>` tag on every source, dev pairs interleaved, and the target
language chosen at translation time (Johnson et al. 2017's tag, issue 12's study)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
import torch

from fitsub.backend import Request
from fitsub.cli import main
from fitsub.errors import InputError
from fitsub.nmt.backend import NMTBackend
from fitsub.nmt.tokenizer import Tokenizer, language_tag
from fitsub.train import corpus as D
from fitsub.train.config import TrainConfig
from fitsub.train.run_data import interleave, language_specs, read_corpora

torch.set_num_threads(1)
WORDS = "cat dog house red blue big small runs eats sees the man woman child tree".split()
# two made-up target languages: every English word reversed, plus "o" or plus "en"
SUFFIX = {"it": "o", "de": "en"}


def write_lang(root: Path, lang: str, stem: str, n: int, seed: int) -> None:
    rng = random.Random(seed)
    d = root / f"en-{lang}" / "train"
    d.mkdir(parents=True, exist_ok=True)
    src, tgt = [], []
    for _ in range(n):
        ws = [rng.choice(WORDS) for _ in range(rng.randint(2, 6))]
        src.append(" ".join(ws))
        tgt.append(" ".join(w[::-1] + SUFFIX[lang] for w in ws))
    (d / f"{stem}.en").write_text("\n".join(src) + "\n", "utf-8")
    (d / f"{stem}.{lang}").write_text("\n".join(tgt) + "\n", "utf-8")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ml")
    write_lang(root, "it", "toy", 300, 0)
    write_lang(root, "de", "toy", 300, 1)
    write_lang(root, "de", "extra", 50, 2)  # a corpus only the de data has
    return root


def run_cli(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return 0


def train_two_languages(data: Path, tmp_path: Path, *extra: str) -> Path:
    """`fitsub train --tgt it,de` of a tiny model on the made-up pair; the run's directory."""
    out = tmp_path / "run"
    args = ["train", "--out", str(out), "--data", str(data / "en-{tgt}" / "train"), "--tgt"]
    args += ["it,de", "--size", "tiny", "--vocab-size", "70", "--max-tokens", "512"]
    args += ["--threads", "1", "--dev-size", "40", "--bleu-sentences", "0", "-q", *extra]
    assert run_cli(args) == 0
    return out


def config(data: Path, corpora: list[str], out: Path) -> TrainConfig:
    return TrainConfig.from_options(
        out_dir=str(out), tgt_lang="it", tgt_langs=["it", "de"],
        data_dir=str(data / "en-{tgt}" / "train"), corpora=corpora, dedupe=False,
    )  # fmt: skip


def test_each_language_is_read_tagged_and_weighted(data: Path, tmp_path: Path) -> None:
    cfg = config(data, ["toy", "de/extra:2"], tmp_path)
    train, dev, sizes, _ = read_corpora(cfg.data)
    assert sizes == {"it/toy": 300, "de/toy": 300, "de/extra": 100}
    assert train.lang is not None and train.lang.count("it") == 300
    assert train.lang.count("de") == 400 and dev is None
    # every pair carries its own language: the German targets all end in "en"
    assert all(t.endswith("en") for t, g in zip(train.tgt, train.lang, strict=True) if g == "de")
    assert all(t.endswith("o") for t, g in zip(train.tgt, train.lang, strict=True) if g == "it")


def test_corpus_specs_are_scoped_and_checked(data: Path, tmp_path: Path) -> None:
    de = data / "en-de" / "train"
    assert language_specs(["toy:0.5", "de/extra", "it/toy"], "de", de, "en") == [
        "toy:0.5", "extra",
    ]  # fmt: skip
    assert language_specs([], "de", de, "en") == []  # no spec: every corpus
    with pytest.raises(InputError, match="no --corpus names a corpus of the it data"):
        language_specs(["de/extra"], "it", data / "en-it" / "train", "en")
    with pytest.raises(InputError, match="no target language's data has a corpus 'nothing'"):
        read_corpora(config(data, ["toy", "nothing"], tmp_path).data)


def test_interleave_takes_one_of_each_in_turn() -> None:
    a = D.Corpus(["a1", "a2", "a3"], ["x", "x", "x"]).tagged("it")
    b = D.Corpus(["b1"], ["y"]).tagged("de")
    both = interleave([a, b])
    assert both.src == ["a1", "b1", "a2", "a3"] and both.lang == ["it", "de", "it", "it"]
    with pytest.raises(ValueError, match="cannot mix"):
        D.Corpus(["c"], ["z"]).extend(a)


def test_tagged_sources_start_with_their_language_tag() -> None:
    tok = Tokenizer.train([*WORDS, "tacen", "godo"] * 20, vocab_size=60, langs=("en", "it", "de"))
    tags = {lang: tok.token_id(language_tag(lang)) for lang in ("it", "de")}
    corpus = D.Corpus(["cat dog", "the man"], ["taco godo", "ehten namen"], ["it", "de"])
    pc, lead = np.asarray(tok.piece_chars()), np.asarray(tok.leading_space())
    enc = D.encode_corpus(tok, corpus, "char", pc, lead, tag_ids=tags)
    rows = [enc.src_ids[enc.src_off[i] : enc.src_off[i + 1]].tolist() for i in range(2)]
    assert rows[0] == [tags["it"], *tok.encode("cat dog")]
    assert rows[1] == [tags["de"], *tok.encode("the man")]
    assert enc.tgt_units.tolist() == [9, 11]  # lengths are the targets' own, tags cost nothing
    # translation builds the same input: [length token?] [tag] pieces EOS
    assert tok.source_ids("the man", "<short>", "de") == [
        tok.token_id("<short>"), tags["de"], *tok.encode("the man"), tok.eos_id,
    ]  # fmt: skip


def test_cli_trains_one_model_for_two_languages(data: Path, tmp_path: Path) -> None:
    out = train_two_languages(
        data, tmp_path, "--method", "ldpe+pe", "--warmup", "10", "--lr", "3e-3",
        "--max-steps", "300", "--eval-every", "300",
    )  # fmt: skip
    meta = json.loads((out / "best" / "config.json").read_text())
    assert meta["model"]["tgt_langs"] == ["it", "de"] and meta["model"]["tgt_lang"] == "it"
    # the dev pairs written per language, for `fitsub eval --testset dev=OUT/dev-de`
    dev_de = (out / "dev-de.de").read_text().splitlines()
    assert dev_de and all(line.endswith("en") for line in dev_de)
    assert (out / "dev-it.en").is_file() and not (out / "dev.en").exists()
    srcs = [" ".join(random.Random(i).sample(WORDS, 3)) for i in range(12)]
    suffix_share = {}
    for lang in ("it", "de"):
        backend = NMTBackend(out / "best", device="cpu", beam=2, lang=lang)
        outs = [c[0].text for c in backend.translate([Request(s) for s in srcs])]
        words = " ".join(outs).split()
        suffix_share[lang] = sum(w.endswith("en") for w in words) / max(1, len(words))
    # the tag decides the language: "-en" words are German's, almost never Italian's
    assert suffix_share["de"] > 0.8 and suffix_share["it"] < 0.2, suffix_share
    with pytest.raises(InputError, match="name the target language"):
        NMTBackend(out / "best", device="cpu")
    with pytest.raises(InputError, match="cannot produce --lang fr"):
        NMTBackend(out / "best", device="cpu", lang="fr")


def test_translate_rejects_a_language_the_model_lacks(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = train_two_languages(data, tmp_path, "--max-steps", "2")
    src = tmp_path / "in.txt"
    src.write_text("the cat\n", "utf-8")
    args = ["translate", str(src), "--model", str(out / "best"), "--lang", "fr"]
    assert run_cli([*args, "-o", str(tmp_path / "o.txt")]) == 2
    assert not (tmp_path / "o.txt").exists()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "translates en → it, de; it cannot produce --lang fr" in err[0]
