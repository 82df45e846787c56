"""Quality estimation without a reference: a score in [0, 1] per translated segment.

Unsupervised signals of the model's own confidence (Fomicheva et al. 2020, "Unsupervised
Quality Estimation for Neural Machine Translation", TACL 8) and of the output itself, combined
by a logistic regression fitted on dev lines a reader marked (`experiments/quality-estimation/qe_marks.py`;
the coefficients ship in `model.json` beside this module, docs/quality.md explains them):

* `logprob`: the length-normalised log-probability of the fitted output under the model,
  forced decoding given the source (Fomicheva et al.'s TP, eq. 1: (1/T) sum_t log p(y_t |
  y_<t, x)) and no length: a model that decodes without one is scored as its unconstrained pass
  translates, on CTranslate2 where that pass runs (`fitsub.nmt.ct2_score`); a model that always
  takes a length is given the output's own (`scoring_request`, `NMTBackend.score_outputs`);
* `min_logprob`: the least likely token's log-probability (one invented word shows there);
* `entropy`: the mean entropy of the next-token distributions along the output (Softmax-Ent);
* `dropout_std`: the standard deviation of TP over `dropout_passes` Monte-Carlo dropout passes
  on the same output (D-Var, eq. 3, as a deviation: the model's uncertainty);
* `free_logprob`: the same TP of the unconstrained translation, without a length: how sure the
  model is of this source at all (a source it cannot translate scores low however it is fitted);
* `agreement`: sentence chrF between the fitted and the unconstrained translation, over 100
  (1.0 when they agree; none when the unconstrained one was not computed);
* `length_ratio`: |log((output characters + 10) / (source characters + 10))| (too short or too
  long; the 10 characters of smoothing keep "Why?" -> "Perché?" from looking 75 % too long);
* `source_length`: log of the source characters (short lines are harder to get right);
* `copied`: the share of output words copied from the source (`fitsub.quality.flags.copied_share`);
* `free_length_ratio`: log((fitted + 10) / (unconstrained + 10) characters), signed: a fitted
  output much shorter than the model's own free translation has likely lost content;
* `short`: 1.0 when the source has at most `SHORT_CHARS` characters (a subtitle-length line),
  else 0.0; a model feature `a*b` is the product of two signals (`logprob*short`: the weight of
  the log-probability on short lines), so that a signal can count differently on short lines
  (on a short output the mean log-probability of a few tokens is noisier, and a short correct
  line is often a paraphrase of the reference);
* `source_pieces`, `source_rarest`: how rare the English source is to the model (tokenizer
  pieces per source word; the rarest source word's unigram log-probability); `uncovered`,
  `coverage_penalty`, `coverage_deviation`, `attention_entropy`: how the output's
  cross-attention covers the source (Tu et al. 2016; Wu et al. 2016; Rikters & Fishel 2017),
  read off the same forced pass (`source_signals`, `fitsub.nmt.attention`);
* the target-side signals of `fitsub.quality.target`: tokenizer pieces per output word, names,
  numbers or a question lost from the source (`output_pieces`, `mismatch`), how common the output's words are in the model's lexicon, its least likely word;
* `src_unlinked`: the source's content words with no counterpart in the output, by the model's
  word links (`fitsub.quality.links`: fluent output that lost part of its source).

The score is P(not wrong) = 1 - sigmoid(b + sum_i w_i z_i), z_i the signal standardised with
the calibration data's mean and deviation; "wrong" (the calibration label) is a reader's mark
on dev lines: the line must be retranslated (meaning wrong or lost, nonsense, left in English),
not merely edited (experiments/quality-estimation/qe_marks.py; the earlier calibrations'
sentence-chrF label agreed with that reading on fewer than half of the lines). A missing signal
(no unconstrained translation, a backend that cannot score) takes its calibration mean (z = 0).
A segment whose score is under the threshold of its target language (`thresholds`, else the
shared `threshold`) gets the flag `low-quality`. Per register (issue 58): where the model gives a
language `register_thresholds` (a threshold per band of the source's length in words: a short
dialogue cue, a talk's long sentence), `estimate` recentres each score on its band
(`QualityModel.register_shift`, a per-band intercept of the regression), so that the language's
threshold flags it exactly when the raw score is under its band's threshold; the shown score,
`--quality-threshold` and the review page's red all read that recentred score. A backend without `score_outputs` gets no
score at all (None), said once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import fmean, pstdev

from fitsub.backend import OutputScore, Request, ScoresOutputs, TranslationBackend
from fitsub.quality.flags import Flag, copied_share
from fitsub.quality.lexicon import Lexicon
from fitsub.quality.links import WordLinks, link_signals
from fitsub.quality.qe_model import SOURCE_SIGNALS, QualityModel, load_model, source_words
from fitsub.quality.registry import LOW_QUALITY
from fitsub.quality.target import target_signals
from fitsub.units import char_length

NO_SCORING = "quality: this model cannot score a translation (no forced decoding); no quality score"

SHORT_CHARS = 40  # a source of at most this many characters is a short (subtitle-length) line
LENGTH_SMOOTHING = 10  # characters added to both lengths of `length_ratio`
NAMED_UNLINKED = 4  # source words without a counterpart the `low-quality` flag names
UNCOVERED = 0.5  # a source piece whose coverage (summed attention) is under this: not covered


def sentence_chrf(hyp: str, ref: str) -> float:
    """Sentence chrF (sacrebleu's chrF2, 0-100) of `hyp` against `ref`."""
    from fitsub.metrics.reference import sentence_chrf as chrf

    return chrf(hyp, ref)


def score_signals(score: OutputScore | None) -> dict[str, float | None]:
    """The model-confidence signals of one forced-decoding score (None: not scored)."""
    if score is None or not score.token_logprobs:
        return dict.fromkeys(("logprob", "min_logprob", "entropy", "dropout_std", *SOURCE_SIGNALS))
    lp = score.token_logprobs
    return {
        "logprob": fmean(lp),
        "min_logprob": min(lp),
        "entropy": fmean(score.entropies) if score.entropies else None,
        "dropout_std": pstdev(score.dropout_means) if len(score.dropout_means) > 1 else None,
        **source_signals(score),
    }


def source_signals(score: OutputScore) -> dict[str, float | None]:
    """How rare the source is and how the output attends to it (`fitsub.nmt.attention`), from
    the coverage C_j = sum_t a_tj of each source piece j (Tu et al. 2016, "Modeling Coverage
    for Neural Machine Translation", eq. 5) over the output's attention a (T, S):

    * `source_pieces`: mean tokenizer pieces per source word (a rare word is split in many);
    * `source_rarest`: the lowest unigram log-probability of a source word (the rarest one);
    * `uncovered`: the share of source pieces with C_j under `UNCOVERED`;
    * `coverage_penalty`: (1/S) sum_j log(min(C_j, 1)), the coverage penalty of Wu et al. 2016
      (GNMT, eq. 14) divided by the source length (0: every piece attended to at least once);
    * `coverage_deviation`: (1/S) sum_j log(1 + (1 - C_j)^2), Rikters & Fishel 2017
      ("Confidence through Attention", CDP): pieces attended to far less or far more than once;
    * `attention_entropy`: the mean entropy of an output token's attention over the source
      (their AP_out: a token that attends everywhere is not translating anything).

    None where the backend gave no such figures."""
    attn, pieces = score.attention, score.word_pieces
    cover = [sum(col) for col in zip(*attn, strict=True)] if attn else []
    ent = [-sum(a * math.log(a) for a in row if a > 0) for row in attn]
    return {
        "source_pieces": fmean(pieces) if pieces else None,
        "source_rarest": min(score.word_logprobs) if score.word_logprobs else None,
        "uncovered": fmean(c < UNCOVERED for c in cover) if cover else None,
        "coverage_penalty": fmean(math.log(min(max(c, 1e-6), 1.0)) for c in cover)
        if cover
        else None,
        "coverage_deviation": fmean(math.log1p((1 - c) ** 2) for c in cover) if cover else None,
        "attention_entropy": fmean(ent) if ent else None,
    }


def text_signals(source: str, fitted: str, unconstrained: str | None) -> dict[str, float | None]:
    """The signals read off the texts alone."""
    n_src = max(1, char_length(source))
    n_out = max(1, char_length(fitted))
    agreement = free_ratio = None
    if unconstrained is not None:
        agreement = 1.0 if unconstrained == fitted else sentence_chrf(fitted, unconstrained) / 100
        n_free = max(1, char_length(unconstrained))
        free_ratio = math.log((n_out + LENGTH_SMOOTHING) / (n_free + LENGTH_SMOOTHING))
    return {
        "free_length_ratio": free_ratio,
        "agreement": agreement,
        "length_ratio": abs(math.log((n_out + LENGTH_SMOOTHING) / (n_src + LENGTH_SMOOTHING))),
        "source_length": math.log(n_src),
        "copied": copied_share(source, fitted),
        "short": 1.0 if n_src <= SHORT_CHARS else 0.0,
    }


def segment_signals(
    source: str,
    fitted: str,
    unconstrained: str | None,
    score: OutputScore | None,
    free_score: OutputScore | None = None,
    lexicon: Lexicon | None = None,
    tgt_lang: str | None = None,
    links: WordLinks | None = None,
) -> dict[str, float | None]:
    """Every signal of `FEATURES` for one segment (`free_score`: the unconstrained output's;
    `lexicon`: the model's target lexicon; `tgt_lang`: the target language, for numbers;
    `links`: the model's word links, `fitsub.quality.links`)."""
    free_lp = fmean(free_score.token_logprobs) if free_score and free_score.token_logprobs else None
    return {
        **score_signals(score),
        "free_logprob": free_lp,
        **text_signals(source, fitted, unconstrained),
        **target_signals(source, fitted, score=score, lexicon=lexicon, tgt_lang=tgt_lang),
        **link_signals(source, fitted, links),
    }


def scoring_request(source: str, fitted: str) -> Request:
    """The request a fitted output is scored under: its source, asking for its own length (read
    only by a model that always takes a length; `NMTBackend.score_outputs` scores the others
    without one)."""
    return Request(source, target_chars=max(1, char_length(fitted)), lexicon=True)


def score_texts(
    backend: TranslationBackend,
    sentences: Sequence[tuple[str, str, str | None]],
    dropout_passes: int,
    with_free: bool = True,
) -> list[tuple[OutputScore, OutputScore | None]] | None:
    """The backend's forced-decoding scores of each (source, fitted, unconstrained) sentence:
    the fitted output's (given its length, with `dropout_passes`) and, `with_free`, the
    unconstrained one's (no length; None without one or without `with_free`: a second forced pass
    that only `free_logprob` reads). None: the backend cannot score."""
    if not isinstance(backend, ScoresOutputs):
        return None
    reqs = [scoring_request(s, f) for s, f, _ in sentences]
    fitted = backend.score_outputs(reqs, [f for _, f, _ in sentences], dropout_passes)
    free_at = [i for i, (_, _, u) in enumerate(sentences) if u is not None and with_free]
    free = (
        backend.score_outputs(
            [Request(sentences[i][0]) for i in free_at], [sentences[i][2] or "" for i in free_at]
        )
        if free_at
        else []
    )
    by_index: dict[int, OutputScore] = dict(zip(free_at, free, strict=True))
    return [(sc, by_index.get(i)) for i, sc in enumerate(fitted)]


def low_quality_flag(quality: float, threshold: float, unlinked: Sequence[str] = ()) -> Flag:
    """The flag of a segment scored under the threshold, naming the source words the output
    has no counterpart for (`fitsub.quality.links`; the first `NAMED_UNLINKED`), where to look."""
    detail = f"quality {quality:.2f} < {threshold:.2f}"
    if unlinked:
        more = ", ..." if len(unlinked) > NAMED_UNLINKED else ""
        detail += f"; nothing for {', '.join(unlinked[:NAMED_UNLINKED])}{more}"
    return Flag(LOW_QUALITY, detail)


def estimate(
    backend: TranslationBackend,
    sentences: Sequence[tuple[str, str, str | None]],
    model: QualityModel | None = None,
    lang: str | None = None,
) -> list[float] | None:
    """The quality of each (source, fitted, unconstrained) sentence into target language
    `lang`; None when the backend cannot score outputs (text signals alone would not be the
    calibrated score). The backend's lexicon and word links (`TranslationBackend.lexicon`,
    `.links`), when it has them, give the lexicon and link signals."""
    model = model or load_model()
    lexicon, links = backend.lexicon, backend.links
    live = [i for i, (s, f, _) in enumerate(sentences) if s.strip() and f.strip()]
    scores = score_texts(  # no pass without a use: the unconstrained output's only if read
        backend, [sentences[i] for i in live], model.dropout_passes, model.reads("free_logprob")
    )
    if scores is None:
        return None
    out = [0.0] * len(sentences)  # an empty output for a source with words is wrong
    for i, (sc, free) in zip(live, scores, strict=True):
        s, f, u = sentences[i]
        signals = segment_signals(
            source=s, fitted=f, unconstrained=u, score=sc, free_score=free,
            lexicon=lexicon, tgt_lang=lang, links=links,
        )  # fmt: skip
        out[i] = model.score(signals, lang, source_words(s))
    for i, (s, _, _) in enumerate(sentences):
        if not s.strip():
            out[i] = 1.0
    return out
