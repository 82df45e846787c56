"""Quality and length metrics of the seed papers, computed the standard way (pure functions).

Every function takes lists of strings (one segment each, aligned) and returns a dataclass with
`to_dict()`. Lengths come only from `fitsub.units`: `char_length` (characters, spaces
included) for LR, VAR and fit; `chars_no_space` for the IWSLT 2022 length compliance.

- BLEU and chrF: sacrebleu's corpus scores, each with sacrebleu's signature string.
- BLEU* (Lakew et al. 2019, "Controlling the Output Length of NMT", Sec. 5): BLEU multiplied by
  the inverse of the brevity penalty, BLEU* = BLEU / BP, i.e. the geometric mean of the n-gram
  precisions, with BP taken from sacrebleu's result.
- LR src / LR ref (Lakew et al. 2019): the mean of the per-sentence length ratios
  output/source and output/reference, with their (population) standard deviation.
- VAR (Takase & Okazaki 2019, eq. 8; Oka et al. 2020, eq. 4):
  VAR = 1/n * sum_i |l_i - len_i|^2, with len_i the requested length (Takase) or the
  reference length (Oka).
- LC (IWSLT 2022 isometric SLT task): a translation is compliant when its length in characters
  without spaces is within +-10 % of its source's, |out - src| <= 0.10 * src (bounds included);
  a source of at most 10 characters is always compliant.
- fit: the share of outputs within their budget, char_length(out) <= floor(ratio * char_length(src)).
- Buckets (Oka et al. 2020, Table 3): BLEU and LR per reference length in tokens, 1-10, 11-20,
  21-40, 41-80; tokens are those of sacrebleu's 13a tokeniser.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from fitsub.units import char_length, chars_no_space, ratio_band, ratio_chars_floor

# Oka et al. 2020, Table 3: reference length ranges in tokens (inclusive).
OKA_BUCKETS: tuple[tuple[int, int], ...] = ((1, 10), (11, 20), (21, 40), (41, 80))
# IWSLT 2022 isometric task: sources this short (chars without spaces) are always compliant.
LC_SHORT_SOURCE = 10
LC_LOW, LC_HIGH = 0.9, 1.1  # IWSLT 2022 isometric task: the ±10 % band of length compliance
_TOKENIZE_13A = Tokenizer13a()


def _check_aligned(name_a: str, a: Sequence[Any], name_b: str, b: Sequence[Any]) -> None:
    if len(a) != len(b):
        raise ValueError(f"{name_a} has {len(a)} segments but {name_b} has {len(b)}")


@dataclass(frozen=True)
class BleuResult:
    """Corpus BLEU (sacrebleu), its brevity penalty and BLEU* = BLEU / BP (Lakew et al. 2019)."""

    score: float
    bp: float
    bleu_star: float
    precisions: tuple[float, ...]
    sys_len: int  # tokens in the outputs
    ref_len: int  # tokens in the references
    signature: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        d = asdict(self)
        d["precisions"] = list(self.precisions)
        return d


@dataclass(frozen=True)
class ChrfResult:
    """Corpus chrF (sacrebleu) with its signature."""

    score: float
    signature: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


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


def _rate(flags: Sequence[bool]) -> RateResult:
    passed = sum(1 for f in flags if f)
    return RateResult(rate=passed / len(flags) if flags else None, passed=passed, n=len(flags))


@dataclass(frozen=True)
class BucketResult:
    """BLEU and length ratios of the segments whose reference has `lo`..`hi` tokens (13a).

    `lr` is sacrebleu's hyp_len / ref_len in tokens over the bucket (multi-bleu's "ratio",
    the LR of Oka et al. 2020 Table 3); `lr_ref_chars` the mean per-sentence out/ref in chars.
    """

    label: str
    lo: int
    hi: int
    n: int
    bleu: float | None
    lr: float | None
    lr_ref_chars: float | None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


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


def bleu(hyps: Sequence[str], refs: Sequence[str], tokenize: str = "13a") -> BleuResult:
    """Corpus BLEU with sacrebleu (one reference) and BLEU* = BLEU / BP (0 when BP is 0)."""
    _check_aligned("hyps", hyps, "refs", refs)
    metric = BLEU(tokenize=tokenize)
    res = metric.corpus_score(list(hyps), [list(refs)])
    # BP is 0 only for an empty output, whose n-gram precisions are all 0 as well.
    star = res.score / res.bp if res.bp > 0 else 0.0
    return BleuResult(
        score=res.score,
        bp=res.bp,
        bleu_star=star,
        precisions=tuple(res.precisions),
        sys_len=res.sys_len,
        ref_len=res.ref_len,
        signature=str(metric.get_signature()),
    )


def chrf(hyps: Sequence[str], refs: Sequence[str]) -> ChrfResult:
    """Corpus chrF with sacrebleu's defaults (chrF2, character 6-grams)."""
    _check_aligned("hyps", hyps, "refs", refs)
    metric = CHRF()
    res = metric.corpus_score(list(hyps), [list(refs)])
    return ChrfResult(score=res.score, signature=str(metric.get_signature()))


