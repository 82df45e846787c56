"""Sequence-level knowledge distillation (SKD) with a perturbed length signal.

SKD (Kim & Rush 2016): a teacher translates the training sources and a student (here the CMLM of
`fitsub.nat`) is trained on the teacher's outputs instead of the references. Oka et al. 2021
(sec. 3.1) give the teacher, a Transformer with perturbed LDPE, the *reference's* length, which
improves the teacher's outputs and keeps the distilled targets' lengths close to the references'
spread instead of the teacher's preferred (usually shorter) length. `distill` does that with any
fitsub checkpoint as the teacher (beam search for an AR model):

* `length="reference"`: the teacher is asked for len(reference) + per characters, where per is a
  uniform random integer from [-k, k] (`noise_mode="symmetric"`, Oka et al.'s [-4, 4] teacher
  range) or [0, k] ("positive") in the teacher's length unit (characters, or pieces times the
  teacher's chars_per_piece), the perturbed length of perLDPE (Oka et al. 2021, eq. 1-2) applied
  at distillation time; k = 0 gives the exact reference length;
  In the paper the perturbation is applied only while *training* the teacher (models/en-it was
  trained with noise 4) and SKD gives it the exact reference length: that is `noise=0` here. The
  default k = 4 also perturbs the length asked at distillation time, so that the distilled
  lengths spread around the references' as well instead of copying them exactly;
* `length="source"`: the same with the source's length in place of the reference's (no
  references at hand);
* `length="none"`: plain SKD, the baseline: no length signal (the teacher's unconstrained
  translation; see `fitsub.nmt.backend` for a length model trained without length dropout).

Output: OUT.SRC (the sources) and OUT.TGT (the teacher's translations), line-aligned, ready for
`fitsub train --train OUT`, and OUT.distill.json: the settings, the progress, the throughput and
the length statistics. Resumable: sentences are translated in groups appended to both files; the
JSON records how many lines are complete, so a rerun with the same settings truncates any partial
group and continues where the last run stopped. The perturbations are drawn once for the whole
corpus from `seed`, so a resumed run writes exactly what an uninterrupted one would.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fitsub.backend import Request, TranslationBackend
from fitsub.errors import InputError
from fitsub.io.atomic import atomic_write_text
from fitsub.io.text import read_text_lines
from fitsub.nmt.config import NOISE_MODES
from fitsub.units import char_length

LENGTH_MODES = ("reference", "source", "none")
Progress = Callable[[int, int], None]  # (sentences done, total)


@dataclass
class DistillConfig:
    """One distillation run (saved in OUT.distill.json; a resume must use the same settings)."""

    source: str  # source sentences, one per line
    out: str  # output prefix: OUT.{src_lang}, OUT.{tgt_lang}, OUT.distill.json
    model: str  # the teacher checkpoint
    reference: str | None = None  # references, line-aligned with `source`
    src_lang: str = "en"
    tgt_lang: str = "it"
    length: str = "reference"  # one of LENGTH_MODES
    noise: int = 4  # perturbation window k in the teacher's length unit
    noise_mode: str = "symmetric"
    seed: int = 1
    limit: int | None = None  # only the first N sentences
    group: int = 256  # sentences translated (sorted and batched by the backend) per write

    def validate(self) -> None:
        """InputError for an impossible setting."""
        if self.length not in LENGTH_MODES:
            problem = f"must be one of {', '.join(LENGTH_MODES)}"
            raise InputError(None, problem, setting="length")
        if self.length == "reference" and self.reference is None:
            problem = "reference needs --reference (or use --length source)"
            raise InputError(None, problem, setting="length")
        if self.noise_mode not in NOISE_MODES:
            problem = f"must be one of {', '.join(NOISE_MODES)}"
            raise InputError(None, problem, setting="noise_mode")
        if self.noise < 0:
            raise InputError(None, f"must be >= 0, got {self.noise}", setting="noise")
        if self.limit is not None and self.limit < 1:
            raise InputError(None, f"must be >= 1, got {self.limit}", setting="limit")
        if self.group < 1:
            raise InputError(None, f"the group size must be >= 1, got {self.group}")

    def identity(self) -> dict[str, Any]:
        """The settings a resumed run must share with the run it continues."""
        d = asdict(self)
        d.pop("group")
        return d


def teacher_unit_chars(model: Path) -> float:
    """Characters per length unit of the teacher checkpoint `model`: 1 for a character-unit
    autoregressive model, else its config's `chars_per_piece` (InputError for a bad config)."""
    from fitsub.nmt.checkpoint import read_config
    from fitsub.nmt.config import config_arch

    mcfg = read_config(model)["model"]
    try:
        arch = config_arch(mcfg)
    except ValueError as err:
        raise InputError(model, f"bad model config: {err}") from None
    if mcfg.get("length_unit") != "char" or arch == "cmlm":
        return float((mcfg.get("extra") or {}).get("chars_per_piece") or 1.0)
    return 1.0


