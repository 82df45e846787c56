"""The training loop: label-smoothed cross-entropy, inverse-sqrt warm-up, bf16, compile, DDP, resume.

`train(cfg, callback)` sets the run up (`fitsub.train.setup`: prepares the data, trains or
reuses a tokenizer, builds the model) and runs updates until `max_steps`, `max_time`,
`max_epochs` or early stopping, writing `OUT/last` (with optimizer state, for `--resume`) and
`OUT/best` through `fitsub.nmt.checkpoint.save_checkpoint`. Progress goes to `callback` as typed
events (`fitsub.train.events`); this module never prints.

Reproducibility: the batches of epoch e depend only on (seed, e), the dropout and length-noise
streams are re-seeded from (seed, rank, step): a resumed run makes an uninterrupted run's updates.
Beside it in `fitsub.train`: `config`, `corpus` / `run_data` / `prepared`, `batches`, `optim`, `state`
(`--resume`), `finish` (deadline, --eval-time, signals, export), `flops` (MFU), `fitsub.nmt.loss`.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn.parallel import DistributedDataParallel

from fitsub.io.atomic import atomic_write_text
from fitsub.nmt.checkpoint import save_checkpoint
from fitsub.nmt.loss import chunk_rows, projected_nll
from fitsub.nmt.model import unwrap
from fitsub.train.batches import Batch, BatchMaker, make_batches, shard
from fitsub.train.config import TrainConfig
from fitsub.train.dev_bleu import dev_bleu
from fitsub.train.distributed import (
    agreed,
    all_sum,
    barrier,
    broadcast_floats,
    init_distributed,
    shutdown,
    tune_cpu_process,
)
from fitsub.train.events import (
    Callback,
    DataEvent,
    DoneEvent,
    EvalEvent,
    SaveEvent,
    StartEvent,
    StepEvent,
    TrainEvent,
)
from fitsub.train.finish import StopRule, export_run
from fitsub.train.flops import Utilisation
from fitsub.train.nat_batches import LevTBatch, cmlm_batch, levt_batch
from fitsub.train.optim import autocast, choose_bf16, make_optimizer, scheduled_lr, stream_seed
from fitsub.train.outputs import copy_log, keep_step, write_dev_text
from fitsub.train.setup import LOG_NAME, setup_run
from fitsub.train.state import load_optimizer_tensors, optimizer_tensors, truncate_log


class Trainer:
    """One training run (one process of a torchrun job, or the only one)."""

    def __init__(
        self, cfg: TrainConfig, callback: Callback | None = None, started: float | None = None
    ) -> None:
        cfg.validate()
        self.cfg, self.callback = cfg, callback
        # --max-time bounds the whole command: counted from `started` (the process's start)
        self.stop = StopRule(cfg.max_time, time.monotonic() if started is None else started)
        self.stop.check_can_train(0.0)
        self.out = Path(cfg.out_dir)
        self.info = init_distributed(cfg.device)
        local_world = int(os.environ.get("LOCAL_WORLD_SIZE", str(self.info.world)))
        threads = cfg.threads or max(1, (os.cpu_count() or 1) // max(local_world, 1))
        if self.info.device.type == "cpu":
            tune_cpu_process(threads)
        else:
            torch.set_float32_matmul_precision("high")  # TF32 for what autocast leaves in fp32
        self.bf16 = choose_bf16(cfg.precision, self.info.device)
        self._setup_model_and_data()

    def _emit(self, event: TrainEvent) -> None:
        if self.callback is not None and self.info.is_main:
            self.callback(event)

    def _setup_model_and_data(self) -> None:
        cfg, info = self.cfg, self.info
        t0 = time.monotonic()
        run = setup_run(cfg, info)
        self.stop.check_can_train(time.monotonic() - t0)  # before anything is written
        self.state, self.prepared = run.state, run.prepared
        self.mcfg, self.tokenizer = run.mcfg, run.tokenizer
        model = self.model = run.model
        self.optimizer = make_optimizer(model, cfg.lr, cfg.weight_decay)
        if run.opt_state is not None:
            load_optimizer_tensors(self.optimizer, run.opt_state)
        self.ddp: nn.Module = model
        if info.distributed:
            ids = [info.device.index] if info.device.type == "cuda" else None
            self.ddp = DistributedDataParallel(model, device_ids=ids)
        self.step_model: Callable[..., Tensor] = self.ddp
        # not a LevT by default: its loss runs the expert's alignment in numpy mid-forward
        on_gpu = info.device.type == "cuda" and cfg.arch != "levt"
        self.compiled = on_gpu if cfg.compile is None else cfg.compile
        if self.compiled:
            self.step_model = torch.compile(self.ddp, dynamic=True)
        self.train_batches = BatchMaker(self.prepared.train, run.mcfg, run.tokenizer, info.device)
        enc = self.prepared.train  # MFU against the measured bf16 peak, on GPUs
        self.mfu = (
            Utilisation(run.mcfg, enc.src_lens, enc.tgt_lens, info.device) if on_gpu else None
        )
        self.dev_batches = BatchMaker(self.prepared.dev, run.mcfg, run.tokenizer, info.device)
        if info.is_main:
            self.out.mkdir(parents=True, exist_ok=True)
            if run.resumed:
                truncate_log(self.out / LOG_NAME, self.state.step)
            write_dev_text(self.out, self.prepared.dev_text, self.cfg.model)
        self._emit(
            DataEvent(
                report=self.prepared.report,
                thresholds=run.thresholds,
                vocab_size=run.tokenizer.vocab_size,
                params=model.num_parameters(),
                bf16=self.bf16,
                compile=self.compiled,
                world=info.world,
                resumed_step=self.state.step if run.resumed else None,
                chars_per_piece=run.mcfg.extra.get("chars_per_piece"),
            )
        )

    def epoch_batches(self, epoch: int) -> list[np.ndarray]:
        """This rank's batches of `epoch` (the same on every run with the same seed)."""
        rng = np.random.default_rng([self.cfg.seed, epoch])
        enc = self.prepared.train
        batches = make_batches(
            enc.src_lens,
            enc.tgt_lens,
            self.cfg.max_tokens,
            rng,
            extra_src=self.train_batches.extra_src,
            extra_tgt=1,
        )
        return shard(batches, self.info.rank, self.info.world)

    def _update(self, group: list[np.ndarray], step: int) -> tuple[Tensor | float, int]:
        """Forward/backward over the batches of one update, then an optimizer step."""
        cfg, info = self.cfg, self.info
        seed = stream_seed(cfg.seed, info.rank, step)
        torch.manual_seed(seed)
        gen = torch.Generator().manual_seed(seed)
        ar = [self.train_batches.make(idx, gen) for idx in group]
        batches: list[Batch | LevTBatch] = list(ar)
        if cfg.arch == "cmlm":
            batches = [cmlm_batch(b, self.mcfg, gen) for b in ar]
        elif cfg.arch == "levt":
            batches = [levt_batch(b, self.mcfg, gen) for b in ar]
        local = sum(b.n_tgt for b in batches)
        total = all_sum(info, [float(local)])[0]  # target tokens of this update over all ranks
        scale = info.world / max(total, 1.0)  # DDP averages gradients over ranks
        loss_sum: Tensor | float = 0.0  # a tensor: read at the log step, no sync per update
        for i, b in enumerate(batches):
            sync = i == len(batches) - 1 or not info.distributed
            ddp = self.ddp
            ctx = (
                ddp.no_sync()
                if isinstance(ddp, DistributedDataParallel) and not sync
                else nullcontext()
            )
            with ctx:
                loss = self._batch_loss(self.step_model, b, cfg.label_smoothing)
                torch.autograd.backward(loss * scale)
            loss_sum = loss_sum + loss.detach()
        for g in self.optimizer.param_groups:
            g["lr"] = scheduled_lr(
                cfg.lr_schedule, step=step, lr=cfg.lr, warmup=cfg.warmup, done=self.stop.progress()
            )
        if cfg.clip_norm > 0:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.clip_norm, foreach=True)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return loss_sum, local

    def _batch_loss(self, model: Callable[..., Any], b: Batch | LevTBatch, eps: float) -> Tensor:
        """The summed loss of one batch: the AR / CMLM token NLL, or for a LevT the sum of its
        three mean losses times the batch's target tokens (`fitsub.nat.levt`)."""
        with autocast(self.info.device, self.bf16):
            if isinstance(b, LevTBatch):
                terms = model(src=b.src, tgt=b.tgt, prev=b.prev, tgt_len=b.tgt_len, eps=eps)
                return torch.as_tensor(terms.loss) * b.n_tgt
            hidden = model(b.src, b.tgt_in, b.tgt_len, hidden=True)  # (B, T, D)
        # (V, D) the output projection: the tied embedding, or a converted model's own
        w = getattr(unwrap(self.model), "output_weight", self.model.embed.weight)
        dtype, rows = (torch.bfloat16 if self.bf16 else torch.float32), chunk_rows(w.device, len(w))
        pad = self.mcfg.pad_id
        return projected_nll(hidden, w, b.tgt_out, pad=pad, eps=eps, dtype=dtype, chunk=rows)

    @torch.no_grad()
    def evaluate(self) -> tuple[float, float | None]:
        """Dev cross-entropy per target token (no smoothing) and greedy dev BLEU (None: off)."""
        info, enc = self.info, self.prepared.dev
        self.model.eval()
        rng = np.random.default_rng(0)
        batches = make_batches(
            enc.src_lens,
            enc.tgt_lens,
            self.cfg.max_tokens,
            rng,
            extra_src=self.dev_batches.extra_src,
        )
        nll, ntok = 0.0, 0.0
        masks = torch.Generator().manual_seed(0)  # the same dev masks at every evaluation (CMLM)
        for idx in batches[info.rank :: info.world]:
            ar = self.dev_batches.make(idx, None, train=False)
            b: Batch | LevTBatch = ar
            if self.cfg.arch == "cmlm":
                b = cmlm_batch(ar, self.mcfg, masks, train=False)
            elif self.cfg.arch == "levt":
                b = levt_batch(ar, self.mcfg, masks, train=False)
            nll += float(self._batch_loss(self.model, b, 0.0))
            ntok += b.n_tgt
        nll, ntok = all_sum(info, [nll, ntok])
        bleu = -1.0
        if info.is_main and self.cfg.bleu_sentences > 0:
            bleu = dev_bleu(
                self.model,
                batches=self.dev_batches,
                dev=self.prepared.dev,
                dev_text=self.prepared.dev_text,
                tokenizer=self.tokenizer,
                n_sentences=self.cfg.bleu_sentences,
                max_len=self.cfg.max_pieces,
                device=info.device,
                bf16=self.bf16,
            )
        score = None
        if self.cfg.bleu_sentences > 0:
            score = broadcast_floats(info, [bleu])[0]
        self.model.train()
        return nll / max(ntok, 1.0), score

    def save(self, kind: str) -> None:
        """Write `OUT/last` (with optimizer state) or `OUT/best`; rank 0 only, others wait."""
        barrier(self.info)
        if self.info.is_main:
            extra = {"config": self.cfg.to_dict(), "state": self.state.to_dict()}
            tensors = {"optimizer": optimizer_tensors(self.optimizer)} if kind == "last" else None
            dest = save_checkpoint(
                self.out / kind, self.model, self.mcfg, self.tokenizer, extra, extra_tensors=tensors
            )
            log = self.out / LOG_NAME
            if log.exists():  # the checkpoint is complete without it; the copy is atomic
                atomic_write_text(dest / LOG_NAME, log.read_text("utf-8"))
            self._emit(SaveEvent(kind=kind, path=str(dest), step=self.state.step))
        barrier(self.info)

    def _log(self, record: dict[str, Any]) -> None:
        if self.info.is_main:
            with open(self.out / LOG_NAME, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(record) + "\n")

    def run(self) -> Path:
        """Train until a stopping rule fires; returns the best checkpoint's directory."""
        cfg, st = self.cfg, self.state
        start_time = time.perf_counter()
        start_step = st.step
        self._emit(StartEvent(step=start_step, max_steps=cfg.max_steps, max_time=cfg.max_time))
        setup_s = round(time.monotonic() - self.stop.started, 2)  # the command's set-up time
        self._log(
            {"event": "start", "step": start_step, "setup_s": setup_s, **{"config": cfg.to_dict()}}
        )
        self.stop.install()  # SIGTERM / SIGINT: stop at the next update
        self.stop.begin()
        try:
            reason = self._updates(start_time, start_step)
        finally:
            self.stop.restore()
        st.train_seconds = st.train_seconds + time.perf_counter() - start_time
        if st.last_eval_step != st.step:
            self._evaluate_and_save()
        best = self.out / ("best" if (self.out / "best").is_dir() else "last")
        exported = ""
        if cfg.export_dir and self.info.is_main:
            dest, what = export_run(self.out, Path(cfg.export_dir), cfg.keep_checkpoints)
            exported = f"{dest}: {what}"
        done = DoneEvent(reason=reason, step=st.step, path=str(best), exported=exported)
        self._log(done.record())
        self._emit(done)
        if self.info.is_main:  # the final log lines into both checkpoints
            copy_log(self.out, LOG_NAME)
        barrier(self.info)
        return best

    def _updates(self, start_time: float, start_step: int) -> str:
        """Updates until a stopping rule fires; the reason."""
        cfg, st = self.cfg, self.state
        window_loss: Tensor | float = 0.0
        window_tok, window_t0 = 0, time.perf_counter()
        reason, update_s = "", 0.0
        while not reason:
            if cfg.max_epochs is not None and st.epoch >= cfg.max_epochs:
                reason = "max_epochs"
                break
            batches = self.epoch_batches(st.epoch)
            while st.batch < len(batches):
                if cfg.max_steps is not None and st.step >= cfg.max_steps:
                    reason = "max_steps"
                    break
                group = batches[st.batch : st.batch + cfg.update_freq]
                t_update = time.monotonic()
                loss, ntok = self._update(group, st.step + 1)
                update_s = max(update_s * 0.9, time.monotonic() - t_update)
                st.step += 1
                st.batch += len(group)
                st.tokens += ntok
                window_loss, window_tok = window_loss + loss, window_tok + ntok
                elapsed = time.perf_counter() - start_time
                step = st.step
                if step % cfg.log_every == 0 or step == cfg.max_steps:
                    now = time.perf_counter()
                    tot_loss, tot_tok = all_sum(self.info, [float(window_loss), float(window_tok)])
                    tps = tot_tok / max(now - window_t0, 1e-9)
                    ev = StepEvent(
                        step=step,
                        epoch=st.epoch,
                        loss=tot_loss / max(tot_tok, 1.0),
                        lr=self.optimizer.param_groups[0]["lr"],
                        tokens=int(tot_tok),
                        seconds=now - window_t0,
                        tokens_per_s=tps,
                        elapsed=elapsed,
                        eta=self.stop.eta(step - start_step, elapsed, cfg.max_steps, step),
                        mfu=None if self.mfu is None else self.mfu.of(tps),
                    )
                    self._log(ev.record())
                    self._emit(ev)
                    window_loss, window_tok, window_t0 = 0.0, 0, now
                due = step % cfg.eval_every == 0 or (  # --eval-time: rank 0's clock decides
                    cfg.eval_seconds is not None
                    and agreed(self.info, self.stop.eval_due(cfg.eval_seconds))
                )
                if due and self._evaluate_and_save():
                    reason = "early_stopping"
                    break
                if reason := self._stop_reason(update_s):
                    break
            else:
                st.epoch += 1
                st.batch = 0
        return reason

    def _evaluate_and_save(self) -> bool:
        """Evaluate, save `last` and (on improvement) `best`; True when patience is exhausted."""
        t0 = time.monotonic()
        stop = self._evaluate_and_save_now()
        self.stop.record_tail(time.monotonic() - t0)
        return stop

    def _evaluate_and_save_now(self) -> bool:
        st = self.state
        st.last_eval_step = st.step
        dev_loss, dev_bleu = self.evaluate()
        # Higher dev BLEU wins; equal BLEU (or no BLEU) falls back to lower dev loss.
        value = [0.0 if dev_bleu is None else dev_bleu, -dev_loss]
        improved = st.best is None or value > list(st.best)
        if improved:
            st.best, st.bad_evals = value, 0
        else:
            st.bad_evals += 1
        ev = EvalEvent(step=st.step, dev_loss=dev_loss, dev_bleu=dev_bleu, best=improved)
        self._log(ev.record())
        self._emit(ev)
        if improved:
            self.save("best")
        self.save("last")
        if self.cfg.keep_checkpoints > 0:
            if self.info.is_main:
                keep_step(self.out, self.state.step, self.cfg.keep_checkpoints)
            barrier(self.info)
        return self.cfg.patience > 0 and st.bad_evals >= self.cfg.patience

    def _stop_reason(self, update_seconds: float) -> str:
        """A signal or the deadline (`StopRule`), agreed by every rank ("" to go on)."""
        reason = self.stop.reason(update_seconds)
        return (reason or "max_time") if agreed(self.info, bool(reason)) else ""


def train(cfg: TrainConfig, callback: Callback | None = None, started: float | None = None) -> Path:
    """Run one training (a process of a torchrun job, or alone); returns the best checkpoint.
    `started`: when the command began (`--max-time` counts from it; default: now)."""
    trainer = Trainer(cfg, callback, started)
    try:
        return trainer.run()
    finally:
        shutdown(trainer.info)
