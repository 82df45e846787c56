"""`fitsub.hf`: the Hugging Face backend under fitsub's hard budget (tiny offline models)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("transformers")

import torch  # noqa: E402
from factories import make_m2m, make_marian  # noqa: E402
from hf_helpers import EN  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from fitsub.backend import Request  # noqa: E402
from fitsub.errors import InputError  # noqa: E402
from fitsub.hf.backend import HFBackend  # noqa: E402
from fitsub.nmt.backend import default_models_dir  # noqa: E402
from fitsub.quality.links import LINKS_FILE, links_bytes, pair_links  # noqa: E402
from fitsub.units import char_length  # noqa: E402

os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture(scope="module")
def marian_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_marian(tmp_path_factory.mktemp("hf") / "marian", languages=("ita", "deu"))


@pytest.fixture(scope="module")
def m2m_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_m2m(tmp_path_factory.mktemp("hf") / "m2m")


@pytest.fixture(scope="module")
def backends(marian_dir: Path, m2m_dir: Path) -> dict[str, HFBackend]:
    torch.set_num_threads(1)
    return {
        "marian": HFBackend(str(marian_dir), lang="it", device="cpu", beam=3),
        "m2m": HFBackend(str(m2m_dir), lang="it", device="cpu", beam=3),
    }


def _check(req: Request, cands: list) -> None:
    """Within budget when `fits`; a flagged candidate is the fallback, never silently over."""
    assert cands
    for c in cands:
        n = char_length(c.text)
        if c.fits and req.max_chars is not None:
            assert 0 < n <= req.max_chars, (req, c)
        if req.max_chars is not None and n > req.max_chars:
            assert not c.fits


sentences = st.lists(st.sampled_from(EN), min_size=1, max_size=7).map(" ".join)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    texts=st.lists(sentences, min_size=1, max_size=4),
    budgets=st.lists(st.integers(min_value=1, max_value=40), min_size=4, max_size=4),
    which=st.sampled_from(["marian", "m2m"]),
    n_best=st.integers(min_value=1, max_value=3),
)
def test_no_output_exceeds_its_budget(
    backends: dict[str, HFBackend], texts: list[str], budgets: list[int], which: str, n_best: int
) -> None:
    """Random budgets, one batch, down to 1 character (smaller than any word)."""
    reqs = [Request(t, target_chars=b, max_chars=b) for t, b in zip(texts, budgets, strict=False)]
    out = backends[which].translate(reqs, n_best=n_best)
    assert len(out) == len(reqs)
    for req, cands in zip(reqs, out, strict=True):
        assert 1 <= len(cands) <= n_best
        _check(req, cands)


def test_mixed_budgets_in_one_batch(backends: dict[str, HFBackend]) -> None:
    text = "the small boat sees the old river city"
    budgets = [4, 9, 15, 25, None]
    reqs = [Request(text, target_chars=b, max_chars=b) for b in budgets]
    for backend in backends.values():
        out = backend.translate(reqs, n_best=2)
        free = char_length(out[-1][0].text)
        for req, cands in zip(reqs, out, strict=True):
            _check(req, cands)
        fitting = [char_length(c[0].text) for r, c in zip(reqs, out, strict=True) if c[0].fits]
        assert fitting, "at least some budgets are met"
        # the budgets differ per row: each row's fitting output is under its own budget only
        assert any(n > 4 for n in fitting) or free <= 4


def test_no_space_rows_count_without_spaces(backends: dict[str, HFBackend]) -> None:
    req = Request(
        "the small boat sees the river", target_chars=12, max_chars=12, bound_unit="char_no_space"
    )
    for backend in backends.values():
        for c in backend.translate([req], n_best=3)[0]:
            if c.fits:
                assert 0 < sum(not ch.isspace() for ch in c.text) <= 12


def test_lower_bound_holds_when_it_can(backends: dict[str, HFBackend]) -> None:
    text = "the big old house sees the river"
    for backend in backends.values():
        free = backend.translate([Request(text)])[0][0]
        assert char_length(free.text) > 20  # untrained models ramble: 20..30 is reachable
        got = backend.translate([Request(text, 25, max_chars=30, min_chars=20)], n_best=3)[0]
        assert all(20 <= char_length(c.text) <= 30 for c in got if c.fits)
        assert any(c.fits for c in got)


def test_forced_target_language_token(m2m_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    backend = HFBackend(str(m2m_dir), lang="de", device="cpu", beam=2)
    tok = backend.tokenizer
    de = tok.convert_tokens_to_ids("__de__")
    assert backend.lang.forced_bos == de
    seen: list[torch.Tensor] = []
    real = backend.model.generate

    def spy(*args: object, **kwargs: object) -> object:
        out = real(*args, **kwargs)
        seen.append(out.sequences)
        return out

    monkeypatch.setattr(backend.model, "generate", spy)
    backend.translate([Request("the dog walks", 20, 20), Request("the cat")])
    assert seen and all(bool((s[:, 1] == de).all()) for s in seen)
    # the source side is marked English
    ids = tok("the dog")["input_ids"]
    assert ids[0] == tok.convert_tokens_to_ids("__en__")


def test_marian_language_prefix(marian_dir: Path) -> None:
    backend = HFBackend(str(marian_dir), lang="de", device="cpu", beam=2)
    assert backend.lang.prefix == ">>deu<<" and backend.lang.forced_bos is None
    tok = backend.tokenizer
    enc = tok(backend._job(0, Request("the dog")).text)["input_ids"]
    assert enc[0] == tok.convert_tokens_to_ids(">>deu<<")


@pytest.mark.parametrize("which", ["marian", "m2m"])
def test_unknown_language_is_input_error(which: str, marian_dir: Path, m2m_dir: Path) -> None:
    path = marian_dir if which == "marian" else m2m_dir
    with pytest.raises(InputError, match="does not know the target language"):
        HFBackend(str(path), lang="fr" if which == "marian" else "xx", device="cpu")


def test_text_the_tokenizer_cannot_encode(backends: dict[str, HFBackend]) -> None:
    with pytest.raises(InputError, match="cannot encode"):
        backends["marian"].translate([Request("日本語のテキスト")])


def test_greedy_search_keeps_budgets(marian_dir: Path) -> None:
    backend = HFBackend(str(marian_dir), lang="it", device="cpu", beam=1)
    reqs = [Request("the small boat sees the river", b, b) for b in (2, 6, 11, 30)]
    for req, cands in zip(reqs, backend.translate(reqs), strict=True):
        assert len(cands) == 1
        _check(req, cands)


def test_nothing_fits_gives_the_shortest_unconstrained_flagged(
    backends: dict[str, HFBackend],
) -> None:
    backend = backends["m2m"]
    text = "the small boat sees the river"
    free = backend.translate([Request(text)], n_best=3)[0]
    got = backend.translate([Request(text, 1, max_chars=1, min_chars=1)], n_best=1)[0]
    if not got[0].fits:  # 1 character: only a one-letter word could fit
        assert char_length(got[0].text) == min(char_length(c.text) for c in free)


def test_constrained_outputs_never_end_in_a_cut_word(backends: dict[str, HFBackend]) -> None:
    """The trained tiny models write whole toy words; under any budget (down to 1 character,
    inside every word) a fitting output only holds words the unconstrained search writes too,
    or whole words of the toy vocabulary: never the truncation of one ("le ban")."""
    from hf_helpers import DICT

    texts = ["the bored sailor sees the boats", "a very old house", "the new city river"]
    for backend in backends.values():
        free = backend.translate([Request(t) for t in texts], n_best=3)
        vocab = set(DICT.values()) | set(DICT)  # the words of the toy vocabulary (both sides)
        whole = vocab | {w for c in free for x in c for w in x.text.split()}
        for budget in range(1, 31):
            out = backend.translate([Request(t, budget, budget) for t in texts], n_best=3)
            for cands in out:
                for c in cands:
                    if c.fits:
                        assert set(c.text.split()) <= whole, (budget, c.text)


def test_known_words_for_the_cut_word_flag(backends: dict[str, HFBackend]) -> None:
    from fitsub.quality.flags import KnowsWords

    for backend in backends.values():
        assert isinstance(backend, KnowsWords)
        known = backend.known_words()
        assert {"barca", "annoiato", "marinaio"} <= known and "<unk>" not in known


def test_word_links_beside_the_model_else_the_shipped_pairs(
    marian_dir: Path, tmp_path: Path
) -> None:
    # links are a fact of the language pair's text: a model without its own gets the shipped
    # en-XX model's, for the quality score and the flags
    plain = HFBackend(str(marian_dir), lang="it", device="cpu", beam=1)
    assert (
        plain.links is not None and plain.links.path == default_models_dir() / "en-it" / LINKS_FILE
    )
    own = tmp_path / "marian"
    shutil.copytree(marian_dir, own)
    (own / LINKS_FILE).write_bytes(
        links_bytes({"dog": ["cane"]}, ["the"], language="it", source="t")
    )
    beside = HFBackend(str(own), lang="it", device="cpu", beam=1)
    assert beside.links is not None and dict(beside.links.links) == {"dog": "cane"}
    assert pair_links(own, default_models_dir(), "de", "it") is None  # links are English → XX
