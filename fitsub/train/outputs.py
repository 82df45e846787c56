"""What a run writes beside its checkpoints: the dev pairs as text, and the kept steps."""

from __future__ import annotations

import shutil
from pathlib import Path

from fitsub.io.atomic import atomic_write_text
from fitsub.nmt.config import ModelConfig
from fitsub.train.corpus import Corpus


def write_dev_text(out: Path, dev: Corpus, m: ModelConfig) -> None:
    """OUT/dev.SRC and OUT/dev.TGT: the dev pairs, so `fitsub eval --testset dev=OUT/dev`
    can score any run on exactly the pairs its dev BLEU was measured on."""
    parts = {"dev": dev}  # a multilingual run: OUT/dev-LANG.SRC and OUT/dev-LANG.LANG
    if dev.lang is not None:
        parts = {
            f"dev-{t}": dev.take([i for i, x in enumerate(dev.lang) if x == t]) for t in m.targets
        }
    for (stem, part), tgt in zip(parts.items(), m.targets, strict=True):
        for lang, lines in ((m.src_lang, part.src), (tgt, part.tgt)):
            atomic_write_text(out / f"{stem}.{lang}", "".join(x + "\n" for x in lines))


def keep_step(out: Path, step: int, keep: int) -> None:
    """Copy `OUT/last`'s weights to `OUT/steps/step-NNNNNN` and keep the newest `keep` of them
    (for `fitsub average`, `fitsub.train.average`)."""
    steps = out / "steps"
    dest = steps / f"step-{step:06d}"
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("config.json", "model.safetensors", "spm.model"):
        shutil.copy2(out / "last" / name, dest / name)
    kept = sorted(p for p in steps.iterdir() if p.name.startswith("step-"))
    for old in kept[:-keep]:
        shutil.rmtree(old, ignore_errors=True)


def copy_log(out: Path, name: str) -> None:
    """The run's log `OUT/NAME` copied into its `last` and `best` checkpoints (atomically)."""
    for kind in ("last", "best"):
        if (out / kind).is_dir():
            atomic_write_text(out / kind / name, (out / name).read_text("utf-8"))
