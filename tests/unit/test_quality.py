"""Quality estimation (`fitsub.quality`): forced-decoding scores, the calibrated combination,
the `low-quality` flag and the pipeline step that gives each segment its score."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import pytest
import torch
from doubles import ToyBackend
from factories import tiny_checkpoint

from fitsub.backend import OutputScore, Request, ScoresOutputs
from fitsub.budget import limits_for
from fitsub.errors import InputError
from fitsub.formats import parse_document
from fitsub.nmt.backend import NMTBackend
from fitsub.pipeline import TranslateOptions, translate_document
from fitsub.pipeline.estimate import with_quality
from fitsub.quality import (
    FEATURES,
    NO_SCORING,
    QualityModel,
    load_model,
    segment_signals,
    text_signals,
)
from fitsub.quality_flags import LOW_QUALITY

SRT = """1
00:00:01,000 --> 00:00:03,000
Good morning, my friend.

2
00:00:04,000 --> 00:00:06,000
Where is the house?
"""


def _opts(**kw: object) -> TranslateOptions:
    return TranslateOptions(lang="it", limits=limits_for("it"), **kw)  # type: ignore[arg-type]


def _copied_model(threshold: float) -> QualityModel:
    """P(wrong) rises with the share of copied words."""
    return QualityModel(("copied",), (0.5,), (0.25,), (4.0,), 0.0, threshold)


class ScoringToy(ToyBackend):
    """`ToyBackend` that scores every output with log-probability -1 a token."""

    def score_outputs(
        self, requests: Sequence[Request], outputs: Sequence[str], dropout_passes: int = 0
    ) -> list[OutputScore]:
        return [OutputScore((-1.0,) * (len(o.split()) + 1), (1.0,) * (len(o.split()) + 1))
                for o in outputs]  # fmt: skip


def test_the_shipped_model_loads_and_scores_in_zero_one() -> None:
    model = load_model()
    assert set(model.features) <= set(FEATURES)
    assert 0.0 < model.threshold < 1.0
    good = {"logprob": -0.2, "min_logprob": -1.0, "entropy": 1.0, "free_logprob": -0.2,
            "agreement": 1.0, "length_ratio": 0.0, "source_length": 4.5, "copied": 0.0}  # fmt: skip
    bad = {**good, "logprob": -2.5, "min_logprob": -9.0, "free_logprob": -2.5, "agreement": 0.2}
    q_good, q_bad = model.score(good), model.score(bad)
    assert 0.0 <= q_bad < q_good <= 1.0


def test_missing_signals_take_their_mean() -> None:
    model = _copied_model(0.5)
    assert model.score({}) == pytest.approx(0.5)
    assert model.score({"copied": None}) == pytest.approx(0.5)
    assert model.score({"copied": 1.0}) < 0.5 < model.score({"copied": 0.0})


def test_a_foreign_or_corrupt_model_file_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "q.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match="cannot read the quality model"):
        load_model(bad)
    bad.write_text(json.dumps({"features": ["x"], "mean": [0], "scale": [1], "coef": [1],
                               "intercept": 0, "threshold": 0.5}), encoding="utf-8")  # fmt: skip
    with pytest.raises(InputError, match="unknown quality signal"):
        load_model(bad)
    bad.write_text(json.dumps({"features": ["copied"]}), encoding="utf-8")
    with pytest.raises(InputError, match="not a quality model"):
        load_model(bad)


def test_text_signals() -> None:
    s = text_signals("Good morning.", "Buongiorno.", "Buongiorno.")
    assert s["agreement"] == 1.0 and s["copied"] == 0.0
    assert s["length_ratio"] == pytest.approx(abs(math.log(11 / 13)))
    assert text_signals("Good morning.", "Good morning.", None)["agreement"] is None
    sig = segment_signals("a", "b", None, OutputScore((-1.0, -3.0), (0.5, 1.5), (-2.0, -1.0)))
    assert sig["logprob"] == -2.0 and sig["min_logprob"] == -3.0 and sig["entropy"] == 1.0
    assert sig["dropout_std"] == pytest.approx(0.5)
    assert sig["free_logprob"] is None


def test_pipeline_gives_every_translated_cue_a_score_and_flags_the_low_ones() -> None:
    doc = parse_document(SRT, "srt")
    res = translate_document(doc, ScoringToy(), _opts(quality=False))
    assert all(s.quality is None for s in res.segments)
    # the toy copies unknown words ("Goodino"): a copied share of 0 here; flag everything
    # under a threshold of 1.0, nothing under 0.0
    high = with_quality(res, ScoringToy(), _copied_model(1.0))
    assert all(s.quality is not None and 0.0 <= s.quality <= 1.0 for s in high.segments)
    assert all(LOW_QUALITY in [f.name for f in s.flags] for s in high.segments)
    low = with_quality(res, ScoringToy(), _copied_model(0.0))
    assert not any(LOW_QUALITY in [f.name for f in s.flags] for s in low.segments)


def test_a_backend_that_cannot_score_gets_no_score_said_once() -> None:
    doc = parse_document(SRT, "srt")
    res = translate_document(doc, ToyBackend(), _opts())
    assert not isinstance(ToyBackend(), ScoresOutputs)
    assert all(s.quality is None for s in res.segments)
    assert res.warnings.count(NO_SCORING) == 1


@pytest.fixture(scope="module")
def nmt(tmp_path_factory: pytest.TempPathFactory) -> NMTBackend:
    torch.set_num_threads(1)
    path = tiny_checkpoint(tmp_path_factory.mktemp("q"), dropout=0.1)
    return NMTBackend(path, device="cpu", beam=2, threads=1)


def test_forced_decoding_gives_the_search_its_own_score(nmt: NMTBackend) -> None:
    reqs = [Request("the cat is on the table"), Request("hello")]
    cands = nmt.translate(reqs, n_best=1)
    scores = nmt.score_outputs(reqs, [c[0].text for c in cands])
    for c, sc in zip(cands, scores, strict=True):
        ids = nmt.tokenizer.encode(c[0].text)
        assert len(sc.token_logprobs) == len(ids) + 1  # the end of sentence is scored
        assert all(lp <= 0.0 for lp in sc.token_logprobs)
        assert all(e >= 0.0 for e in sc.entropies)
        assert sum(sc.token_logprobs) == pytest.approx(c[0].score, abs=1e-3)
    assert nmt.score_outputs([Request("")], ["x"])[0].token_logprobs == ()


def test_dropout_passes_spread_and_do_not_depend_on_the_batch(nmt: NMTBackend) -> None:
    reqs = [Request("the cat is on the table"), Request("hello there")]
    outs = ["il gatto", "ciao"]
    both = nmt.score_outputs(reqs, outs, dropout_passes=4)
    alone = nmt.score_outputs(reqs[1:], outs[1:], dropout_passes=4)
    assert len(both[1].dropout_means) == 4
    assert len(set(both[1].dropout_means)) > 1  # dropout on: the passes differ
    assert both[1].dropout_means == alone[0].dropout_means
    assert not nmt.model.training  # back in evaluation mode
    again = nmt.translate(reqs[:1])[0][0].text
    assert again == nmt.translate(reqs[:1])[0][0].text


def test_each_calibrated_language_has_its_own_threshold() -> None:
    model = load_model()
    assert {"it", "de", "fr", "es"} <= {lang for lang, _ in model.thresholds}
    assert model.threshold_for("de-AT") == dict(model.thresholds)["de"]
    assert model.threshold_for("pt") == model.threshold_for(None) == model.threshold
    shared = QualityModel(("copied",), (0.5,), (0.25,), (4.0,), 0.0, 0.0, thresholds=(("it", 1.0),))
    doc = parse_document(SRT, "srt")
    res = translate_document(doc, ScoringToy(), _opts(quality=False))
    flagged_it = with_quality(res, ScoringToy(), shared, lang="it")
    flagged_de = with_quality(res, ScoringToy(), shared, lang="de")
    assert all(LOW_QUALITY in [f.name for f in s.flags] for s in flagged_it.segments)
    assert not any(LOW_QUALITY in [f.name for f in s.flags] for s in flagged_de.segments)
