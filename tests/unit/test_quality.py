"""Quality estimation (`fitsub.quality.score`): forced-decoding scores, the calibrated combination,
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
from fitsub.quality.qe_model import FEATURES, QualityModel, feature_value, load_model
from fitsub.quality.registry import LOW_QUALITY
from fitsub.quality.score import (
    NO_SCORING,
    SHORT_CHARS,
    low_quality_flag,
    segment_signals,
    text_signals,
)

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
    assert all(part in FEATURES for f in model.features for part in f.split("*"))
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
    assert s["length_ratio"] == pytest.approx(abs(math.log(21 / 23)))
    # a few characters more on a very short line is no large ratio
    assert text_signals("Why?", "Perché?", None)["length_ratio"] < 0.25
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


def test_the_shipped_threshold_is_one_half_and_a_model_may_set_one_per_language() -> None:
    # shipped: flag a line more likely to need retranslating than not; Italian under 0.65, the
    # recall its GPU-trained model's threshold has kept (89 % of its marked wrong lines, with
    # the score refitted without a length, docs/results/quality.md)
    model = load_model()
    assert model.threshold == 0.5 and dict(model.thresholds) == {"it": 0.65}
    assert model.threshold_for("it-IT") == 0.65
    assert model.threshold_for("de-AT") == model.threshold_for("pt") == model.threshold_for(None)
    shared = QualityModel(("copied",), (0.5,), (0.25,), (4.0,), 0.0, 0.0, thresholds=(("it", 1.0),))
    doc = parse_document(SRT, "srt")
    res = translate_document(doc, ScoringToy(), _opts(quality=False))
    flagged_it = with_quality(res, ScoringToy(), shared, lang="it")
    flagged_de = with_quality(res, ScoringToy(), shared, lang="de")
    assert all(LOW_QUALITY in [f.name for f in s.flags] for s in flagged_it.segments)
    assert not any(LOW_QUALITY in [f.name for f in s.flags] for s in flagged_de.segments)


def _confident(source_chars: int) -> dict[str, float | None]:
    """The signals of a correct line the model is sure of: its own unconstrained translation,
    likely tokens, nothing copied, about the source's length and the unconstrained one's,
    every source piece attended to."""
    return {"logprob": -0.15, "min_logprob": -0.9, "entropy": 0.9, "free_logprob": -0.15,
            "agreement": 1.0, "length_ratio": 0.05, "source_length": math.log(source_chars),
            "copied": 0.0, "short": 1.0 if source_chars <= SHORT_CHARS else 0.0,
            "free_length_ratio": 0.0, "coverage_penalty": -0.1}  # fmt: skip


@pytest.mark.parametrize("lang", ["it", "de", "fr", "es"])
def test_a_short_confident_line_is_not_flagged_by_the_shipped_model(lang: str) -> None:
    # "I love this city." -> "Amo questa città.": the short lines of a subtitle file are not
    # flagged for being short (the model before issue 28's short-line calibration flagged
    # every line under about 25 characters, however sure the model was)
    model = load_model()
    for chars in (17, 25, 40, 41, 60, 100):
        assert model.score(_confident(chars)) >= model.threshold_for(lang), chars
    # one- and two-word lines ("Why?", "Fine.") are wrong about half the time on dev data and
    # the signals say little there: scored near the threshold, never far under it, and no
    # lower than the shortest calibrated length (no extrapolation)
    assert model.score(_confident(4)) == pytest.approx(model.score(_confident(8)))
    assert model.score(_confident(4)) > model.threshold_for(lang) - 0.1


@pytest.mark.parametrize("lang", ["it", "de", "fr", "es"])
def test_a_short_line_the_model_is_unsure_of_is_flagged(lang: str) -> None:
    # "Thanks." -> "Razzi": unlikely tokens, flat distributions, unlike the unconstrained output
    model = load_model()
    unsure = {**_confident(7), "logprob": -2.5, "min_logprob": -8.0, "entropy": 3.5,
              "free_logprob": -1.5, "agreement": 0.1}  # fmt: skip
    assert model.score(unsure) < model.threshold_for(lang)


def test_hesitation_english_left_in_or_a_name_lost_lower_the_shipped_score() -> None:
    # the reader-marked calibration: each of these made a line more likely to need retranslating
    # (src_unlinked: three source words with no counterpart in the output, `fitsub.quality.links`)
    model = load_model()
    base = _confident(30)
    worse_ones = (
        {"entropy": 2.5},
        {"english_share": 0.5},
        {"mismatch": 2.0},
        {"src_unlinked": 3.0},
    )
    for worse in worse_ones:
        assert model.score({**base, **worse}) < model.score(base) - 0.02, worse


def test_the_low_quality_flag_names_the_source_words_without_a_counterpart() -> None:
    assert low_quality_flag(0.31, 0.5).detail == "quality 0.31 < 0.50"
    flag = low_quality_flag(0.2, 0.5, ["fifty", "thousand"])
    assert (
        flag.name == "low-quality"
        and flag.detail == "quality 0.20 < 0.50; nothing for fifty, thousand"
    )
    many = low_quality_flag(0.1, 0.5, ["a", "b", "c", "d", "e"]).detail
    assert many.endswith("nothing for a, b, c, d, ...")


def test_the_short_signal_and_interactions() -> None:
    assert text_signals("Why?", "Perché?", "Perché?")["short"] == 1.0
    assert text_signals("x" * (SHORT_CHARS + 1), "y", None)["short"] == 0.0
    sig = {"logprob": -0.5, "short": 1.0, "agreement": None}
    assert feature_value("logprob*short", sig) == -0.5
    assert feature_value("logprob*short", {**sig, "short": 0.0}) == 0.0
    assert feature_value("agreement*short", sig) is None
    # a model on a short-line interaction: the weight counts on short lines only
    model = QualityModel(("logprob*short",), (0.0,), (1.0,), (-2.0,), 0.0, 0.5)
    assert model.score({"logprob": -1.0, "short": 0.0}) == pytest.approx(0.5)
    assert model.score({"logprob": -1.0, "short": 1.0}) < 0.5


def test_signals_are_clipped_to_the_calibrated_range() -> None:
    # the linear model does not extrapolate: a source shorter than any calibrated counts as the
    # shortest calibrated one
    model = QualityModel(
        ("source_length",), (4.0,), (1.0,), (-1.0,), 0.0, 0.5, low=(2.3,), high=(5.5,)
    )
    at_floor = model.score({"source_length": 2.3})
    assert model.score({"source_length": math.log(4)}) == pytest.approx(at_floor)
    assert model.score({"source_length": 9.0}) == pytest.approx(model.score({"source_length": 5.5}))
    assert model.score({"source_length": 3.0}) > at_floor


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"low": [0.0, 1.0]}, "different lengths"),
        ({"features": ["copied*nope"]}, "unknown quality signal"),
        ({"features": ["copied*short*logprob"]}, "unknown quality signal"),
        ({"coef": [float("nan")]}, "not a finite number"),
        ({"threshold": 1.5}, "outside"),
        ({"thresholds": {"it": -0.1}}, "outside"),
    ],
)
def test_a_model_file_with_bad_values_is_one_clear_error(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    good = {"features": ["copied"], "mean": [0.1], "scale": [0.2], "coef": [1.0],
            "intercept": 0.0, "threshold": 0.5}  # fmt: skip
    path = tmp_path / "q.json"
    path.write_text(json.dumps(good), encoding="utf-8")
    assert load_model(path).features == ("copied",)
    path.write_text(json.dumps({**good, **change}), encoding="utf-8")
    with pytest.raises(InputError, match=message):
        load_model(path)


class CountingToy(ScoringToy):
    """`ScoringToy` that records the requests of every forced pass."""

    def __init__(self) -> None:
        super().__init__()
        self.passes: list[list[Request]] = []

    def score_outputs(
        self, requests: Sequence[Request], outputs: Sequence[str], dropout_passes: int = 0
    ) -> list[OutputScore]:
        self.passes.append(list(requests))
        return super().score_outputs(requests, outputs, dropout_passes)


@pytest.mark.parametrize("reads_free", [False, True])
def test_the_unconstrained_output_is_scored_only_when_the_model_reads_it(
    reads_free: bool,
) -> None:
    from fitsub.quality.score import estimate

    features = ("entropy", "free_logprob*short") if reads_free else ("entropy", "copied")
    model = QualityModel(features, (1.0, 0.0), (1.0, 1.0), (1.0, 1.0), 0.0, 0.5, dropout_passes=0)
    assert model.reads("free_logprob") is reads_free
    toy = CountingToy()
    sentences = [("Good morning.", "Buongiorno.", "Buon giorno."), ("Where?", "Dove?", None)]
    scores = estimate(toy, sentences, model, "it")
    assert scores is not None and len(scores) == 2
    # the fitted outputs, given their length; then the one unconstrained output, without one
    assert [len(p) for p in toy.passes] == ([2, 1] if reads_free else [2])
    assert all(r.target_chars is not None for r in toy.passes[0])
    if reads_free:
        assert toy.passes[1][0].target_chars is None
    assert not load_model().reads("free_logprob")  # the shipped model: no second pass
