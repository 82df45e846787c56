"""What `fitsub train` shows while it runs: the trainer's events as a data summary, a progress
bar and one line per evaluation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from fitsub.train.config import TrainConfig

if TYPE_CHECKING:
    from fitsub.train.events import TrainEvent


class TrainDisplay:
    """Renders the trainer's events: a summary of the data, a progress bar, evaluation lines."""

    def __init__(self, console: Console, cfg: TrainConfig) -> None:
        self.console, self.cfg = console, cfg
        self.progress = Progress(
            TextColumn("[bold]step {task.completed}"),
            BarColumn(),
            TextColumn(
                "loss {task.fields[loss]}  {task.fields[tps]} tok/s  ETA {task.fields[eta]}"
            ),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self.task = self.progress.add_task(
            "train", total=cfg.max_steps, loss="-", tps="-", eta="-", start=False
        )

    def __enter__(self) -> TrainDisplay:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def __call__(self, ev: TrainEvent) -> None:
        from fitsub.train.events import DataEvent, DoneEvent, EvalEvent, StartEvent, StepEvent

        say = self.progress.console.print
        if isinstance(ev, DataEvent):
            r = ev.report
            f = r.filtered
            say(
                f"data: {r.train_pairs} training pairs, {r.dev_pairs} dev ({r.dev_from}); "
                f"dropped {f.get('duplicate', 0)} repeated, "
                f"{f.get('same_length', 0)} same-length retranslations, {f['empty']} empty, {f['too_long']} too long, {f['ratio']} bad ratio, "
                f"{f['too_many_pieces']} over the piece limit"
            )
            t_short, t_long = ev.thresholds
            say(
                f"vocab {ev.vocab_size}, {ev.params / 1e6:.2f} M parameters, "
                f"length-token thresholds <short> < {t_short:.3f} ≤ <normal> ≤ {t_long:.3f} < <long>, "
                f"{ev.chars_per_piece:.2f} chars/piece, bf16 {ev.bf16}, compile {ev.compile}, "
                f"{ev.world} process(es)"
                + (f", resuming at step {ev.resumed_step}" if ev.resumed_step else "")
            )
        elif isinstance(ev, StartEvent):
            self.progress.start_task(self.task)
            self.progress.update(self.task, completed=ev.step)
        elif isinstance(ev, StepEvent):
            eta = "-" if ev.eta is None else _clock(ev.eta)
            self.progress.update(
                self.task,
                completed=ev.step,
                loss=f"{ev.loss:.3f}",
                tps=f"{ev.tokens_per_s:,.0f}" + ("" if ev.mfu is None else f" MFU {ev.mfu:.0%}"),
                eta=eta,
            )
        elif isinstance(ev, EvalEvent):
            bleu = "" if ev.dev_bleu is None else f", dev BLEU {ev.dev_bleu:.2f}"
            mark = " (best)" if ev.best else ""
            say(f"step {ev.step}: dev loss {ev.dev_loss:.3f}{bleu}{mark}")
        elif isinstance(ev, DoneEvent):
            say(f"stopped at step {ev.step} ({ev.reason or 'end'})")
            if ev.exported:
                say(f"exported {ev.exported}")


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"
