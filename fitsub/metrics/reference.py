"""Quality metrics: corpus BLEU, BLEU* and chrF (sacrebleu), and BLEU / LR per length bucket.

- BLEU and chrF: sacrebleu's corpus scores, each with sacrebleu's signature string.
- BLEU* (Lakew et al. 2019, "Controlling the Output Length of NMT", Sec. 5): BLEU multiplied by
  the inverse of the brevity penalty, BLEU* = BLEU / BP, i.e. the geometric mean of the n-gram
  precisions, with BP taken from sacrebleu's result.
- Buckets (Oka et al. 2020, Table 3): BLEU and LR per reference length in tokens, 1-10, 11-20,
  21-40, 41-80; tokens are those of sacrebleu's 13a tokeniser.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from sacrebleu.metrics.bleu import BLEU
from sacrebleu.metrics.chrf import CHRF

from fitsub.metrics.length import check_aligned, length_ratio_stats

# Oka et al. 2020, Table 3: reference length ranges in tokens (inclusive).
OKA_BUCKETS: tuple[tuple[int, int], ...] = ((1, 10), (11, 20), (21, 40), (41, 80))
# sacrebleu's 13a tokeniser (the one its BLEU uses by default), typed as what it is
_TOKENIZE_13A: Callable[[str], str] = BLEU(tokenize="13a").tokenizer


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


def bleu(hyps: Sequence[str], refs: Sequence[str], tokenize: str = "13a") -> BleuResult:
    """Corpus BLEU with sacrebleu (one reference) and BLEU* = BLEU / BP (0 when BP is 0)."""
    check_aligned("hyps", hyps, "refs", refs)
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
    check_aligned("hyps", hyps, "refs", refs)
    metric = CHRF()
    res = metric.corpus_score(list(hyps), [list(refs)])
    return ChrfResult(score=res.score, signature=str(metric.get_signature()))


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
    check_aligned("hyps", hyps, "refs", refs)
    ref_tokens = [token_count(r) for r in refs]
    out: list[BucketResult] = []
    for lo, hi in buckets:
        idx = [i for i, n in enumerate(ref_tokens) if lo <= n <= hi]
        label = f"{lo}-{hi}"
        if not idx:
            out.append(
                BucketResult(label=label, lo=lo, hi=hi, n=0, bleu=None, lr=None, lr_ref_chars=None)
            )
            continue
        bh, br = [hyps[i] for i in idx], [refs[i] for i in idx]
        b = bleu(bh, br, tokenize=tokenize)
        lr = b.sys_len / b.ref_len if b.ref_len > 0 else None
        out.append(
            BucketResult(
                label=label,
                lo=lo,
                hi=hi,
                n=len(idx),
                bleu=b.score,
                lr=lr,
                lr_ref_chars=length_ratio_stats(bh, br).mean,
            )
        )
    return out


def sentence_chrf(hyp: str, ref: str) -> float:
    """Sentence chrF (sacrebleu's chrF2, character 6-grams, 0-100) of one hypothesis."""
    return float(CHRF().sentence_score(hyp, [ref]).score)