def summary(meta: dict[str, Any]) -> str:
    """The run's one line: sentences done, speed and the length ratios (OUT.distill.json's)."""
    rate = meta["sentences_per_s"]
    lens = meta["lengths"]
    ratio = "" if lens["ratio_mean"] is None else f"; length ratio {lens['ratio_mean']:.3f}"
    ratio += "" if lens["ratio_sd"] is None else f" ± {lens['ratio_sd']:.3f}"
    ref = lens["ref_ratio_mean"]
    ratio += "" if ref is None else f" (references {ref:.3f} ± {lens['ref_ratio_sd']:.3f})"
    speed = "" if rate is None else f" in {meta['seconds']:.1f} s ({rate:.1f} sentences/s)"
    return f"distilled {meta['done']}/{meta['total']} sentences{speed}{ratio}"


def output_paths(cfg: DistillConfig) -> tuple[Path, Path, Path]:
    """(OUT.SRC, OUT.TGT, OUT.distill.json)."""
    out = Path(cfg.out)
    return (
        out.with_name(f"{out.name}.{cfg.src_lang}"),
        out.with_name(f"{out.name}.{cfg.tgt_lang}"),
        out.with_name(f"{out.name}.distill.json"),
    )


def perturbations(n: int, k: int, mode: str, seed: int) -> np.ndarray:
    """(n,) per_i uniform integers in [-k, k] (symmetric) or [0, k] (positive), from `seed`."""
    low = -k if mode == "symmetric" else 0
    return np.random.default_rng(seed).integers(low, k + 1, size=n)


def requested_lengths(
    sources: Sequence[str],
    references: Sequence[str] | None,
    cfg: DistillConfig,
    unit_chars: float,
) -> list[int | None]:
    """The length in characters the teacher is asked for, per sentence (None: no signal).

    `unit_chars`: characters per unit of the teacher's length (1 for a character-unit model, its
    chars_per_piece for a subword one), so the perturbation is in the teacher's own unit.
    """
    if cfg.length == "none":
        return [None] * len(sources)
    base = references if cfg.length == "reference" else sources
    assert base is not None
    per = perturbations(len(sources), cfg.noise, cfg.noise_mode, cfg.seed)
    return [
        max(1, char_length(text) + round(int(p) * unit_chars))
        for text, p in zip(base, per, strict=True)
    ]


def _lines(path: Path) -> list[str]:
    return read_text_lines(path) if path.is_file() else []


class _Stats:
    """Running length statistics of the distilled corpus (character ratios to the source and,
    with references, to the reference)."""

    def __init__(self, saved: dict[str, float] | None = None) -> None:
        self.s: dict[str, float] = {"n": 0.0, "r": 0.0, "r2": 0.0, "ref_n": 0.0}
        self.s.update({"ref_r": 0.0, "ref_r2": 0.0, "d": 0.0, "d2": 0.0, "empty": 0.0})
        self.s.update(saved or {})

    def add(self, src: str, hyp: str, ref: str | None) -> None:
        s, h = max(char_length(src), 1), char_length(hyp)
        self.s["n"] += 1
        self.s["empty"] += h == 0
        self.s["r"] += h / s
        self.s["r2"] += (h / s) ** 2
        if ref is not None:
            g = char_length(ref)
            self.s["ref_n"] += 1
            self.s["ref_r"] += g / s
            self.s["ref_r2"] += (g / s) ** 2
            self.s["d"] += h - g
            self.s["d2"] += (h - g) ** 2

    def summary(self) -> dict[str, float | None]:
        def mean_sd(total: float, sq: float, n: float) -> tuple[float | None, float | None]:
            if n == 0:
                return None, None
            m = total / n
            return m, math.sqrt(max(sq / n - m * m, 0.0))

        s = self.s
        r, r_sd = mean_sd(s["r"], s["r2"], s["n"])
        g, g_sd = mean_sd(s["ref_r"], s["ref_r2"], s["ref_n"])
        d, d_sd = mean_sd(s["d"], s["d2"], s["ref_n"])
        return {
            "ratio_mean": r,  # distilled chars / source chars
            "ratio_sd": r_sd,
            "ref_ratio_mean": g,  # reference chars / source chars
            "ref_ratio_sd": g_sd,
            "minus_ref_mean": d,  # distilled chars - reference chars
            "minus_ref_sd": d_sd,
            "empty": s["empty"],
        }