def ratio_stats(numerators: Sequence[int], denominators: Sequence[int], unit: str) -> RatioStats:
    """Mean and population std of num_i / den_i over the pairs with den_i > 0."""
    _check_aligned("numerators", numerators, "denominators", denominators)
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


def length_ratio(
    outs: Sequence[str], others: Sequence[str], count: Callable[[str], int] = char_length
) -> RatioStats:
    """LR (Lakew et al. 2019): mean of count(out_i) / count(other_i), chars by default."""
    unit = "char" if count is char_length else "subword"
    return ratio_stats([count(o) for o in outs], [count(x) for x in others], unit)


def variance(lengths: Sequence[int], wanted: Sequence[int], unit: str) -> VarResult:
    """VAR = 1/n * sum_i (l_i - len_i)^2 (Takase & Okazaki 2019 eq. 8; Oka et al. 2020 eq. 4)."""
    _check_aligned("lengths", lengths, "wanted", wanted)
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
    _check_aligned("srcs", srcs, "outs", outs)
    return _rate([is_length_compliant(s, o) for s, o in zip(srcs, outs, strict=True)])


def fit_rate(srcs: Sequence[str], outs: Sequence[str], ratio: float) -> RateResult:
    """fit: the share of outputs with char_length(out) <= floor(ratio * char_length(src))."""
    _check_aligned("srcs", srcs, "outs", outs)
    return _rate(
        [char_length(o) <= requested_chars(s, ratio) for s, o in zip(srcs, outs, strict=True)]
    )


def token_count(text: str) -> int:
    """Tokens of sacrebleu's 13a tokeniser (the reference length used to pick a bucket)."""
    return len(_TOKENIZE_13A(text).split())


def bucket_table(
    hyps: Sequence[str],
    refs: Sequence[str],
    buckets: Sequence[tuple[int, int]] = OKA_BUCKETS,
    tokenize: str = "13a",
) -> list[BucketResult]:
    """Per reference-length bucket (Oka et al. 2020 Table 3): BLEU and LR of its segments.

    Segments whose reference falls in no bucket (0 tokens, or more than 80) are left out, as
    Oka et al. left out their longest group.
    """
    _check_aligned("hyps", hyps, "refs", refs)
    ref_tokens = [token_count(r) for r in refs]
    out: list[BucketResult] = []
    for lo, hi in buckets:
        idx = [i for i, n in enumerate(ref_tokens) if lo <= n <= hi]
        label = f"{lo}-{hi}"
        if not idx:
            out.append(BucketResult(label, lo, hi, 0, None, None, None))
            continue
        bh, br = [hyps[i] for i in idx], [refs[i] for i in idx]
        b = bleu(bh, br, tokenize=tokenize)
        lr = b.sys_len / b.ref_len if b.ref_len > 0 else None
        out.append(BucketResult(label, lo, hi, len(idx), b.score, lr, length_ratio(bh, br).mean))
    return out


def subtitle_compliance(
    texts: Sequence[str],
    durations_ms: Sequence[int],
    max_cpl: int,
    max_lines: int,
    max_cps: float,
) -> SubtitleCompliance:
    """Shares of cues (visible text, lines joined by "\\n") within CPL, line count and CPS.

    CPL: every line has char_length <= max_cpl. CPS: char_length(text) / seconds <= max_cps
    (a cue of zero duration fails unless its text is empty).
    """
    _check_aligned("texts", texts, "durations_ms", durations_ms)
    cpl_ok, lines_ok, cps_ok = [], [], []
    for text, dur in zip(texts, durations_ms, strict=True):
        lines = text.split("\n")
        cpl_ok.append(all(char_length(line) <= max_cpl for line in lines))
        lines_ok.append(len(lines) <= max_lines)
        chars = char_length(text)
        cps_ok.append(chars == 0 if dur <= 0 else chars * 1000 / dur <= max_cps)
    return SubtitleCompliance(
        cpl=_rate(cpl_ok),
        lines=_rate(lines_ok),
        cps=_rate(cps_ok),
        max_cpl=max_cpl,
        max_lines=max_lines,
        max_cps=max_cps,
    )


