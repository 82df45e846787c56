"""Shared by the CLI tests of formats, profiles and batch runs: run the CLI, a tiny checkpoint."""

from __future__ import annotations

from pathlib import Path

import torch
from nmt_helpers import tiny_config, word_tokenizer

from fitsub.cli import main
from fitsub.nmt.checkpoint import build_model, save_checkpoint


def run(args: list[str]) -> int:
    """`fitsub ARGS` in-process; the exit code."""
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def tiny_checkpoint(folder: Path) -> Path:
    """An untrained char-unit LDPE+PE en → it checkpoint: real plumbing, meaningless words."""
    torch.manual_seed(0)
    tok = word_tokenizer()
    cfg = tiny_config(tok, method="ldpe+pe", length_unit="char", length_dropout=0.2)
    path = folder / "tiny"
    save_checkpoint(path, build_model(cfg, tok), cfg, tok)
    return path