def distill(
    cfg: DistillConfig,
    backend: TranslationBackend,
    unit_chars: float = 1.0,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Distil `cfg.source` with `backend` into OUT.SRC / OUT.TGT (resuming); returns the summary
    written to OUT.distill.json."""
    cfg.validate()
    sources = read_text_lines(Path(cfg.source))
    refs = None if cfg.reference is None else read_text_lines(Path(cfg.reference))
    if refs is not None and len(refs) != len(sources):
        raise InputError(
            cfg.reference, f"{len(refs)} lines but the source has {len(sources)} ({cfg.source})"
        )
    if cfg.limit is not None:
        sources = sources[: cfg.limit]
        refs = None if refs is None else refs[: cfg.limit]
    src_path, tgt_path, meta_path = output_paths(cfg)
    if src_path.resolve() == Path(cfg.source).resolve() or (
        cfg.reference is not None and tgt_path.resolve() == Path(cfg.reference).resolve()
    ):
        raise InputError(tgt_path, "output would overwrite an input; choose another --out")
    if not src_path.parent.is_dir():
        raise InputError(src_path.parent, "output directory does not exist")
    meta = _resume_state(cfg, meta_path, src_path, tgt_path)
    done = int(meta["done"])
    seconds = float(meta["seconds"])
    stats = _Stats(meta.get("stats"))
    lengths = requested_lengths(sources, refs, cfg, unit_chars)
    total = len(sources)
    if progress is not None:
        progress(done, total)
    t_run = time.perf_counter()
    while done < total:
        end = min(done + cfg.group, total)
        t0 = time.perf_counter()
        reqs = [
            Request(sources[i], target_chars=lengths[i], lexicon=True) for i in range(done, end)
        ]
        got = backend.translate(reqs)
        hyps = [(c[0].text if c else "").replace("\n", " ") for c in got]
        seconds += time.perf_counter() - t0
        _append(src_path, [sources[i].replace("\n", " ") for i in range(done, end)])
        _append(tgt_path, hyps)
        for j, h in enumerate(hyps):
            stats.add(sources[done + j], h, None if refs is None else refs[done + j])
        done = end
        meta = _meta(cfg=cfg, backend=backend, done=done, total=total, seconds=seconds, stats=stats)
        atomic_write_text(meta_path, json.dumps(meta, indent=2) + "\n")
        if progress is not None:
            progress(done, total)
    meta = _meta(cfg=cfg, backend=backend, done=done, total=total, seconds=seconds, stats=stats)
    meta["wall_seconds_this_run"] = time.perf_counter() - t_run
    atomic_write_text(meta_path, json.dumps(meta, indent=2) + "\n")
    return meta


def _meta(
    cfg: DistillConfig,
    backend: TranslationBackend,
    done: int,
    total: int,
    seconds: float,
    stats: _Stats,
) -> dict[str, Any]:
    return {
        "config": cfg.identity(),
        "teacher": backend.name,
        "done": done,
        "total": total,
        "seconds": seconds,  # translation time over every run, writing excluded
        "sentences_per_s": done / seconds if seconds > 0 else None,
        "stats": stats.s,
        "lengths": stats.summary(),
    }


def _append(path: Path, lines: list[str]) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("".join(line + "\n" for line in lines))
        fh.flush()
        os.fsync(fh.fileno())


def _resume_state(cfg: DistillConfig, meta_path: Path, src: Path, tgt: Path) -> dict[str, Any]:
    """The saved progress (the outputs truncated to it), or a fresh start."""
    fresh: dict[str, Any] = {"done": 0, "seconds": 0.0}
    if not meta_path.is_file():
        if src.exists() or tgt.exists():
            raise InputError(tgt, "exists without a distillation record; remove it or use --out")
        return fresh
    try:
        meta: dict[str, Any] = json.loads(meta_path.read_text("utf-8"))
        saved, done = meta["config"], int(meta["done"])
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise InputError(meta_path, f"unreadable distillation record: {err}") from None
    if saved != cfg.identity():
        changed = sorted(k for k in cfg.identity() if saved.get(k) != cfg.identity()[k])
        raise InputError(
            meta_path,
            f"a distillation with other settings ({', '.join(changed)}); use another --out",
        )
    for path in (src, tgt):  # drop a group written after the record's last update
        lines = _lines(path)
        if len(lines) < done:
            raise InputError(path, f"has {len(lines)} lines but the record says {done}")
        if len(lines) > done:
            atomic_write_text(path, "".join(line + "\n" for line in lines[:done]))
    return meta
