"""Length metrics (pure functions; lengths from `fitsub.units` only).

- LR (Lakew et al. 2019, "Controlling the Output Length of NMT"): the mean of the per-sentence
  length ratios output/source and output/reference, with their (population) standard deviation.
- VAR (Takase & Okazaki 2019, eq. 8; Oka et al. 2020, eq. 4):
  VAR = 1/n * sum_i |l_i - len_i|^2, with len_i the requested length (Takase) or the
  reference length (Oka).
- LC (IWSLT 2022 isometric SLT task): a translation is compliant when its length in characters
  without spaces is within +-10 % of its source's, |out - src| <= 0.10 * src (bounds included);
  a source of at most 10 characters is always compliant.
- fit: the share of outputs within their budget, char_length(out) <= floor(ratio * char_length(src)).
- Subtitle compliance: shares of cues within characters per line, lines and reading speed.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from fitsub.units import char_length, chars_in_time, chars_no_space, ratio_band, ratio_chars_floor

# IWSLT 2022 isometric task: sources this short (chars without spaces) are always compliant.
LC_SHORT_SOURCE = 10
LC_LOW, LC_HIGH = 0.9, 1.1  # IWSLT 2022 isometric task: the ±10 % band of length compliance


def check_aligned(name_a: str, a: Sequence[Any], name_b: str, b: Sequence[Any]) -> None:
    """`ValueError` unless `a` and `b` have as many segments."""
    if len(a) != len(b):
        raise ValueError(f"{name_a} has {len(a)} segments but {name_b} has {len(b)}")


@dataclass(frozen=True)
class RatioStats:
    """Mean and standard deviation of per-sentence length ratios; `n` pairs counted.

    Pairs whose denominator has length 0 are left out (`skipped`). `mean` and `std` are None
    when no pair is left, or when the unit could not be measured (no subword tokenizer).
    """

    mean: float | None
    std: float | None
    n: int
    skipped: int
    unit: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True)
class VarResult:
    """VAR = mean of squared length differences (Takase & Okazaki 2019 eq. 8), in `unit`."""

    value: float | None
    n: int
    unit: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True)
class RateResult:
    """A share of segments that pass a test (`rate` in [0, 1]; None when there is none)."""

    rate: float | None
    passed: int
    n: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


def rate(flags: Sequence[bool]) -> RateResult:
    """The share of true `flags`."""
    passed = sum(1 for f in flags if f)
    return RateResult(rate=passed / len(flags) if flags else None, passed=passed, n=len(flags))


@dataclass(frozen=True)
class SubtitleCompliance:
    """Shares of cues within the characters-per-line, line-count and reading-speed limits."""

    cpl: RateResult
    lines: RateResult
    cps: RateResult
    max_cpl: int
    max_lines: int
    max_cps: float

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "cpl": self.cpl.to_dict(),
            "lines": self.lines.to_dict(),
            "cps": self.cps.to_dict(),
            "limits": {"cpl": self.max_cpl, "lines": self.max_lines, "cps": self.max_cps},
        }


def ratio_stats(numerators: Sequence[int], denominators: Sequence[int], unit: str) -> RatioStats:
    """Mean and population std of num_i / den_i over the pairs with den_i > 0."""
    check_aligned("numerators", numerators, "denominators", denominators)
    ratios = [n / d for n, d in zip(numerators, denominators, strict=True) if d > 0]
    skipped = len(numerators) - len(ratios)
    if not ratios:
        return RatioStats(mean=None, std=None, n=0, skipped=skipped, unit=unit)
    return RatioStats(
        mean=statistics.fmean(ratios),
        std=statistics.pstdev(ratios),
        n=len(ratios),
        skipped=skipped,
        unit=unit,
    )


def length_ratio_stats(
    outs: Sequence[str], others: Sequence[str], count: Callable[[str], int] = char_length
) -> RatioStats:
    """LR (Lakew et al. 2019): mean of count(out_i) / count(other_i), chars by default."""
    unit = "char" if count is char_length else "subword"
    return ratio_stats([count(o) for o in outs], [count(x) for x in others], unit)


def variance(lengths: Sequence[int], wanted: Sequence[int], unit: str) -> VarResult:
    """VAR = 1/n * sum_i (l_i - len_i)^2 (Takase & Okazaki 2019 eq. 8; Oka et al. 2020 eq. 4)."""
    check_aligned("lengths", lengths, "wanted", wanted)
    if not lengths:
        return VarResult(value=None, n=0, unit=unit)
    total = sum((a - b) ** 2 for a, b in zip(lengths, wanted, strict=True))
    return VarResult(value=total / len(lengths), n=len(lengths), unit=unit)


def requested_chars(src: str, ratio: float) -> int:
    """The length asked for a source, in chars: floor(ratio * char_length(src)).

    The ratio is taken as the decimal the user typed (0.29 * 100 is 29, not 28.999...).
    """
    return ratio_chars_floor(ratio, char_length(src))


def is_length_compliant(src: str, out: str) -> bool:
    """IWSLT 2022 LC for one pair: chars without spaces within +-10 % (inclusive) of the source.

    The organisers' script (amazon-science/isometric-slt, scripts/isometric_slt_stat.py)
    computes `abs((tgt_len - src_len) * 100 / src_len) <= 10`, i.e. the length ratio lies in
    [0.9, 1.1]; here the same test in exact integer arithmetic, 10 * |out - src| <= src.
    Sources of at most 10 characters are always compliant, as the task defines it (the script
    itself exempts sources or outputs shorter than 10 characters).
    """
    s, o = chars_no_space(src), chars_no_space(out)
    if s <= LC_SHORT_SOURCE:
        return True
    return 10 * abs(o - s) <= s


def isometric_bounds(src: str, ratio: float = 1.0) -> tuple[int, int]:
    """The IWSLT 2022 ±10 % band around ratio × the source, in characters without spaces.

    At ratio 1 an output is LC-compliant (`is_length_compliant`) exactly when its length without
    spaces lies in [low, high] = [ceil(0.9 s), floor(1.1 s)].
    """
    return ratio_band(ratio, chars_no_space(src), LC_LOW, LC_HIGH)


def length_compliance(srcs: Sequence[str], outs: Sequence[str]) -> RateResult:
    """LC: the share of outputs compliant under the IWSLT 2022 isometric rule."""
    check_aligned("srcs", srcs, "outs", outs)
    return rate([is_length_compliant(s, o) for s, o in zip(srcs, outs, strict=True)])


def fit_rate(srcs: Sequence[str], outs: Sequence[str], ratio: float) -> RateResult:
    """fit: the share of outputs with char_length(out) <= floor(ratio * char_length(src))."""
    check_aligned("srcs", srcs, "outs", outs)
    return rate(
        [char_length(o) <= requested_chars(s, ratio) for s, o in zip(srcs, outs, strict=True)]
    )


def subtitle_compliance(
    texts: Sequence[str],
    durations_ms: Sequence[int],
    max_cpl: int,
    max_lines: int,
    max_cps: float,
) -> SubtitleCompliance:
    """Shares of cues (visible text, lines joined by "\\n") within CPL, line count and CPS.

    CPL: every line has char_length <= max_cpl. CPS: char_length(text) / seconds <= max_cps,
    i.e. char_length(text) <= `fitsub.units.chars_in_time(max_cps, duration_ms)`
    (a cue of zero duration fails unless its text is empty).
    """
    check_aligned("texts", texts, "durations_ms", durations_ms)
    cpl_ok, lines_ok, cps_ok = [], [], []
    for text, dur in zip(texts, durations_ms, strict=True):
        lines = text.split("\n")
        cpl_ok.append(all(char_length(line) <= max_cpl for line in lines))
        lines_ok.append(len(lines) <= max_lines)
        chars = char_length(text)
        cps_ok.append(chars == 0 if dur <= 0 else chars <= chars_in_time(max_cps, dur))
    return SubtitleCompliance(
        cpl=rate(cpl_ok),
        lines=rate(lines_ok),
        cps=rate(cps_ok),
        max_cpl=max_cpl,
        max_lines=max_lines,
        max_cps=max_cps,
    )


@dataclass(frozen=True)
class Accuracy:
    """Length prediction against reference lengths (Oka et al. 2020, Table 2, and ±10 %)."""

    n: int
    mae: float  # mean |pred - ref|
    mean_error: float  # mean (pred - ref): the bias
    variance: float  # population variance of pred - ref
    pearson: float | None
    within10: float  # share with |pred - ref| <= 0.1 * ref

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return dict(self.__dict__)


def accuracy(pred: Sequence[int], ref: Sequence[int]) -> Accuracy:
    """MAE, bias, error variance, Pearson r and share within ±10 % of `ref`."""
    if len(pred) != len(ref) or not ref:
        raise ValueError(f"need aligned, non-empty lengths; got {len(pred)} and {len(ref)}")
    err = [p - r for p, r in zip(pred, ref, strict=True)]
    try:
        r_val: float | None = statistics.correlation(
            [float(p) for p in pred], [float(x) for x in ref]
        )
    except statistics.StatisticsError:
        r_val = None
    return Accuracy(
        n=len(ref),
        mae=statistics.fmean(abs(e) for e in err),
        mean_error=statistics.fmean(err),
        variance=statistics.pvariance(err),
        pearson=r_val,
        within10=statistics.fmean(
            float(10 * abs(p - r) <= r) for p, r in zip(pred, ref, strict=True)
        ),
    )