@dataclass(frozen=True)
class SettingMetrics:
    """Every metric of one system output on one test set (None: not requested or not measurable).

    `var_requested` compares output and requested lengths (floor(ratio * source chars)), chars;
    `var_ref` output and reference lengths, chars. Subword figures need the model's tokenizer.
    """

    n: int
    ratio: float
    bleu: BleuResult | None = None
    chrf: ChrfResult | None = None
    lr_src_chars: RatioStats | None = None
    lr_ref_chars: RatioStats | None = None
    lr_src_subwords: RatioStats | None = None
    lr_ref_subwords: RatioStats | None = None
    var_requested: VarResult | None = None
    var_ref: VarResult | None = None
    var_ref_subwords: VarResult | None = None
    lc: RateResult | None = None
    fit: RateResult | None = None
    buckets: tuple[BucketResult, ...] | None = None
    subtitle: SubtitleCompliance | None = None
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (nested results as dicts, None kept)."""
        d: dict[str, Any] = {"n": self.n, "ratio": self.ratio}
        for key in (
            "bleu",
            "chrf",
            "lr_src_chars",
            "lr_ref_chars",
            "lr_src_subwords",
            "lr_ref_subwords",
            "var_requested",
            "var_ref",
            "var_ref_subwords",
            "lc",
            "fit",
            "subtitle",
        ):
            value = getattr(self, key)
            d[key] = None if value is None else value.to_dict()
        d["buckets"] = None if self.buckets is None else [b.to_dict() for b in self.buckets]
        d["notes"] = list(self.notes)
        return d


def score(
    hyps: Sequence[str],
    refs: Sequence[str],
    srcs: Sequence[str] | None,
    ratio: float = 1.0,
    count_subwords: Callable[[str], int] | None = None,
    quality: bool = True,
    lengths: bool = True,
    tokenize: str = "13a",
) -> SettingMetrics:
    """All metrics of `hyps` against `refs` (and `srcs` when given) for a requested `ratio`.

    `quality`: BLEU, BLEU*, chrF and the bucket table. `lengths`: LR, VAR, LC and fit (the
    source-based ones need `srcs`; the subword ones need `count_subwords`).
    """
    _check_aligned("hyps", hyps, "refs", refs)
    if srcs is not None:
        _check_aligned("hyps", hyps, "srcs", srcs)
    notes: list[str] = []
    parts: dict[str, Any] = {}
    if quality:
        parts["bleu"] = bleu(hyps, refs, tokenize=tokenize)
        parts["chrf"] = chrf(hyps, refs)
        parts["buckets"] = tuple(bucket_table(hyps, refs, tokenize=tokenize))
    if lengths:
        out_chars = [char_length(h) for h in hyps]
        ref_chars = [char_length(r) for r in refs]
        parts["lr_ref_chars"] = ratio_stats(out_chars, ref_chars, "char")
        parts["var_ref"] = variance(out_chars, ref_chars, "char")
        if srcs is not None:
            parts["lr_src_chars"] = ratio_stats(out_chars, [char_length(s) for s in srcs], "char")
            parts["var_requested"] = variance(
                out_chars, [requested_chars(s, ratio) for s in srcs], "char"
            )
            parts["lc"] = length_compliance(srcs, hyps)
            parts["fit"] = fit_rate(srcs, hyps, ratio)
        else:
            notes.append("no source: LR src, VAR requested, LC and fit not computed")
        if count_subwords is not None:
            out_sw = [count_subwords(h) for h in hyps]
            ref_sw = [count_subwords(r) for r in refs]
            parts["lr_ref_subwords"] = ratio_stats(out_sw, ref_sw, "subword")
            parts["var_ref_subwords"] = variance(out_sw, ref_sw, "subword")
            if srcs is not None:
                parts["lr_src_subwords"] = ratio_stats(
                    out_sw, [count_subwords(s) for s in srcs], "subword"
                )
        else:
            notes.append("no subword tokenizer: subword LR and VAR not computed")
    return SettingMetrics(n=len(hyps), ratio=ratio, notes=tuple(notes), **parts)
