"""The training loop: label-smoothed cross-entropy, inverse-sqrt warm-up, bf16, compile, DDP, resume.

`train(cfg, callback)` prepares the data (`fitsub.nmt.data`), trains or reuses a tokenizer, builds
the model and runs updates until `max_steps`, `max_time`, `max_epochs` or early stopping, writing
`OUT/last` (with optimizer state, for `--resume`) and `OUT/best` through
`fitsub.nmt.checkpoint.save_checkpoint`. Progress goes to `callback` as plain dicts; this module
never prints.

Reproducibility: the batches of epoch e depend only on (seed, e); the dropout and length-noise
random streams are re-seeded from (seed, rank, step) at every update. A run stopped after step n
and resumed therefore makes exactly the updates an uninterrupted run would have made.

Data preparation and batches live in `fitsub.nmt.batching`, the optimizer state and crash
recovery for `--resume` in `fitsub.nmt.trainstate`, the loss in `fitsub.nmt.loss` (computed from
the decoder states on the non-pad target rows only, through the tied output projection).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn.parallel import DistributedDataParallel

from fitsub.errors import InputError
from fitsub.io import atomic_write_text
from fitsub.nat.checkpoint import build_nat, checkpoint_arch, load_nat, nat_config
from fitsub.nat.levt import LevT
from fitsub.nat.model import ARCHS, CMLM
from fitsub.nat.train import LevTBatch, cmlm_batch, levt_batch, levt_oracle_decode, oracle_decode
from fitsub.nmt import data as D
from fitsub.nmt.batching import Batch, BatchMaker, prepare_data
from fitsub.nmt.checkpoint import build_model, load_checkpoint, save_checkpoint
from fitsub.nmt.config import METHODS, ModelConfig
from fitsub.nmt.distributed import (
    all_sum,
    barrier,
    broadcast_floats,
    init_distributed,
    shutdown,
    tune_cpu_process,
)
from fitsub.nmt.lengths import NOISE_MODES, fit_thresholds
from fitsub.nmt.loss import projected_nll
from fitsub.nmt.model import Transformer
from fitsub.nmt.trainstate import (
    load_optimizer_state,
    load_optimizer_tensors,
    optimizer_tensors,
    recover,
    truncate_log,
)
from fitsub.units import LengthUnit

Callback = Callable[[dict[str, Any]], None]
LOG_NAME = "train_log.jsonl"
PRECISIONS = ("auto", "bf16", "fp32")


_M = ModelConfig(vocab_size=0)  # the model's defaults
# TrainConfig fields copied into a new model's config / into every run's length method.
ARCH_FIELDS = ("src_lang", "tgt_lang", "d_model", "n_heads", "enc_layers", "dec_layers", "d_ff")
LENGTH_FIELDS = ("method", "length_unit", "noise", "noise_mode", "length_dropout", "dropout")


@dataclass
class TrainConfig:
    """Everything one training run needs (JSON-serialisable; saved as config.json["train"])."""

    out_dir: str
    src_lang: str = "en"
    tgt_lang: str = "it"
    data_dir: str | None = None  # every DIR/*.{src} + *.{tgt} pair ...
    corpora: list[str] = field(default_factory=list)  # ... or only these stems, NAME[:WEIGHT]
    train_prefixes: list[str] = field(default_factory=list)  # PREFIX.{src} / PREFIX.{tgt}
    dev_prefix: str | None = None  # none: hold out `dev_size` pairs by source sentence
    dev_size: int = 500
    # model (defaults are ModelConfig's: one source of truth)
    method: str = _M.method
    length_unit: LengthUnit = _M.length_unit
    noise: int = _M.noise
    noise_mode: str = _M.noise_mode
    length_dropout: float = _M.length_dropout
    d_model: int = _M.d_model
    n_heads: int = _M.n_heads
    enc_layers: int = _M.enc_layers
    dec_layers: int = _M.dec_layers
    d_ff: int = _M.d_ff
    dropout: float = _M.dropout
    vocab_size: int = 8000
    spm_sentences: int = 300_000  # sentences sampled per side to train SentencePiece
    init_from: str | None = None  # fine-tune this checkpoint (its tokenizer and architecture)
    arch: str = "ar"  # "ar": the autoregressive Transformer; "cmlm" / "levt": fitsub.nat's
    # data filtering
    max_pieces: int = 200  # per sentence and side
    min_ratio: float = 1 / 3
    max_ratio: float = 3.0
    # optimisation
    max_tokens: int = 8192  # padded source + target tokens per batch
    update_freq: int = 1  # batches accumulated per update
    lr: float = 7e-4
    warmup: int = 1000
    weight_decay: float = 0.0
    clip_norm: float = 1.0
    label_smoothing: float = 0.1
    # stopping, evaluation, saving
    max_steps: int | None = None
    max_epochs: int | None = None
    max_time: float | None = None  # seconds of training in this invocation
    log_every: int = 50
    eval_every: int = 1000  # evaluate and save `last` (and maybe `best`) every N updates
    patience: int = 10  # stop after this many evaluations without improvement (0: never)
    keep_checkpoints: int = 0  # keep the last N evaluated weights in OUT/steps (fitsub average)
    bleu_sentences: int = 200  # dev sentences greedily decoded for dev BLEU (0: loss only)
    seed: int = 1
    # speed
    precision: str = "auto"  # "bf16": autocast with fp32 master weights; "fp32"; "auto"
    # torch.compile: None = on CUDA only. On this project's 2-core CPU it measured no faster than
    # eager bf16 in steady state and costs 1-3 minutes of compilation per new shape class.
    compile: bool | None = None
    threads: int | None = None  # intra-op threads per process (None: cores / local processes)
    device: str = "auto"
    resume: bool = False

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TrainConfig:
        """Rebuild from `to_dict()` output (unknown keys are ignored)."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})

    def validate(self) -> None:
        """Raise InputError for an impossible setting."""
        if self.method not in METHODS:
            raise InputError(
                None, f"unknown method {self.method!r}; choose from {', '.join(METHODS)}"
            )
        if self.arch not in ARCHS:
            raise InputError(None, f"unknown arch {self.arch!r}; choose from {', '.join(ARCHS)}")
        if self.length_unit not in ("char", "subword"):
            raise InputError(None, f"unknown length unit {self.length_unit!r}: char or subword")
        if self.noise_mode not in NOISE_MODES:
            raise InputError(None, f"unknown noise mode {self.noise_mode!r}")
        if self.precision not in PRECISIONS:
            raise InputError(
                None, f"unknown precision {self.precision!r}; choose from {PRECISIONS}"
            )
        if self.noise < 0 or not 0.0 <= self.length_dropout < 1.0:
            raise InputError(None, "noise must be >= 0 and length dropout in [0, 1)")
        if self.max_tokens < 16 or self.update_freq < 1 or self.eval_every < 1:
            raise InputError(None, "--max-tokens must be >= 16; --update-freq, --eval-every >= 1")
        if not (self.data_dir or self.train_prefixes):
            raise InputError(None, "no training data: give --data DIR or --train PREFIX")


