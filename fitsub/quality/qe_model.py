"""The quality score's calibrated model: which signals it reads, its weights and thresholds, and
the `model.json` file they ship in (`fitsub.quality.score` computes the signals and applies it).

`QualityModel` standardises each signal with the calibration data's mean and deviation
(clipped to its calibrated range), combines them by logistic regression into P(not wrong), and
holds the flag thresholds: per target language (`thresholds`), and per register
(`register_thresholds`: a threshold per band of the source's length in words, issue 58; the
score is recentred on its band by `register_shift`, a per-band intercept). `parse_model`
checks a model file before it is used (every weight finite, every threshold in [0, 1], every
signal known); `load_model` reads one, by default the one shipped beside this module.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from fitsub.errors import InputError
from fitsub.quality.links import LINK_SIGNALS
from fitsub.quality.target import TARGET_SIGNALS

MODEL_FILE = Path(__file__).with_name("model.json")

# the source-side signals of the forced pass (`source_signals`)
SOURCE_SIGNALS = (
    "source_pieces",
    "source_rarest",
    "uncovered",
    "coverage_penalty",
    "coverage_deviation",
    "attention_entropy",
)


FEATURES: tuple[str, ...] = (
    "logprob",
    "min_logprob",
    "entropy",
    "dropout_std",
    "free_logprob",
    "agreement",
    "length_ratio",
    "source_length",
    "copied",
    "short",
    "free_length_ratio",
    *SOURCE_SIGNALS,
    *TARGET_SIGNALS,
    *LINK_SIGNALS,
)


def feature_value(name: str, signals: Mapping[str, float | None]) -> float | None:
    """Signal `name`, or the product of the two signals of an interaction `a*b` (None when a
    factor is missing)."""
    value: float | None = 1.0
    for part in name.split("*"):
        x = signals.get(part)
        if x is None or value is None or not math.isfinite(x):
            return None
        value *= x
    return value


def known_feature(name: str) -> bool:
    """Whether `name` is a signal of `FEATURES` or an interaction `a*b` of two of them."""
    parts = name.split("*")
    return len(parts) <= 2 and all(p in FEATURES for p in parts)


@dataclass(frozen=True)
class QualityModel:
    """The calibrated combination: standardisation, logistic weights and the flag threshold."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]  # weights of P(wrong), one per feature
    intercept: float
    threshold: float  # flag `low-quality` under this score
    dropout_passes: int = 10
    about: str = ""
    thresholds: tuple[tuple[str, float], ...] = ()  # per target language, calibrated there
    # each feature's range in the calibration data (1st to 99th percentile): a value outside is
    # taken at the bound, so that the linear model never extrapolates (a 4-character source
    # counts as the shortest ones calibrated, not as far shorter); empty: no clipping
    low: tuple[float, ...] = ()
    high: tuple[float, ...] = ()

    # per target language, the threshold by the source's length in words (`source_words`):
    # ((max words, threshold), ...) in increasing max words, the last band taking every longer
    # source; a talk's long sentence and a short dialogue cue are not flagged at one threshold
    register_thresholds: tuple[tuple[str, tuple[tuple[int, float], ...]], ...] = ()

    def threshold_for(self, lang: str | None) -> float:
        """The flag threshold for target language `lang` (`de`, `de-AT`): its own when it was
        calibrated, else the shared one."""
        return dict(self.thresholds).get(_base_lang(lang), self.threshold)

    def threshold_at(self, lang: str | None, words: int) -> float:
        """The threshold the raw score of a source of `words` words is held to in `lang`: its
        length band's (`register_thresholds`), else the language's (`threshold_for`)."""
        bands = dict(self.register_thresholds).get(_base_lang(lang), ())
        for max_words, cut in bands:
            if words <= max_words:
                return cut
        return bands[-1][1] if bands else self.threshold_for(lang)

    def register_shift(self, lang: str | None, words: int | None) -> float:
        """What the register moves the score's logit of P(wrong) by: logit(band's threshold) -
        logit(the language's), so that the shifted score is under the language's threshold
        exactly when the raw score is under its band's (0: no bands, or no length given)."""
        if words is None or not self.register_thresholds:
            return 0.0
        return _logit(self.threshold_at(lang, words)) - _logit(self.threshold_for(lang))

    def reads(self, signal: str) -> bool:
        """Whether a feature of the model is `signal` or an interaction with it."""
        return any(signal in name.split("*") for name in self.features)

    def score(
        self, signals: Mapping[str, float | None], lang: str | None = None, words: int | None = None
    ) -> float:
        """P(not wrong) in [0, 1] of one segment's signals (missing ones at their mean); with
        the target language and the source's length in words, recentred on the register
        (`register_shift`)."""
        z = self.intercept + self.register_shift(lang, words)
        n = len(self.features)
        low = self.low or (-math.inf,) * n
        high = self.high or (math.inf,) * n
        rows = zip(self.features, self.mean, self.scale, self.coef, low, high, strict=True)
        for name, mu, sd, w, lo, hi in rows:
            x = feature_value(name, signals)
            if x is not None:
                z += w * (min(max(x, lo), hi) - mu) / (sd or 1.0)
        return 1.0 - _sigmoid(z)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (the `model.json` layout)."""
        return {
            **dataclasses.asdict(self),
            "thresholds": dict(self.thresholds),
            "register_thresholds": {k: [list(b) for b in v] for k, v in self.register_thresholds},
        }


def _base_lang(lang: str | None) -> str:
    return (lang or "").strip().lower().replace("_", "-").split("-")[0]


def source_words(source: str) -> int:
    """The source's length in words (whitespace-separated), what `register_thresholds` bands."""
    return len(source.split())


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def parse_model(data: Any, path: Path | str) -> QualityModel:
    """A `QualityModel` from decoded JSON; InputError naming `path` when it is not one."""
    try:
        feats = tuple(str(f) for f in data["features"])
        n = len(feats)
        model = QualityModel(
            features=feats,
            mean=tuple(float(x) for x in data["mean"]),
            scale=tuple(float(x) for x in data["scale"]),
            coef=tuple(float(x) for x in data["coef"]),
            intercept=float(data["intercept"]),
            threshold=float(data["threshold"]),
            dropout_passes=int(data.get("dropout_passes", 0)),
            about=str(data.get("about", "")),
            thresholds=tuple(
                (str(k), float(v)) for k, v in dict(data.get("thresholds", {})).items()
            ),
            low=tuple(float(x) for x in data.get("low", ())),
            high=tuple(float(x) for x in data.get("high", ())),
            register_thresholds=tuple(
                (str(k), tuple((int(w), float(t)) for w, t in v))
                for k, v in dict(data.get("register_thresholds", {})).items()
            ),
        )
    except (KeyError, TypeError, ValueError) as err:
        raise InputError(Path(path), f"not a quality model ({err})") from None
    if not (len(model.mean) == len(model.scale) == len(model.coef) == n) or any(
        len(bound) not in (0, n) for bound in (model.low, model.high)
    ):
        raise InputError(Path(path), "not a quality model (lists of different lengths)")
    numbers = (*model.mean, *model.scale, *model.coef, model.intercept, *model.low, *model.high)
    if not all(math.isfinite(x) for x in numbers):
        raise InputError(Path(path), "not a quality model (a weight is not a finite number)")
    bands = [b for _, v in model.register_thresholds for b in v]
    cuts = (model.threshold, *(t for _, t in model.thresholds), *(t for _, t in bands))
    if any(
        not v or [w for w, _ in v] != sorted({w for w, _ in v})
        for _, v in model.register_thresholds
    ):
        raise InputError(Path(path), "not a quality model (register bands not in increasing words)")
    if not all(0.0 <= t <= 1.0 for t in cuts):
        raise InputError(Path(path), "not a quality model (a threshold outside [0, 1])")
    unknown = {f for f in feats if not known_feature(f)}
    if unknown:
        raise InputError(Path(path), f"unknown quality signal(s): {', '.join(sorted(unknown))}")
    return model


def load_model(path: Path | None = None) -> QualityModel:
    """The quality model at `path` (default: the one shipped beside this module)."""
    if path is None:
        return _shipped()
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputError(Path(path), f"cannot read the quality model: {err}") from None
    return parse_model(data, path)


@cache
def _shipped() -> QualityModel:
    return parse_model(json.loads(MODEL_FILE.read_text(encoding="utf-8")), MODEL_FILE)
