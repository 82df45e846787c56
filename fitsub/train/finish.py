"""How a training command ends on time and always with a model: the deadline of `--max-time`
(counted from the process's start, so the set-up, the last evaluation, the checkpoint average
and the export all fit inside it), SIGTERM / SIGINT as "stop at the next update", and the
export of the run's averaged float16 weights (`fitsub train --export DIR`)."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from fitsub.errors import InputError

# Before the run has timed its own evaluation and saves: this share of --max-time, within
# [MIN_TAIL_S, MAX_TAIL_S] seconds, is kept for them and the export.
TAIL_SHARE, MIN_TAIL_S, MAX_TAIL_S = 0.1, 2.0, 120.0
EXIT_S = 1.0  # the interpreter's own exit (torch's teardown) after the last line
AVERAGE_FROM = 0.75  # export averages the kept checkpoints of the last quarter of updates
_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class StopRule:
    """When to stop updating: a signal arrived, or the time left until the command's deadline
    is no more than what the run still has to do after its last update (the tail: one more
    evaluation and save, then the average and export), with one update's time to spare."""

    def __init__(self, max_time: float | None, started: float) -> None:
        self.started = started
        self.deadline = None if max_time is None else started + max_time
        guess = 0.0 if max_time is None else TAIL_SHARE * max_time
        self.tail = min(max(guess, MIN_TAIL_S), MAX_TAIL_S)
        self.measured = False
        self._recent: list[float] = []  # the last two evaluations' costs
        self.signal_name: str | None = None
        self._previous: dict[int, Any] = {}
        self._begun = self._last_eval = time.monotonic()

    def begin(self) -> None:
        """Updates start now (`progress` counts from here)."""
        self._begun = self._last_eval = time.monotonic()

    def eval_due(self, every_s: float | None) -> bool:
        """`every_s` seconds (`--eval-time`) have passed since the last evaluation ended (or the
        updates began): an interval that holds however fast the updates run."""
        return every_s is not None and time.monotonic() - self._last_eval >= every_s

    def progress(self) -> float:
        """The share of the time for updates (from `begin` to the deadline less the tail) spent;
        0 without a deadline."""
        if self.deadline is None:
            return 0.0
        window = self.deadline - self.tail - self._begun
        return min(1.0, (time.monotonic() - self._begun) / max(window, 1e-9))

    def left(self) -> float:
        """Seconds until the deadline (infinity without one)."""
        return float("inf") if self.deadline is None else self.deadline - time.monotonic()

    def check_can_train(self, setup_seconds: float) -> None:
        """InputError when the set-up left no time for a single update before the tail."""
        if self.left() <= self.tail:
            raise InputError(
                None,
                "--max-time leaves no time to train: the set-up took "
                f"{setup_seconds:.0f} s and ending (evaluation, save, export) needs about "
                f"{self.tail:.0f} s",
            )

    def record_tail(self, seconds: float) -> None:
        """The measured cost of one evaluation and its saves; the tail is twice the larger of
        the last two (it also covers the average and the export) plus a second. The early
        evaluations of an untrained model (greedy decoding to the length limit) age out: on a
        GPU the first took 25 s, those of the last minutes 3 s."""
        self._recent = [*self._recent[-1:], seconds]
        self._last_eval = time.monotonic()
        self.tail = 2.0 * max(self._recent) + 1.0 + EXIT_S
        self.measured = True

    def reason(self, update_seconds: float) -> str:
        """Why to stop now ("" to go on): "signal SIGTERM" / "signal SIGINT", or "max_time"."""
        if self.signal_name is not None:
            return f"signal {self.signal_name}"
        if self.deadline is not None and self.left() <= self.tail + update_seconds:
            return "max_time"
        return ""

    def eta(self, done: int, elapsed: float, max_steps: int | None, step: int) -> float | None:
        """Seconds left in this run: to `max_steps` at the rate so far (`done` updates in
        `elapsed` seconds), or to the deadline less the tail, whichever comes first."""
        rate = done / max(elapsed, 1e-9)
        left: list[float] = []
        if max_steps is not None:
            left.append((max_steps - step) / max(rate, 1e-9))
        if self.deadline is not None:
            left.append(self.left() - self.tail)
        return max(0.0, min(left)) if left else None

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.signal_name = signal.Signals(signum).name

    def install(self) -> None:
        """Catch SIGTERM and SIGINT (main thread only) until `restore`."""
        try:
            for sig in _SIGNALS:
                self._previous[sig] = signal.signal(sig, self._on_signal)
        except ValueError:  # not the main thread: leave the signals alone
            self._previous.clear()

    def restore(self) -> None:
        """Put back the handlers `install` replaced."""
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()


def check_export_dir(path: Path) -> None:
    """InputError unless `path` is free for `--export` (nothing there; its folder exists)."""
    if path.exists():
        raise InputError(path, "--export directory exists; name a new one")
    if not path.parent.is_dir():
        raise InputError(path, f"folder {str(path.parent)!r} does not exist")


def averaged_steps(steps: list[Path]) -> list[Path]:
    """The kept checkpoints worth averaging: those of the run's last quarter of updates
    (`step-NNNNNN` at or after AVERAGE_FROM × the last step). Checkpoints kept by the clock in a
    short run reach back to where the model was far weaker (the multilingual GPU run kept updates
    2,330 … 6,932 at dev BLEU 11.8 … 20.2), and a mean with those lags the last."""
    if not steps:
        return []
    last = int(steps[-1].name.split("-")[-1])
    return [p for p in steps if int(p.name.split("-")[-1]) >= AVERAGE_FROM * last]


def export_run(out: Path, dest: Path, keep: int) -> tuple[Path, str]:
    """Write the run's model to `dest` in float16: the mean of its kept checkpoints of the last
    quarter of updates (`averaged_steps`, at least two), else its best (or last) checkpoint.
    Returns (dest, what)."""
    from fitsub.nmt.checkpoint import export_checkpoint
    from fitsub.train.average import average_checkpoints

    steps = averaged_steps(sorted((out / "steps").glob("step-*"))) if keep > 1 else []
    if len(steps) >= 2:
        average_checkpoints(steps, dest, "float16")
        return dest, f"the average of {len(steps)} checkpoints ({steps[0].name} … {steps[-1].name})"
    src = out / "best" if (out / "best").is_dir() else out / "last"
    export_checkpoint(src, dest, "float16")
    return dest, f"{src.name} ({src})"


def timed(fn: Callable[[], Any]) -> float:
    """Run `fn`; its wall seconds."""
    t0 = time.monotonic()
    fn()
    return time.monotonic() - t0