def inverse_sqrt_lr(step: int, lr: float, warmup: int) -> float:
    """Linear warm-up then inverse square root decay (Vaswani et al. 2017, eq. 3, rescaled):
    lr(s) = lr * min(s / warmup, sqrt(warmup / s)), peaking at `lr` when s = warmup."""
    s = max(step, 1)
    w = max(warmup, 1)
    return lr * min(s / w, math.sqrt(w / s))


def _stream_seed(seed: int, rank: int, step: int) -> int:
    return (seed * 1_000_003 + rank * 7919 + step) % (2**63 - 1)


def make_optimizer(model: nn.Module, cfg: TrainConfig, device: torch.device) -> torch.optim.AdamW:
    """AdamW (betas 0.9, 0.98), the fused kernel where this PyTorch has it, else foreach."""
    params = [p for p in model.parameters() if p.requires_grad]
    kw: dict[str, Any] = {"lr": cfg.lr, "betas": (0.9, 0.98), "eps": 1e-8}
    kw["weight_decay"] = cfg.weight_decay
    try:
        return torch.optim.AdamW(params, fused=True, **kw)
    except (RuntimeError, TypeError):
        return torch.optim.AdamW(params, foreach=True, **kw)


# ---- the loop -------------------------------------------------------------------------------------


def _autocast(device: torch.device, bf16: bool) -> Any:
    return torch.autocast(device.type, dtype=torch.bfloat16) if bf16 else nullcontext()


def choose_bf16(precision: str, device: torch.device) -> bool:
    """bf16 autocast for "bf16"; for "auto", on CUDA with bf16 and on CPUs with native bf16."""
    if precision == "fp32":
        return False
    if precision == "bf16":
        return True
    if device.type == "cuda":
        return bool(torch.cuda.is_bf16_supported())
    return bool(
        torch.backends.mkldnn.is_available() and torch.ops.mkldnn._is_mkldnn_bf16_supported()
    )


