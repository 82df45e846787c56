"""What the trainer reports while it runs: one typed event per kind, given to its callback.

The events a run also logs (`start`, `step`, `eval`, `done`) become one JSON line each in
`OUT/train_log.jsonl` through `record()`; the trainer never prints (`fitsub.cli.train` does).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from fitsub.train.run_data import DataReport


@dataclass(frozen=True)
class DataEvent:
    """The data is ready and the model built: what filtering did and what the run will train."""

    report: DataReport
    thresholds: tuple[float, float]  # the length-token thresholds fitted on the training data
    vocab_size: int
    params: int
    bf16: bool
    compile: bool
    world: int  # processes
    resumed_step: int | None  # the step a resumed run continues from
    chars_per_piece: float | None


@dataclass(frozen=True)
class StartEvent:
    """Training starts (or resumes) at `step`."""

    step: int
    max_steps: int | None
    max_time: float | None


@dataclass(frozen=True)
class StepEvent:
    """Every `log_every` updates: the loss and speed over the updates since the last one."""

    step: int
    epoch: int
    loss: float  # per target token
    lr: float
    tokens: int
    seconds: float
    tokens_per_s: float
    elapsed: float
    eta: float | None
    mfu: float | None = None  # model FLOPs utilisation, on GPUs (fitsub.train.flops)

    def record(self) -> dict[str, Any]:
        """The log line."""
        return {"event": "step", **asdict(self)}


@dataclass(frozen=True)
class EvalEvent:
    """An evaluation on the dev set; `best` when it improved on every earlier one."""

    step: int
    dev_loss: float
    dev_bleu: float | None  # None when the run measures no BLEU
    best: bool

    def record(self) -> dict[str, Any]:
        """The log line (no `dev_bleu` key without BLEU)."""
        bleu = {} if self.dev_bleu is None else {"dev_bleu": self.dev_bleu}
        return {
            "event": "eval",
            "step": self.step,
            "dev_loss": self.dev_loss,
            **bleu,
            "best": self.best,
        }


@dataclass(frozen=True)
class SaveEvent:
    """A checkpoint (`last` or `best`) was written to `path`."""

    kind: str
    path: str
    step: int


@dataclass(frozen=True)
class DoneEvent:
    """Training stopped (`reason`: max_steps, max_time, max_epochs, early_stopping,
    "signal SIGTERM" / "signal SIGINT" or "")."""

    reason: str
    step: int
    path: str  # the best checkpoint
    exported: str = ""  # `--export`: "DIR: what it holds"

    def record(self) -> dict[str, Any]:
        """The log line."""
        return {"event": "done", "step": self.step, "reason": self.reason}


TrainEvent = DataEvent | StartEvent | StepEvent | EvalEvent | SaveEvent | DoneEvent
Callback = Callable[[TrainEvent], None]
