"""A prepared training set: the data step of `fitsub train` done once, written compactly, read
in a second by `fitsub train --prepared DIR` (no text is touched when training from it).

Layout of DIR (`fitsub prepare`):
    manifest.json     format, fitsub version, the data settings (`DataConfig` without out_dir),
                      SentencePiece's thread count, what filtering did, every file's SHA-256
    spm.model         the tokenizer the ids were made with
    data.safetensors  token ids as integer arrays (uint16 when the vocabulary allows), lengths per
                      sentence, target lengths in the length unit, target/source character ratios
                      (float64, so a run from DIR makes the same batches as one from the text)
    dev.json          the dev pairs as text (src, tgt and, for a multilingual set, languages)

Loading checks the format, every hash and the arrays' consistency: a set from another version,
a corrupt file or a truncated array is one InputError, never a wrong batch.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from fitsub import __version__
from fitsub.errors import InputError
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.train.config import DataConfig, TrainConfig
from fitsub.train.corpus import Corpus, Encoded
from fitsub.train.run_data import DataReport, Prepared

FORMAT = "fitsub-prepared-1"
MANIFEST, DATA, DEV, SPM = "manifest.json", "data.safetensors", "dev.json", "spm.model"
# DataConfig fields a prepared set fixes (out_dir only says where a tokenizer is written)
SETTINGS = tuple(f.name for f in fields(DataConfig) if f.name not in ("out_dir", "spm_threads"))


def settings_of(cfg: DataConfig) -> dict[str, Any]:
    """The JSON-ready data settings of `cfg` (what a prepared set records and a run must match)."""
    d = asdict(cfg)
    d["tgt_langs"] = list(cfg.tgt_langs)
    return {k: d[k] for k in SETTINGS}


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _narrow(a: np.ndarray) -> np.ndarray:
    """`a` (non-negative integers) as uint16 when every value fits, else int32."""
    return a.astype(np.uint16) if a.size == 0 or int(a.max()) < 1 << 16 else a.astype(np.int32)


def _arrays(enc: Encoded, part: str) -> dict[str, np.ndarray]:
    return {
        f"{part}.src_ids": _narrow(enc.src_ids),
        f"{part}.src_lens": _narrow(enc.src_lens),
        f"{part}.tgt_ids": _narrow(enc.tgt_ids),
        f"{part}.tgt_lens": _narrow(enc.tgt_lens),
        f"{part}.tgt_units": _narrow(enc.tgt_units),
        f"{part}.ratio": enc.ratio.astype(np.float64),
    }


def save_prepared(prepared: Prepared, cfg: DataConfig, out: Path, spm_threads: int) -> None:
    """Write `prepared` as DIR `out` (built in a sibling temporary directory, renamed into place;
    an existing `out` is replaced only after the new one is complete)."""
    from safetensors.numpy import save_file

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)  # mkdtemp's 0700 is for secrets; a data set is not one
    try:
        prepared.tokenizer.save(tmp / SPM)
        save_file({**_arrays(prepared.train, "train"), **_arrays(prepared.dev, "dev")}, tmp / DATA)
        dev = prepared.dev_text
        dev_json = {"src": dev.src, "tgt": dev.tgt, "lang": dev.lang}
        (tmp / DEV).write_text(json.dumps(dev_json, ensure_ascii=False), "utf-8")
        manifest = {
            "format": FORMAT,
            "fitsub_version": __version__,
            "settings": settings_of(cfg),
            "spm_threads": spm_threads,
            "report": asdict(prepared.report),
            "pairs": {"train": len(prepared.train), "dev": len(prepared.dev)},
            "files": {name: _sha256(tmp / name) for name in (SPM, DATA, DEV)},
        }
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1), "utf-8")
        old = None
        if out.exists():
            old = out.with_name(f".{out.name}.old-{os.getpid()}")
            os.replace(out, old)
        os.replace(tmp, out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def read_manifest(path: Path) -> dict[str, Any]:
    """DIR's manifest (InputError: not a prepared set, or one of another format)."""
    try:
        manifest = json.loads((path / MANIFEST).read_text("utf-8"))
    except (OSError, ValueError) as err:
        raise InputError(path, f"not a prepared training set (no readable {MANIFEST})") from err
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else None
        raise InputError(
            path, f"a prepared set of format {found!r}, not {FORMAT!r}: run `fitsub prepare` again"
        )
    settings = manifest.get("settings")
    if not isinstance(settings, dict) or set(settings) != set(SETTINGS):
        raise InputError(path, "its manifest's settings are not this version's: prepare it again")
    return manifest


