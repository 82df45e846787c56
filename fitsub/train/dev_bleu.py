"""The trainer's dev BLEU: the first dev sentences decoded greedily (AR: beam 1; a CMLM or LevT
student: its decoding at the reference piece count) and scored with sacreBLEU."""

from __future__ import annotations

import numpy as np
import torch

from fitsub.nat.levt import LevT
from fitsub.nat.model import CMLM
from fitsub.nmt.model import Transformer
from fitsub.nmt.search import beam_search
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.train.batches import BatchMaker
from fitsub.train.corpus import Corpus, Encoded
from fitsub.train.nat_batches import levt_oracle_decode, oracle_decode
from fitsub.train.optim import autocast


def dev_bleu(
    model: Transformer | CMLM | LevT,
    *,
    batches: BatchMaker,
    dev: Encoded,
    dev_text: Corpus,
    tokenizer: Tokenizer,
    n_sentences: int,
    max_len: int,
    device: torch.device,
    bf16: bool,
) -> float:
    """Corpus BLEU of the first `n_sentences` dev pairs (decoded in batches of 64, shortest
    sources first) against their references."""
    import sacrebleu

    n = min(n_sentences, len(dev))
    order = np.argsort(dev.src_lens[:n], kind="stable")
    hyps: dict[int, str] = {}
    for start in range(0, n, 64):
        idx = order[start : start + 64]
        b = batches.make(idx, None, train=False)
        if isinstance(model, CMLM | LevT):  # NAT decoding, the reference piece count
            with autocast(device, bf16):
                if isinstance(model, LevT):
                    ids = levt_oracle_decode(model, b)
                else:
                    ids = oracle_decode(model, b)
            for i, row in zip(idx, ids, strict=True):
                hyps[int(i)] = tokenizer.decode(row)
            continue
        # at most twice the source's pieces (+ 10): an untrained model that never ends would
        # otherwise decode to `max_len` (its first evaluation on a GPU took 25 s, the last 3 s)
        longest = min(max_len, 2 * int(b.src.size(1)) + 10)
        with autocast(device, bf16):
            out = beam_search(model, b.src, b.tgt_len, beam=1, max_len=longest)
        for i, h in zip(idx, out, strict=True):
            hyps[int(i)] = tokenizer.decode(h[0].ids) if h else ""
    refs = [dev_text.tgt[i] for i in range(n)]
    return float(sacrebleu.corpus_bleu([hyps[i] for i in range(n)], [refs]).score)
