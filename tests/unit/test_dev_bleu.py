"""The trainer's dev BLEU decodes at most twice the source's pieces (+ 10), however long
`--max-pieces` allows: an untrained model that never ends costs a short evaluation."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import torch

from fitsub.train import dev_bleu as D
from fitsub.train.corpus import Corpus


class _Batches:
    """Padded sources of `width` pieces for any rows."""

    def __init__(self, width: int) -> None:
        self.width = width

    def make(self, idx: np.ndarray, gen: Any, train: bool = True) -> Any:
        return SimpleNamespace(
            src=torch.zeros(len(idx), self.width, dtype=torch.long), tgt_len=None
        )


@pytest.mark.parametrize(("width", "limit", "asked"), [(12, 200, 34), (100, 200, 200), (3, 8, 8)])
def test_dev_bleu_decodes_at_most_twice_the_source(
    monkeypatch: pytest.MonkeyPatch, width: int, limit: int, asked: int
) -> None:
    seen: list[int] = []

    def search(model: Any, src: torch.Tensor, tgt_len: Any, *, beam: int, max_len: int) -> list:
        seen.append(max_len)
        return [[SimpleNamespace(ids=[5])] for _ in range(src.size(0))]

    monkeypatch.setattr(D, "beam_search", search)
    text = Corpus(src=["a", "b", "c"], tgt=["one two three four five"] * 3)
    tok = SimpleNamespace(decode=lambda ids: "one two three four five")
    score = D.dev_bleu(
        object(),  # type: ignore[arg-type]
        batches=_Batches(width),  # type: ignore[arg-type]
        dev=_Dev(width),  # type: ignore[arg-type]
        dev_text=text,
        tokenizer=tok,  # type: ignore[arg-type]
        n_sentences=3,
        max_len=limit,
        device=torch.device("cpu"),
        bf16=False,
    )
    assert seen == [asked] and score == pytest.approx(100.0)


class _Dev:
    def __init__(self, width: int) -> None:
        self.src_lens = np.full(3, width)

    def __len__(self) -> int:
        return 3
