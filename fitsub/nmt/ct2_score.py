"""The model's score of given outputs on CTranslate2: forced decoding without a length.

The quality score (`fitsub.quality.score`) reads, for each translated segment, the log-probability
of every output token and the entropy of every next-token distribution along the output, given
the source (Fomicheva et al. 2020, "Unsupervised Quality Estimation for Neural Machine
Translation", TACL 8: TP eq. 1, Softmax-Ent). For a model that decodes without a length
(`NMTBackend.supports_unconstrained`: a length model trained with length dropout) the score is
taken with no length signal, as the unconstrained pass translates (`fitsub.nmt.ct2`), so
CTranslate2 can compute it: `translate_batch` with the output as a forced `target_prefix`, one
hypothesis, `return_logits_vocab` (the distribution at every step, the forced ones included)
and a decoding length that ends one step after the prefix, where the end of sentence is read.
No torch is imported: a file whose translations all came from CTranslate2 is translated and
scored without fitsub's own decoder. `fitsub.nmt.torch_decoder.TorchDecoder.score` computes the
same quantities (and the cross-attention, which CTranslate2 does not give here) for the rows
and models this path does not take, and with a ctranslate2 older than 4.4 (no
`return_logits_vocab`: `supported`); `tests/unit/test_ct2_score.py` checks that both agree.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

import numpy as np

from fitsub.backend import OutputScore
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.nmt.word_pieces import output_word_index, word_rarity

if TYPE_CHECKING:
    from fitsub.nmt.ct2 import Ct2Engine

ScoredRow = tuple[list[int], list[int]]  # (source ids ending with EOS, output ids ending with EOS)
SINCE = (4, 4)  # the first ctranslate2 here whose translate_batch has return_logits_vocab (4.0 and
# 4.1 have not; 4.2 and 4.3 were not checked): an older one leaves scoring to fitsub's decoder


@functools.cache
def supported() -> bool:
    """Whether the installed ctranslate2 returns each step's distribution (`SINCE`)."""
    try:
        major, minor = (int(x) for x in version("ctranslate2").split(".")[:2])
    except (PackageNotFoundError, ValueError):
        return False
    return (major, minor) >= SINCE


def step_signals(logits: np.ndarray, gold: Sequence[int]) -> tuple[list[float], list[float]]:
    """(log-probability of each `gold` token, entropy in nats of each step's distribution) of
    the (T, V) next-token `logits` of a forced pass (log-softmax over the vocabulary)."""
    x = logits.astype(np.float32, copy=False)
    top = x.max(axis=1, keepdims=True)
    logp = x - top - np.log(np.exp(x - top).sum(axis=1, keepdims=True))
    picked = logp[np.arange(len(gold)), np.asarray(gold)]
    entropy = -(np.exp(logp) * logp).sum(axis=1)
    return [float(v) for v in picked], [float(v) for v in entropy]


def forced_scores(
    engine: Ct2Engine, tokenizer: Tokenizer, rows: Sequence[ScoredRow], batch_size: int
) -> list[OutputScore]:
    """Each row's `OutputScore` (token log-probabilities and entropies, end of sentence
    included; the source's word rarity and the output's word index; no attention), in order,
    in batches of `batch_size` rows as given."""
    out: list[OutputScore] = []
    pieces = engine.pieces
    for start in range(0, len(rows), max(1, batch_size)):
        chunk = rows[start : start + batch_size]
        results = engine.translator.translate_batch(
            [[pieces[i] for i in src] for src, _ in chunk],
            target_prefix=[[pieces[i] for i in gold[:-1]] for _, gold in chunk],
            beam_size=1,
            max_decoding_length=max(len(gold) for _, gold in chunk),
            return_logits_vocab=True,
            max_batch_size=0,
        )
        for (src, gold), res in zip(chunk, results, strict=True):
            steps = res.logits[0][: len(gold)]
            logits = np.stack([np.asarray(s).reshape(-1) for s in steps])
            picked, entropy = step_signals(logits, gold)
            word_pieces, word_logprobs = word_rarity(tokenizer, src)
            out.append(
                OutputScore(
                    token_logprobs=tuple(picked),
                    entropies=tuple(entropy),
                    word_pieces=word_pieces,
                    word_logprobs=word_logprobs,
                    output_words=output_word_index(tokenizer, gold),
                )
            )
    return out
