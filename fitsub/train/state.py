"""What `--resume` needs besides the weights: the optimizer state as flat named tensors (saved
with the checkpoint as safetensors, never pickled), recovery of a checkpoint directory a kill left
between its two renames, and the training log cut back to the resumed step.

The trainer's counters (`TrainState`: step, epoch, batch, tokens, best, ...) travel in the
checkpoint's config.json["train"]["state"]; see `fitsub.train.loop.Trainer`.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file
from torch import Tensor

from fitsub.io.atomic import atomic_write_text


@dataclass
class TrainState:
    """Where a run stands: what resuming needs besides the weights and the optimizer."""

    step: int = 0  # updates made
    epoch: int = 0  # the epoch being trained
    batch: int = 0  # batches of this epoch already used
    tokens: int = 0  # target tokens trained on (this rank)
    best: list[float] | None = None  # the best evaluation's [dev BLEU, -dev loss]
    bad_evals: int = 0  # evaluations since the best
    train_seconds: float = 0.0
    last_eval_step: int = -1

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (config.json["train"]["state"])."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TrainState:
        """Read `to_dict()` output, or a run directory's older state (missing keys: defaults;
        unknown keys: ignored)."""
        s = cls()
        ints = ("step", "epoch", "batch", "tokens", "bad_evals", "last_eval_step")
        for name in ints:
            if d.get(name) is not None:
                setattr(s, name, int(d[name]))
        if d.get("train_seconds") is not None:
            s.train_seconds = float(d["train_seconds"])
        if d.get("best") is not None:
            s.best = [float(v) for v in d["best"]]
        return s


def optimizer_tensors(opt: torch.optim.Optimizer) -> dict[str, Tensor]:
    """AdamW state as flat named tensors: `{param index}.{exp_avg|exp_avg_sq|step}`."""
    out: dict[str, Tensor] = {}
    for i, st in opt.state_dict()["state"].items():
        for k, v in st.items():
            out[f"{i}.{k}"] = v if isinstance(v, Tensor) else torch.tensor(v)
    return out


def load_optimizer_tensors(opt: torch.optim.Optimizer, flat: dict[str, Tensor]) -> None:
    """Restore what `optimizer_tensors` saved into an optimizer over the same parameters."""
    sd = opt.state_dict()
    state: dict[int, dict[str, Tensor]] = {}
    for key, v in flat.items():
        i, name = key.split(".", 1)
        state.setdefault(int(i), {})[name] = v
    sd["state"] = state
    opt.load_state_dict(sd)


def recover(out: Path, name: str) -> None:
    """Undo what a kill during `save_checkpoint` left: restore `OUT/name` from the copy moved
    aside between its two renames, and delete unfinished temporary directories."""
    target = out / name
    if not (target / "config.json").is_file():
        olds = sorted(out.glob(f".{name}.old-*"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in olds:
            if (old / "config.json").is_file() and (old / "model.safetensors").is_file():
                os.replace(old, target)
                break
    for junk in [*out.glob(f".{name}.tmp-*"), *out.glob(f".{name}.old-*")]:
        shutil.rmtree(junk, ignore_errors=True)


def load_optimizer_state(path: Path) -> dict[str, Tensor] | None:
    """The flat optimizer tensors saved with checkpoint `path`, or None when it has none."""
    f = path / "optimizer.safetensors"
    return load_file(str(f)) if f.is_file() else None


def truncate_log(log: Path, step: int) -> None:
    """Drop log lines a killed run wrote after the checkpoint we resume from."""
    if not log.exists():
        return
    kept = []
    for line in log.read_text("utf-8").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by the kill
        if int(rec.get("step", 0)) <= step:
            kept.append(line)
    kept.append(json.dumps({"event": "resume", "step": step}))
    atomic_write_text(log, "\n".join(kept) + "\n")
