"""The source-side quality signals (`fitsub.nmt.attention`, `fitsub.quality.score.source_signals`):
source rarity from the tokenizer, coverage from the cross-attention of the forced decode."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
from factories import tiny_checkpoint, word_texts

from fitsub.backend import OutputScore, Request
from fitsub.nmt.attention import (
    CrossAttentionRecorder,
    source_attention,
    source_positions,
    word_rarity,
)
from fitsub.nmt.backend import NMTBackend
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.quality.score import (
    SOURCE_SIGNALS,
    load_model,
    segment_signals,
    source_signals,
    text_signals,
)


@pytest.fixture(scope="module")
def english() -> Tokenizer:
    """A unigram model over made-up "English" where a few words are very common."""
    common = ["the house is red.", "the cat is on the table!", "where is the house, (red)?"]
    return Tokenizer.train([*common * 100, *word_texts()], vocab_size=300, langs=("en", "it"))


@pytest.fixture(scope="module")
def nmt(tmp_path_factory: pytest.TempPathFactory) -> NMTBackend:
    torch.set_num_threads(1)
    return NMTBackend(tiny_checkpoint(tmp_path_factory.mktemp("qs")), device="cpu", threads=1)


def _score(tok: Tokenizer, text: str) -> OutputScore:
    pieces, logprobs = word_rarity(tok, tok.source_ids(text))
    return OutputScore((-1.0,), (1.0,), word_pieces=pieces, word_logprobs=logprobs)


def test_a_rare_made_up_word_is_rarer_than_a_common_sentence(english: Tokenizer) -> None:
    common = source_signals(_score(english, "the house is red"))
    rare = source_signals(_score(english, "the xqzvwyj is red"))
    assert common["source_pieces"] is not None and rare["source_pieces"] is not None
    assert rare["source_pieces"] > common["source_pieces"] + 1.0  # split in many pieces
    assert rare["source_rarest"] is not None and common["source_rarest"] is not None
    assert rare["source_rarest"] < common["source_rarest"] - 5.0


def test_rarity_counts_words_not_punctuation_nor_tags(english: Tokenizer) -> None:
    ids = english.source_ids("the house, (is) red!", length_token=None, lang="it")
    pieces, logprobs = word_rarity(english, ids)
    assert len(pieces) == len(logprobs) == 4  # the, house, is, red: tag, EOS, marks left out
    assert all(lp < 0.0 for lp in logprobs)
    # a character the tokenizer never saw is an unknown piece: the rarest of all
    _, unk = word_rarity(english, english.source_ids("the ☃ house"))
    assert len(unk) == 3 and min(unk) < min(logprobs) - 5.0


def test_coverage_of_an_output_that_drops_half_the_source_is_lower() -> None:
    # 4 source pieces and EOS (where attention often rests: left out and renormalised away)
    keep = [True, True, True, True, False]
    full = torch.tensor(
        [[0.8, 0.1, 0.0, 0.0, 0.1], [0.0, 0.9, 0.0, 0.0, 0.1],
         [0.0, 0.0, 0.5, 0.0, 0.5], [0.0, 0.0, 0.1, 0.7, 0.2]]
    )  # fmt: skip
    half = torch.tensor(
        [[0.7, 0.1, 0.0, 0.0, 0.2], [0.1, 0.8, 0.0, 0.0, 0.1],
         [0.4, 0.4, 0.0, 0.0, 0.2], [0.3, 0.5, 0.0, 0.0, 0.2]]
    )  # fmt: skip
    a_full = source_attention(full, 4, keep)
    a_half = source_attention(half, 4, keep)
    assert all(sum(row) == pytest.approx(1.0) for row in (*a_full, *a_half))
    s_full = source_signals(OutputScore((-1.0,), (1.0,), attention=a_full))
    s_half = source_signals(OutputScore((-1.0,), (1.0,), attention=a_half))
    assert s_full["uncovered"] == 0.0 and s_half["uncovered"] == 0.5
    assert s_full["coverage_penalty"] is not None and s_half["coverage_penalty"] is not None
    assert s_half["coverage_penalty"] < s_full["coverage_penalty"] - 2.0
    assert s_half["coverage_deviation"] > s_full["coverage_deviation"]  # type: ignore[operator]
    # only the first `steps` rows count (the padding of a batch does not)
    assert len(source_attention(full, 2, keep)) == 2
    assert source_attention(full, 4, [False] * 5) == ()


def test_attention_entropy_is_high_when_a_token_attends_everywhere() -> None:
    sharp = ((1.0, 0.0, 0.0, 0.0),) * 4
    flat = ((0.25, 0.25, 0.25, 0.25),) * 4
    ent_sharp = source_signals(OutputScore((-1.0,), (1.0,), attention=sharp))["attention_entropy"]
    ent_flat = source_signals(OutputScore((-1.0,), (1.0,), attention=flat))["attention_entropy"]
    assert ent_sharp == pytest.approx(0.0)
    assert ent_flat == pytest.approx(math.log(4))


def test_forced_decoding_gives_attention_over_the_source_pieces(nmt: NMTBackend) -> None:
    nmt.score_on_ct2 = False  # the cross-attention is fitsub's decoder's (CTranslate2 gives none)
    reqs = [Request("the cat is on the table", target_chars=12), Request("hello")]
    outs = ["il gatto è", "ciao ciao"]
    both = nmt.score_outputs(reqs, outs)
    alone = nmt.score_outputs(reqs[1:], outs[1:])
    for req, sc in zip(reqs, both, strict=True):
        ids = nmt._prepare(req)[0]
        n_src = sum(source_positions(nmt.tokenizer, ids))
        assert len(sc.attention) == len(sc.token_logprobs)  # one row per output token + EOS
        assert all(len(row) == n_src for row in sc.attention)
        assert all(sum(row) == pytest.approx(1.0, abs=1e-4) for row in sc.attention)
        assert len(sc.word_pieces) == len(sc.word_logprobs) == len(req.text.split())
    # a segment's attention does not depend on the segments batched with it
    for x, y in zip(both[1].attention, alone[0].attention, strict=True):
        assert x == pytest.approx(y, abs=1e-5)
    assert set(SOURCE_SIGNALS) <= set(segment_signals("hello", "ciao", None, both[1]))


def test_the_recorder_leaves_the_model_output_unchanged(nmt: NMTBackend) -> None:
    src = torch.tensor([nmt.tokenizer.source_ids("the cat is on the table")])
    tgt = torch.tensor([[nmt.cfg.bos_id, *nmt.tokenizer.encode("il gatto")]])
    with torch.inference_mode():
        plain = nmt.model(src, tgt, None)
        recorder = CrossAttentionRecorder()
        with recorder.record(nmt.model):
            hooked = nmt.model(src, tgt, None)
        after = nmt.model(src, tgt, None)
    assert torch.equal(plain, hooked) and torch.equal(plain, after)  # hooks removed after
    assert recorder.layers == nmt.cfg.dec_layers
    probs = recorder.probs
    assert probs is not None and probs.shape == (1, tgt.size(1), src.size(1))
    assert torch.allclose(probs.sum(-1), torch.ones(1, tgt.size(1)), atol=1e-5)
    last = CrossAttentionRecorder(layers=[nmt.cfg.dec_layers - 1])
    with torch.inference_mode(), last.record(nmt.model):
        nmt.model(src, tgt, None)
    assert last.layers == 1


def test_a_backend_without_source_figures_leaves_the_signals_missing(tmp_path: Path) -> None:
    signals = segment_signals("hello", "ciao", None, OutputScore((-1.0,), (1.0,)))
    assert all(signals[k] is None for k in SOURCE_SIGNALS)
    assert all(segment_signals("hello", "ciao", None, None)[k] is None for k in SOURCE_SIGNALS)


def test_a_fitted_line_far_shorter_than_the_free_one_scores_lower_in_the_shipped_model() -> None:
    source = "The stadium can hold fifty thousand workers and their families."
    free = "Lo stadio può ospitare cinquantamila lavoratori e le loro famiglie."
    whole = text_signals(source, free, free)
    cut = text_signals(source, "Lo stadio può tenermi.", free)
    assert whole["free_length_ratio"] == 0.0
    assert cut["free_length_ratio"] is not None and cut["free_length_ratio"] < -0.5
    assert text_signals(source, free, None)["free_length_ratio"] is None
    # the shipped model: the same confidence, less of the source covered and a fitted line
    # far shorter than the model's own free translation, is less likely right
    model = load_model()
    base = {"logprob": -0.5, "entropy": 1.8, "free_logprob": -0.5, "agreement": 0.8,
            "source_length": math.log(len(source)), "short": 0.0}  # fmt: skip
    good = model.score({**base, "free_length_ratio": 0.0, "coverage_penalty": -0.1})
    bad = model.score({**base, "free_length_ratio": -0.6, "coverage_penalty": -1.0})
    assert bad < good - 0.1
