"""Quality and length metrics of the seed papers, computed the standard way (pure functions).

Quality (BLEU, BLEU*, chrF, buckets) lives in `fitsub.metrics.reference`, length (LR, VAR, LC,
fit, subtitle compliance) in `fitsub.metrics.length`; `score` computes every one of them.

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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fitsub.metrics.length import (
    LC_HIGH,
    LC_LOW,
    LC_SHORT_SOURCE,
    RateResult,
    RatioStats,
    SubtitleCompliance,
    VarResult,
    check_aligned,
    fit_rate,
    is_length_compliant,
    isometric_bounds,
    length_compliance,
    length_ratio_stats,
    ratio_stats,
    requested_chars,
    subtitle_compliance,
    variance,
)
from fitsub.metrics.reference import (
    OKA_BUCKETS,
    BleuResult,
    BucketResult,
    ChrfResult,
    bleu,
    bucket_table,
    chrf,
    token_count,
)
from fitsub.units import char_length

__all__ = [
    "LC_HIGH",
    "LC_LOW",
    "LC_SHORT_SOURCE",
    "OKA_BUCKETS",
    "BleuResult",
    "BucketResult",
    "ChrfResult",
    "RateResult",
    "RatioStats",
    "SettingMetrics",
    "SubtitleCompliance",
    "VarResult",
    "bleu",
    "bucket_table",
    "chrf",
    "fit_rate",
    "is_length_compliant",
    "isometric_bounds",
    "length_compliance",
    "length_ratio_stats",
    "ratio_stats",
    "requested_chars",
    "score",
    "subtitle_compliance",
    "token_count",
    "variance",
]


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
    speech_lc: RateResult | None = None  # within ±10 % of the source in `speech_unit`
    speech_unit: str | None = None  # syllables or seconds (`fitsub.metrics.speaking`)
    notes: tuple[str, ...] = ()
    segments_per_s: float | None = None  # decoding speed (set by `fitsub eval` for model runs)

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
            "speech_lc",
        ):
            value = getattr(self, key)
            d[key] = None if value is None else value.to_dict()
        d["buckets"] = None if self.buckets is None else [b.to_dict() for b in self.buckets]
        d["speech_unit"] = self.speech_unit
        d["notes"] = list(self.notes)
        d["segments_per_s"] = self.segments_per_s
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
    check_aligned("hyps", hyps, "refs", refs)
    if srcs is not None:
        check_aligned("hyps", hyps, "srcs", srcs)
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