def _encoded(arrays: dict[str, np.ndarray], part: str, vocab: int) -> Encoded:
    a = {k.split(".", 1)[1]: v for k, v in arrays.items() if k.startswith(part + ".")}
    n = len(a["src_lens"])
    off = {}
    for side in ("src", "tgt"):
        lens = a[f"{side}_lens"].astype(np.int64)
        off[side] = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lens, out=off[side][1:])
        ids = a[f"{side}_ids"]
        if len(lens) != n or int(off[side][-1]) != len(ids) or (ids.size and ids.max() >= vocab):
            raise ValueError(f"{part} {side} arrays disagree")
    if len(a["tgt_units"]) != n or len(a["ratio"]) != n:
        raise ValueError(f"{part} lengths disagree")
    return Encoded(
        src_ids=a["src_ids"].astype(np.int32),
        src_off=off["src"],
        tgt_ids=a["tgt_ids"].astype(np.int32),
        tgt_off=off["tgt"],
        tgt_units=a["tgt_units"].astype(np.int64),
        ratio=a["ratio"].astype(np.float64),
    )


def load_prepared(path: Path) -> tuple[Prepared, dict[str, Any]]:
    """The prepared set in DIR `path` and its manifest (InputError: missing, of another format,
    a file whose hash differs from the manifest's, or arrays that disagree)."""
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    manifest = read_manifest(path)
    hashes = manifest.get("files", {})
    for name in (SPM, DATA, DEV):
        try:
            ok = _sha256(path / name) == hashes.get(name)
        except OSError:
            raise InputError(path / name, "missing from the prepared set") from None
        if not ok:
            raise InputError(path / name, "corrupt: its SHA-256 differs from the manifest's")
    tokenizer = Tokenizer.load(path / SPM)
    try:
        arrays = load_file(str(path / DATA))
        train = _encoded(arrays, "train", tokenizer.vocab_size)
        dev = _encoded(arrays, "dev", tokenizer.vocab_size)
        d = json.loads((path / DEV).read_text("utf-8"))
        dev_text = Corpus(list(d["src"]), list(d["tgt"]), d["lang"])
        report = DataReport(**manifest["report"])
    except (SafetensorError, KeyError, ValueError, TypeError) as err:
        raise InputError(path / DATA, f"corrupt prepared arrays: {err}") from None
    if len(dev_text) != len(dev):
        raise InputError(path / DEV, "its dev pairs disagree with the dev arrays")
    prepared = Prepared(tokenizer=tokenizer, train=train, dev=dev, dev_text=dev_text, report=report)
    return prepared, manifest


def contradictions(settings: dict[str, Any], given: dict[str, Any]) -> list[str]:
    """`name (prepared: X, asked: Y)` for each setting in `given` that differs from the set's."""
    out = []
    for name, value in given.items():
        have = settings.get(name)
        if isinstance(value, tuple):
            value = list(value)
        if have != value:
            out.append(f"{name} (prepared: {have!r}, asked: {value!r})")
    return out


def prepare_to(cfg: DataConfig, out: Path, tokenizer: Tokenizer | None = None) -> Prepared:
    """Read, weight, deduplicate, filter and split the data of `cfg`, train SentencePiece with
    `cfg.spm_threads` threads (or encode with `tokenizer`), and write the set as DIR `out`."""
    import torch

    from fitsub.train.distributed import DistInfo
    from fitsub.train.run_data import prepare_data

    one = DistInfo(rank=0, world=1, local_rank=0, device=torch.device("cpu"))
    with tempfile.TemporaryDirectory(prefix=".fitsub-prepare-") as work:
        prepared = prepare_data(replace(cfg, out_dir=work), tokenizer, one)
    save_prepared(prepared, cfg, out, spm_threads=cfg.spm_threads if tokenizer is None else 0)
    return prepared


def with_prepared(cfg: TrainConfig, path: Path, given: dict[str, Any]) -> TrainConfig:
    """`cfg` training from the prepared set at `path`: its data settings taken from the set's
    manifest; InputError (one line) when a setting in `given` (flags the command line gave:
    data settings, `tgt` as comma-separated languages) contradicts them."""
    settings = read_manifest(path)["settings"]
    asked = dict(given)
    if "tgt" in asked:
        langs = [t.strip() for t in str(asked.pop("tgt")).split(",") if t.strip()]
        asked["tgt_lang"] = langs[0] if langs else ""
        asked["tgt_langs"] = langs if len(langs) > 1 else []
    if asked.get("corpora") == []:
        asked.pop("corpora")
    wrong = contradictions(settings, asked)
    if wrong:
        raise InputError(path, f"prepared with other settings: {'; '.join(wrong)}")
    model = replace(
        cfg.model,
        src_lang=settings["src_lang"],
        tgt_lang=settings["tgt_lang"],
        tgt_langs=list(settings["tgt_langs"]),
        length_unit=settings["length_unit"],
        vocab_size=settings["vocab_size"],
    )
    run = {k: settings[k] for k in _RUN_SETTINGS}
    return replace(cfg, model=model, prepared=str(path), **run)


# the data settings that are TrainConfig's own fields (the others are the model's)
_RUN_SETTINGS = (
    "data_dir", "corpora", "train_prefixes", "dev_prefix", "dev_size", "spm_sentences",
    "max_pieces", "min_ratio", "max_ratio", "dedupe",
)  # fmt: skip