class Trainer:
    """One training run (one process of a torchrun job, or the only one)."""

    def __init__(self, cfg: TrainConfig, callback: Callback | None = None) -> None:
        cfg.validate()
        self.cfg, self.callback = cfg, callback
        self.out = Path(cfg.out_dir)
        self.info = init_distributed(cfg.device)
        local_world = int(os.environ.get("LOCAL_WORLD_SIZE", str(self.info.world)))
        threads = cfg.threads or max(1, (os.cpu_count() or 1) // max(local_world, 1))
        if self.info.device.type == "cpu":
            tune_cpu_process(threads)
        else:
            torch.set_float32_matmul_precision("high")  # TF32 for what autocast leaves in fp32
        self.bf16 = choose_bf16(cfg.precision, self.info.device)
        self.state: dict[str, Any] = {
            "step": 0,
            "epoch": 0,
            "batch": 0,
            "tokens": 0,
            "best": None,
            "bad_evals": 0,
            "train_seconds": 0.0,
            "last_eval_step": -1,
        }
        self._setup_model_and_data()

    # -- set-up -------------------------------------------------------------------------------------
    def _emit(self, kind: str, /, **payload: Any) -> None:
        if self.callback is not None and self.info.is_main:
            self.callback({**payload, "event": kind})

    def _setup_model_and_data(self) -> None:
        cfg, info = self.cfg, self.info
        last = self.out / "last"
        if cfg.resume and info.is_main:
            recover(self.out, "last")
            recover(self.out, "best")
        barrier(info)
        resume_from = last if cfg.resume and (last / "config.json").is_file() else None
        if cfg.resume and resume_from is None:
            raise InputError(last, "nothing to resume: no checkpoint here (start without --resume)")
        if not cfg.resume and (self.out / LOG_NAME).exists():
            raise InputError(self.out, "already holds a training run; use --resume or a new --out")
        torch.manual_seed(cfg.seed)
        opt_state: dict[str, Tensor] | None = None
        base: Transformer | CMLM | LevT | None = None
        init_arch = checkpoint_arch(cfg.init_from) if cfg.init_from else None
        if resume_from is not None and cfg.arch != "ar":
            base, tok, mcfg, meta = load_nat(resume_from, info.device)
            self.state.update(meta["train"].get("state", {}))
            opt_state = load_optimizer_state(resume_from)
        elif resume_from is not None:
            base, tok, mcfg, meta = load_checkpoint(resume_from, info.device)
            self.state.update(meta["train"].get("state", {}))
            opt_state = load_optimizer_state(resume_from)
        elif cfg.init_from and init_arch not in (None, "ar"):
            if cfg.arch != init_arch:
                raise InputError(
                    cfg.init_from, f"a {init_arch} checkpoint: fine-tune it with --arch {init_arch}"
                )
            base, tok, mcfg, _ = load_nat(cfg.init_from, info.device)
        elif cfg.init_from:
            base, tok, mcfg, _ = load_checkpoint(cfg.init_from, info.device)
        else:
            tok, mcfg = None, None
        self.prepared = prepare_data(cfg, tok, info)
        tok = self.prepared.tokenizer
        thresholds = fit_thresholds(torch.from_numpy(self.prepared.train.ratio))
        if mcfg is None:
            arch = {name: getattr(cfg, name) for name in ARCH_FIELDS}
            mcfg = ModelConfig(vocab_size=tok.vocab_size, **arch)
        if resume_from is None:  # a fresh run or a fine-tune takes this run's length method
            length = {name: getattr(cfg, name) for name in LENGTH_FIELDS}
            mcfg = replace(mcfg, length_thresholds=thresholds, **length)
            mcfg.extra["chars_per_piece"] = float(
                self.prepared.train.tgt_units.sum()
                if cfg.length_unit == "char"
                else D.piece_lengths_in_chars(
                    self.prepared.train.tgt_ids,
                    self.prepared.train.tgt_off,
                    np.asarray(tok.piece_chars()),
                    np.asarray(tok.leading_space()),
                ).sum()
            ) / max(1, self.prepared.report["tgt_pieces"])
            if cfg.arch != "ar":  # pieces per source piece: a student's unconstrained length
                mcfg = nat_config(mcfg, cfg.arch)
                mcfg.extra["length_ratio"] = float(self.prepared.train.tgt_lens.sum()) / max(
                    1, int(self.prepared.train.src_lens.sum())
                )
        self.mcfg, self.tokenizer = mcfg, tok
        model: Transformer | CMLM | LevT
        if cfg.arch != "ar":
            model = build_nat(mcfg, tok)
            if isinstance(base, Transformer):  # a student initialised from an AR model (a teacher)
                model.base.load_state_dict(base.state_dict())
            elif base is not None:
                model.load_state_dict(base.state_dict())
        else:
            model = build_model(mcfg, tok)
            if base is not None:
                model.load_state_dict(base.state_dict())
        model.to(info.device).train()
        self.model = model
        self.optimizer = make_optimizer(model, cfg, info.device)
        if opt_state is not None:
            load_optimizer_tensors(self.optimizer, opt_state)
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
        self.train_batches = BatchMaker(self.prepared.train, mcfg, tok, info.device)
        self.dev_batches = BatchMaker(self.prepared.dev, mcfg, tok, info.device)
        if info.is_main:
            self.out.mkdir(parents=True, exist_ok=True)
            if resume_from is not None:
                truncate_log(self.out / LOG_NAME, int(self.state["step"]))
            self._write_dev_text()
        self._emit(
            "data",
            **self.prepared.report,
            thresholds=list(thresholds),
            vocab_size=tok.vocab_size,
            params=model.num_parameters(),
            bf16=self.bf16,
            compile=self.compiled,
            world=info.world,
            resumed_step=int(self.state["step"]) if resume_from else None,
            chars_per_piece=mcfg.extra.get("chars_per_piece"),
        )

    def _write_dev_text(self) -> None:
        """OUT/dev.SRC and OUT/dev.TGT: the dev pairs, so `fitsub eval --testset dev=OUT/dev`
        can score any run on exactly the pairs its dev BLEU was measured on."""
        dev = self.prepared.dev_text
        for lang, lines in ((self.cfg.src_lang, dev.src), (self.cfg.tgt_lang, dev.tgt)):
            atomic_write_text(self.out / f"dev.{lang}", "".join(line + "\n" for line in lines))

    # -- batches ------------------------------------------------------------------------------------
    def epoch_batches(self, epoch: int) -> list[np.ndarray]:
        """This rank's batches of `epoch` (the same on every run with the same seed)."""
        rng = np.random.default_rng([self.cfg.seed, epoch])
        enc = self.prepared.train
        batches = D.make_batches(
            enc.src_lens,
            enc.tgt_lens,
            self.cfg.max_tokens,
            rng,
            extra_src=self.train_batches.extra_src,
            extra_tgt=1,
        )
        return D.shard(batches, self.info.rank, self.info.world)

    # -- one update ---------------------------------------------------------------------------------
    def _update(self, group: list[np.ndarray], step: int) -> tuple[float, int]:
        """Forward/backward over the batches of one update, then an optimizer step."""
        cfg, info = self.cfg, self.info
        seed = _stream_seed(cfg.seed, info.rank, step)
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
        loss_sum = 0.0
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
                (loss * scale).backward()
            loss_sum += float(loss.detach())
        for g in self.optimizer.param_groups:
            g["lr"] = inverse_sqrt_lr(step, cfg.lr, cfg.warmup)
        if cfg.clip_norm > 0:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.clip_norm, foreach=True)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return loss_sum, local

    def _batch_loss(self, model: Callable[..., Any], b: Batch | LevTBatch, eps: float) -> Tensor:
        """The summed loss of one batch: the AR / CMLM token NLL, or for a LevT the sum of its
        three mean losses times the batch's target tokens (`fitsub.nat.levt`)."""
        with _autocast(self.info.device, self.bf16):
            if isinstance(b, LevTBatch):
                terms = model(b.src, b.tgt, b.prev, b.tgt_len, eps)
                return torch.as_tensor(terms.loss) * b.n_tgt
            hidden = model(b.src, b.tgt_in, b.tgt_len, hidden=True)  # (B, T, D)
        return self._loss(hidden, b.tgt_out, eps)

    def _loss(self, hidden: Tensor, tgt_out: Tensor, eps: float) -> Tensor:
        """Summed label-smoothed NLL of the non-pad targets, through the tied output projection."""
        dtype = torch.bfloat16 if self.bf16 else torch.float32
        weight = self.model.embed.weight  # (V, D)
        return projected_nll(hidden, weight, tgt_out, self.mcfg.pad_id, eps, dtype)

    # -- evaluation ---------------------------------------------------------------------------------
    @torch.no_grad()
    def evaluate(self) -> dict[str, float]:
        """Dev cross-entropy per target token (no smoothing) and greedy dev BLEU."""
        info, enc = self.info, self.prepared.dev
        self.model.eval()
        rng = np.random.default_rng(0)
        batches = D.make_batches(
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
        result = {"dev_loss": nll / max(ntok, 1.0)}
        bleu = -1.0
        if info.is_main and self.cfg.bleu_sentences > 0:
            bleu = self._dev_bleu()
        if self.cfg.bleu_sentences > 0:
            result["dev_bleu"] = broadcast_floats(info, [bleu])[0]
        self.model.train()
        return result

    def _dev_bleu(self) -> float:
        import sacrebleu

        from fitsub.nmt.search import beam_search

        n = min(self.cfg.bleu_sentences, len(self.prepared.dev))
        order = np.argsort(self.prepared.dev.src_lens[:n], kind="stable")
        hyps: dict[int, str] = {}
        for start in range(0, n, 64):
            idx = order[start : start + 64]
            b = self.dev_batches.make(idx, None, train=False)
            if isinstance(self.model, CMLM | LevT):  # NAT decoding, the reference piece count
                with _autocast(self.info.device, self.bf16):
                    if isinstance(self.model, LevT):
                        ids = levt_oracle_decode(self.model, b)
                    else:
                        ids = oracle_decode(self.model, b)
                for i, row in zip(idx, ids, strict=True):
                    hyps[int(i)] = self.tokenizer.decode(row)
                continue
            with _autocast(self.info.device, self.bf16):
                out = beam_search(self.model, b.src, b.tgt_len, beam=1, max_len=self.cfg.max_pieces)
            for i, h in zip(idx, out, strict=True):
                hyps[int(i)] = self.tokenizer.decode(h[0].ids) if h else ""
        refs = [self.prepared.dev_text.tgt[i] for i in range(n)]
        return float(sacrebleu.corpus_bleu([hyps[i] for i in range(n)], [refs]).score)

    # -- saving -------------------------------------------------------------------------------------
    def save(self, kind: str) -> None:
        """Write `OUT/last` (with optimizer state) or `OUT/best`; rank 0 only, others wait."""
        barrier(self.info)
        if self.info.is_main:
            extra = {"config": self.cfg.to_dict(), "state": dict(self.state)}
            tensors = {"optimizer": optimizer_tensors(self.optimizer)} if kind == "last" else None
            dest = save_checkpoint(
                self.out / kind, self.model, self.mcfg, self.tokenizer, extra, extra_tensors=tensors
            )
            log = self.out / LOG_NAME
            if log.exists():  # the checkpoint is complete without it; the copy is atomic
                atomic_write_text(dest / LOG_NAME, log.read_text("utf-8"))
            self._emit("save", kind=kind, path=str(dest), step=int(self.state["step"]))
        barrier(self.info)

    def _keep_step(self) -> None:
        """Copy `last`'s weights to `OUT/steps/step-NNNNNN` and keep the newest
        `keep_checkpoints` of them (for `fitsub average`, `fitsub.nmt.average`)."""
        if self.info.is_main:
            steps = self.out / "steps"
            dest = steps / f"step-{int(self.state['step']):06d}"
            dest.mkdir(parents=True, exist_ok=True)
            for name in ("config.json", "model.safetensors", "spm.model"):
                shutil.copy2(self.out / "last" / name, dest / name)
            kept = sorted(p for p in steps.iterdir() if p.name.startswith("step-"))
            for old in kept[: -self.cfg.keep_checkpoints]:
                shutil.rmtree(old, ignore_errors=True)
        barrier(self.info)

    def _log(self, record: dict[str, Any]) -> None:
        if self.info.is_main:
            with open(self.out / LOG_NAME, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(record) + "\n")

    # -- the run ------------------------------------------------------------------------------------
    def run(self) -> Path:
        """Train until a stopping rule fires; returns the best checkpoint's directory."""
        cfg, st = self.cfg, self.state
        start_time = time.perf_counter()
        start_step = int(st["step"])
        self._emit("start", step=start_step, max_steps=cfg.max_steps, max_time=cfg.max_time)
        self._log({"event": "start", "step": start_step, "config": cfg.to_dict()})
        window_loss, window_tok, window_t0 = 0.0, 0, time.perf_counter()
        reason = ""
        while not reason:
            if cfg.max_epochs is not None and st["epoch"] >= cfg.max_epochs:
                reason = "max_epochs"
                break
            batches = self.epoch_batches(int(st["epoch"]))
            while st["batch"] < len(batches):
                if cfg.max_steps is not None and st["step"] >= cfg.max_steps:
                    reason = "max_steps"
                    break
                group = batches[st["batch"] : st["batch"] + cfg.update_freq]
                loss, ntok = self._update(group, int(st["step"]) + 1)
                st["step"] += 1
                st["batch"] += len(group)
                st["tokens"] += ntok
                window_loss, window_tok = window_loss + loss, window_tok + ntok
                elapsed = time.perf_counter() - start_time
                step = int(st["step"])
                if step % cfg.log_every == 0 or step == cfg.max_steps:
                    now = time.perf_counter()
                    tot_loss, tot_tok = all_sum(self.info, [window_loss, float(window_tok)])
                    rec = {
                        "event": "step",
                        "step": step,
                        "epoch": int(st["epoch"]),
                        "loss": tot_loss / max(tot_tok, 1.0),
                        "lr": self.optimizer.param_groups[0]["lr"],
                        "tokens": int(tot_tok),
                        "seconds": now - window_t0,
                        "tokens_per_s": tot_tok / max(now - window_t0, 1e-9),
                        "elapsed": elapsed,
                        "eta": self._eta(step, start_step, elapsed),
                    }
                    self._log(rec)
                    self._emit("step", **rec)
                    window_loss, window_tok, window_t0 = 0.0, 0, now
                if step % cfg.eval_every == 0:
                    if self._evaluate_and_save():
                        reason = "early_stopping"
                        break
                if cfg.max_time is not None and self._time_up(elapsed):
                    reason = "max_time"
                    break
            else:
                st["epoch"] += 1
                st["batch"] = 0
        st["train_seconds"] = float(st["train_seconds"]) + time.perf_counter() - start_time
        if int(st["last_eval_step"]) != int(st["step"]):
            self._evaluate_and_save()
        best = self.out / ("best" if (self.out / "best").is_dir() else "last")
        self._log({"event": "done", "step": int(st["step"]), "reason": reason})
        self._emit("done", reason=reason, step=int(st["step"]), path=str(best))
        if self.info.is_main:  # the final log lines into both checkpoints
            for kind in ("last", "best"):
                if (self.out / kind).is_dir():
                    atomic_write_text(
                        self.out / kind / LOG_NAME, (self.out / LOG_NAME).read_text("utf-8")
                    )
        barrier(self.info)
        return best

    def _evaluate_and_save(self) -> bool:
        """Evaluate, save `last` and (on improvement) `best`; True when patience is exhausted."""
        st = self.state
        st["last_eval_step"] = int(st["step"])
        metrics = self.evaluate()
        # Higher dev BLEU wins; equal BLEU (or no BLEU) falls back to lower dev loss.
        value = [metrics.get("dev_bleu", 0.0), -metrics["dev_loss"]]
        improved = st["best"] is None or value > list(st["best"])
        if improved:
            st["best"], st["bad_evals"] = value, 0
        else:
            st["bad_evals"] = int(st["bad_evals"]) + 1
        rec = {"event": "eval", "step": int(st["step"]), **metrics, "best": improved}
        self._log(rec)
        self._emit("eval", **rec)
        if improved:
            self.save("best")
        self.save("last")
        if self.cfg.keep_checkpoints > 0:
            self._keep_step()
        return self.cfg.patience > 0 and int(st["bad_evals"]) >= self.cfg.patience

    def _time_up(self, elapsed: float) -> bool:
        assert self.cfg.max_time is not None
        return broadcast_floats(self.info, [float(elapsed >= self.cfg.max_time)])[0] > 0

    def _eta(self, step: int, start_step: int, elapsed: float) -> float | None:
        rate = (step - start_step) / max(elapsed, 1e-9)
        left: list[float] = []
        if self.cfg.max_steps is not None:
            left.append((self.cfg.max_steps - step) / max(rate, 1e-9))
        if self.cfg.max_time is not None:
            left.append(self.cfg.max_time - elapsed)
        return max(0.0, min(left)) if left else None


def train(cfg: TrainConfig, callback: Callback | None = None) -> Path:
    """Run one training (a process of a torchrun job, or alone); returns the best checkpoint."""
    trainer = Trainer(cfg, callback)
    try:
        return trainer.run()
    finally:
        shutdown(trainer.info)
