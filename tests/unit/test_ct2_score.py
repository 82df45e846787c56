"""The quality score's forced pass on CTranslate2 (fitsub.nmt.ct2_score): the same token
log-probabilities and entropies as fitsub's own decoder without a length, whatever length the
request asks; once that decoder is loaded, Monte-Carlo dropout and a model that always takes a
length, fitsub's decoder scores."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from factories import train_tiny

from fitsub.backend import OutputScore, Request
from fitsub.nmt import ct2_score
from fitsub.nmt.backend import NMTBackend
from fitsub.nmt.checkpoint import save_checkpoint
from fitsub.nmt.ct2_score import step_signals

TEXTS = ["3 1 4 1 5", "9 2 6", "2 7 1 8 2 8 1", "5"]


@pytest.fixture(scope="module")
def copier(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A trained tiny copy model CTranslate2 can run (LDPE+PE, length dropout)."""
    model, tok, cfg = train_tiny("ldpe+pe", "subword", steps=300, length_dropout=0.3)
    return save_checkpoint(tmp_path_factory.mktemp("ct2-score") / "copy", model, cfg, tok)


def scores(backend: NMTBackend, outputs: list[str], lengths: list[int | None]) -> list[OutputScore]:
    reqs = [Request(t, target_chars=n) for t, n in zip(TEXTS, lengths, strict=True)]
    return backend.score_outputs(reqs, outputs)


def test_step_signals_are_the_log_softmax_and_its_entropy() -> None:
    logits = np.array([[0.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, -1.0]], dtype=np.float32)
    picked, entropy = step_signals(logits, [1, 0])
    assert picked[0] == pytest.approx(math.log(0.25), abs=1e-6)
    assert entropy[0] == pytest.approx(math.log(4), abs=1e-6)
    z = math.exp(2) + 2 + math.exp(-1)
    assert picked[1] == pytest.approx(2 - math.log(z), abs=1e-5)
    p = [math.exp(2) / z, 1 / z, 1 / z, math.exp(-1) / z]
    assert entropy[1] == pytest.approx(-sum(q * math.log(q) for q in p), abs=1e-5)


def test_ctranslate2_scores_as_fitsubs_decoder_without_a_length(copier: Path) -> None:
    first = NMTBackend(copier, device="cpu", beam=2, threads=1)
    outputs = [c[0].text for c in first.translate([Request(t) for t in TEXTS])]
    outputs[1] = "9 2 6 6"  # an output the model would not give: a low token
    backend = NMTBackend(copier, device="cpu", beam=2, threads=1, batch_size=3)
    assert backend.ct2 is not None and backend.supports_unconstrained
    fast = scores(backend, outputs, [9, 5, None, 2])
    assert "decoder" not in backend.__dict__  # fitsub's own decoder was never built
    backend.ct2 = None
    own = scores(backend, outputs, [None] * len(TEXTS))
    for a, b, out in zip(fast, own, outputs, strict=True):
        # one log-probability per output piece and the end of sentence
        assert len(a.token_logprobs) == len(backend.tokenizer.encode(out)) + 1
        assert len(a.token_logprobs) == len(b.token_logprobs)
        # the two engines' float32 arithmetic: the first step within 0.02 nats, the rest 2e-3
        assert a.token_logprobs[0] == pytest.approx(b.token_logprobs[0], abs=2e-2)
        assert a.entropies[0] == pytest.approx(b.entropies[0], abs=2e-2)
        assert a.token_logprobs[1:] == pytest.approx(b.token_logprobs[1:], abs=2e-3)
        assert a.entropies[1:] == pytest.approx(b.entropies[1:], abs=2e-3)
        assert (a.word_pieces, a.word_logprobs, a.output_words) == (
            b.word_pieces,
            b.word_logprobs,
            b.output_words,
        )
        assert a.attention == () and b.attention != ()
    assert min(fast[1].token_logprobs) < min(fast[0].token_logprobs)


def test_once_fitsubs_decoder_is_loaded_it_scores(copier: Path) -> None:
    # a file whose lines needed the search: the decoder's forced pass (every step at once) is
    # the faster, and gives the same numbers
    backend = NMTBackend(copier, device="cpu", beam=2, threads=1)
    before = backend.score_outputs([Request(TEXTS[0])], [TEXTS[0]])[0]
    assert before.attention == ()  # CTranslate2's
    backend.translate([Request(TEXTS[0], target_chars=9, max_chars=9, lexicon=True)])
    after = backend.score_outputs([Request(TEXTS[0])], [TEXTS[0]])[0]
    assert after.attention != ()  # fitsub's decoder's
    assert after.token_logprobs == pytest.approx(before.token_logprobs, abs=2e-2)


def test_dropout_passes_keep_fitsubs_decoder(copier: Path) -> None:
    backend = NMTBackend(copier, device="cpu", beam=2, threads=1)
    got = backend.score_outputs([Request(TEXTS[0])], [TEXTS[0]], dropout_passes=3)
    assert "decoder" in backend.__dict__ and len(got[0].dropout_means) == 3


def test_a_model_that_always_takes_a_length_is_scored_with_the_requests(tmp_path: Path) -> None:
    model, tok, cfg = train_tiny("ldpe+pe", "subword", steps=60, length_dropout=0.0)
    path = save_checkpoint(tmp_path / "always", model, cfg, tok)
    backend = NMTBackend(path, device="cpu", beam=2, threads=1)
    assert not backend.supports_unconstrained and backend.ct2 is None
    short, long_ = (
        backend.score_outputs([Request(TEXTS[0], target_chars=n)], [TEXTS[0]])[0] for n in (3, 30)
    )
    assert short.token_logprobs != pytest.approx(long_.token_logprobs, abs=1e-4)


@pytest.mark.parametrize(
    ("installed", "scores"), [("4.0.0", False), ("4.1.0", False), ("4.4.0", True), ("4.10.2", True)]
)
def test_only_a_ctranslate2_that_returns_the_distributions_scores(
    installed: str, scores: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ct2_score, "version", lambda _: installed)
    ct2_score.supported.cache_clear()
    try:
        assert ct2_score.supported() is scores
    finally:
        ct2_score.supported.cache_clear()


def test_an_older_ctranslate2_leaves_scoring_to_fitsubs_decoder(
    copier: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ct2_score, "supported", lambda: False)
    backend = NMTBackend(copier, device="cpu", beam=2, threads=1)
    assert backend.ct2 is not None
    got = backend.score_outputs([Request(TEXTS[0])], [TEXTS[0]])[0]
    assert "decoder" in backend.__dict__ and got.attention != ()
