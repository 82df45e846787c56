"""The shipped multilingual model (`models/en-multi`): one set of weights writes whichever of
its four languages `--lang` asks for. Spanish's default (`models/en-es`) is that model continued
on Spanish: multilingual weights of its own; the others' defaults are per-language models."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_helpers import run

from fitsub.nmt.backend import resolve_model_dir
from fitsub.quality.dictionary import load_dictionary

REPO = Path(__file__).resolve().parents[2]
MULTI = REPO / "models" / "en-multi"
LINES = [
    "The children are playing in the garden with their friends.",
    "We will open a new school in the city next year.",
    "Thank you very much for your help yesterday.",
]


def _mean_zipf(text: str, lang: str) -> float:
    dictionary = load_dictionary(lang)
    assert dictionary is not None
    words = re.findall(r"\w+", text.lower())
    return sum(dictionary.zipf(w) for w in words) / max(len(words), 1)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("multi")
    src = folder / "in.txt"
    src.write_text("\n".join(LINES) + "\n", "utf-8")
    out: dict[str, str] = {}
    for lang in ("it", "de", "fr", "es"):
        dest = folder / f"out.{lang}.txt"
        argv = ["translate", str(src), "--model", str(MULTI), "--lang", lang]
        assert run([*argv, "--threads", "1", "-o", str(dest)]) == 0
        out[lang] = dest.read_text("utf-8")
    return out


def test_each_output_is_in_the_language_asked_for(outputs: dict[str, str]) -> None:
    for lang, text in outputs.items():
        assert len(text.strip().splitlines()) == len(LINES)
        own = _mean_zipf(text, lang)
        for other in outputs:
            if other != lang:
                assert own > _mean_zipf(text, other), (lang, other, text)


def test_spanish_alone_defaults_to_a_multilingual_model_with_weights_of_its_own() -> None:
    from fitsub.nmt.checkpoint import read_config

    for lang in ("it", "de", "fr", "es"):
        default = resolve_model_dir(None, "en", lang)
        assert default.name == f"en-{lang}"
        assert (default / "lexicon.txt.gz").is_file()  # its language's own, in every case
        assert not (default / "model.safetensors").is_symlink(), lang
        multi_cfg = read_config(default)["model"].get("tgt_langs")
        assert bool(multi_cfg) == (lang == "es"), lang
    # Spanish's: en-multi's shape and languages, continued on Spanish (other weights)
    es, multi = read_config(REPO / "models" / "en-es")["model"], read_config(MULTI)["model"]
    shape = ("arch", "d_model", "enc_layers", "dec_layers", "vocab_size", "method", "tgt_langs")
    assert [es.get(k) for k in shape] == [multi.get(k) for k in shape]
    assert es["tgt_langs"] == multi["tgt_langs"] and "es" in es["tgt_langs"]
    es_bytes = (REPO / "models" / "en-es" / "model.safetensors").read_bytes()
    assert es_bytes != (MULTI / "model.safetensors").read_bytes()
    # the per-language model it replaced is whole beside it
    single = REPO / "models" / "en-es-single"
    assert read_config(single)["model"]["tgt_lang"] == "es"
    assert (single / "lexicon.txt.gz").is_file()


@pytest.mark.parametrize("lang", ["de", "es"])
def test_it_keeps_to_the_lexicon_and_links_of_the_language_asked_for(lang: str) -> None:
    from fitsub.nmt.backend import NMTBackend

    backend = NMTBackend(MULTI, device="cpu", threads=1, lang=lang)
    assert backend.lexicon is not None and backend.lexicon.language == lang
    assert backend.lexicon_note is None
    assert backend.links is not None and backend.links.languages[1] == lang
    # its own folder holds neither: they are the shipped per-language model's
    assert not (MULTI / "lexicon.txt.gz").exists() and not (MULTI / "links.txt.gz").exists()
