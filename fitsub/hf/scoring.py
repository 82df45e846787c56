"""Forced decoding with a Hugging Face model: its score of a given output (`fitsub.quality.score`).

`HFBackend.score_outputs` batches the outputs and runs the Monte-Carlo dropout passes
(Fomicheva et al. 2020); this module holds the one model forward they share.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import torch


class ForcedJob(Protocol):
    """What forced decoding reads of a request (`fitsub.hf.generation.Job`)."""

    @property
    def text(self) -> str: ...  # the source as the model reads it (prefix, length token)

    @property
    def units(self) -> int | None: ...  # the length for LDPE / LRPE, in pieces


class ForcedModel(Protocol):
    """What forced decoding reads of the backend (`fitsub.hf.backend.HFBackend`)."""

    model: Any
    tokenizer: Any
    config: Any
    lang: Any  # `fitsub.hf.languages.TargetLanguage`: its forced first token
    table: Any  # `fitsub.hf.constraints.PieceTable`: its EOS id
    positions: Any  # the LDPE / LRPE hook, or None
    device: torch.device


def forced(
    backend: ForcedModel, jobs: Sequence[ForcedJob], outputs: Sequence[list[int]]
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Teacher-forced (token log-probs, entropies, mask), each (B, T): a model forward with
    the output as decoder input; the forced language token is not scored."""
    tok = backend.tokenizer
    enc = tok([j.text for j in jobs], return_tensors="pt", padding=True).to(backend.device)
    start = backend.config.decoder_start_token_id
    if start is None:
        start = backend.config.pad_token_id
    forced_ids = [] if backend.lang.forced_bos is None else [backend.lang.forced_bos]
    pad = backend.config.pad_token_id if backend.config.pad_token_id is not None else 0
    rows = [[*forced_ids, *ids, backend.table.eos_id] for ids in outputs]
    T = max(len(r) for r in rows)
    dec_in = torch.full((len(rows), T), int(pad), dtype=torch.long)
    gold = torch.full((len(rows), T), int(pad), dtype=torch.long)
    mask = torch.zeros((len(rows), T), dtype=torch.bool)
    live = torch.zeros((len(rows), T), dtype=torch.long)
    for b, r in enumerate(rows):
        dec_in[b, : len(r)] = torch.tensor([int(start), *r[:-1]])
        gold[b, : len(r)] = torch.tensor(r)
        mask[b, len(forced_ids) : len(r)] = True
        live[b, : len(r)] = 1
    if backend.positions is not None:
        lens = [-1 if j.units is None else j.units for j in jobs]
        backend.positions.lengths = None
        if any(x >= 0 for x in lens):
            backend.positions.lengths = torch.tensor(lens, device=backend.device)
    try:
        logits = backend.model(
            **enc,
            decoder_input_ids=dec_in.to(backend.device),
            decoder_attention_mask=live.to(backend.device),
        ).logits.float()
    finally:
        if backend.positions is not None:
            backend.positions.lengths = None
    logp = torch.log_softmax(logits, dim=-1)
    picked = logp.gather(2, gold.to(backend.device)[:, :, None])[:, :, 0]
    entropy = -(logp.exp() * logp).sum(-1)
    return picked.cpu(), entropy.cpu(), mask
