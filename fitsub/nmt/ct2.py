"""CTranslate2 as the engine of the unconstrained pass (and its n-best).

The unconstrained translation asks for no length, so a length model trained with length dropout
(`NMTBackend.supports_unconstrained`) decodes it without any length term: its decoder adds only
the ordinary sinusoidal encoding of the token index (`fitsub.nmt.model`: PE(t), BOS at 0, zero
LE for a row without a length), like the encoder. That is a standard pre-norm Transformer
(Vaswani et al. 2017) with GELU or ReLU, fused QKV, embeddings tied and scaled by sqrt(d) and
final LayerNorms, which CTranslate2 represents exactly once its position table is fitsub's
(interleaved sin / cos; CTranslate2's own concatenates them). `expressible` says which
checkpoints qualify; the others (LDPE / LRPE alone, no length dropout, post-norm or untied
converted models, a partial output vocabulary) keep fitsub's own search.

Conversion at first load writes the user's cache, one folder per ctranslate2 version
(`$XDG_CACHE_HOME/fitsub/ct2/<version>/<checkpoint hash>/`, ~/.cache by default: `cache_dir`),
never the model's folder; the folders of other versions are removed when a conversion is made
(`prune_versions`). `fitsub export --ct2` writes `ct2/` beside the checkpoint's files, to ship
with it: used when it is intact, else the cache's. `STAMP` in each holds the SHA-256 of the
checkpoint's config, weights and tokenizer (`checkpoint_digest`), of the converted `model.bin`
and the ctranslate2 version: converted weights of another checkpoint or version, whose bytes
changed or that do not load are rebuilt with a note (`open_converted`, `open_engine`), and a
rebuild that still does not load is an `InputError`; stale weights never translate.

Search (`Ct2Engine.translate`): greedy is CTranslate2's greedy search; beam K runs with
`length_penalty=0`, `num_hypotheses=K` and `return_scores` (sums of log-probabilities), and the
hypotheses are re-ranked in Python by fitsub's own length normalisation
(`fitsub.nmt.search.normalised_score`, Wu et al. 2016 eq. 14). The pieces fitsub's search never
generates (pad, BOS, unk, length tokens, language tags: no characters) are suppressed. A row
whose output reaches its own length cap (`2 * source + 10` pieces, fitsub's) is handed back
(None) for fitsub's search, so a segment translates the same alone or in a batch.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fitsub.errors import InputError
from fitsub.io.cache import file_digest, user_cache
from fitsub.nmt.config import ModelConfig, has_position_term
from fitsub.nmt.ranking import normalised_score
from fitsub.nmt.tokenizer import Tokenizer

if TYPE_CHECKING:
    from fitsub.nmt.model import Transformer

CT2_DIR = "ct2"  # the converted weights, beside the checkpoint's files
STAMP = "fitsub-source.json"  # in CT2_DIR: the hashes it was converted from
CHECKPOINT_FILES = ("config.json", "model.safetensors", "spm.model")  # fitsub.nmt.checkpoint
MISSING_NOTE = (
    "ctranslate2 is not installed: the unconstrained pass runs on fitsub's own search "
    "(slower; pip install ctranslate2)"
)


def available() -> bool:
    """Whether the ctranslate2 package can be imported."""
    return importlib.util.find_spec("ctranslate2") is not None


def expressible(cfg: ModelConfig, unconstrained: bool) -> str | None:
    """Why CTranslate2 cannot run this model's unconstrained pass, or None when it can.
    `unconstrained`: the model decodes a request without a length with no length signal."""
    if not unconstrained:
        return "the model always takes a length"
    if not has_position_term(cfg.encoding):
        return f"{cfg.encoding} has no position term without a length"
    if not cfg.norm_first:
        return "post-norm layers"
    if cfg.tie_embeddings != "all" or cfg.output_vocab:
        return "untied embeddings or a partial output vocabulary"
    if cfg.positions != "vaswani":
        return f"{cfg.positions} position table"
    return None


def checkpoint_digest(model_dir: Path) -> str:
    """SHA-256 over the checkpoint's config, weights and tokenizer (names and bytes)."""
    h = hashlib.sha256()
    for name in CHECKPOINT_FILES:
        h.update(name.encode() + b"\0")
        h.update(file_digest(model_dir / name).encode())
    return h.hexdigest()


def cache_root() -> Path:
    """The user's cache of converted weights: $XDG_CACHE_HOME/fitsub/ct2 (~/.cache/...)."""
    return user_cache() / CT2_DIR


def cache_dir(model_dir: Path) -> Path:
    """Where the cache keeps the checkpoint in `model_dir` converted by this ctranslate2."""
    return cache_root() / _version() / checkpoint_digest(model_dir)


def prune_versions() -> list[Path]:
    """Remove the cache's conversions by other ctranslate2 versions; the folders removed."""
    root = cache_root()
    old = [d for d in root.iterdir() if d.name != _version()] if root.is_dir() else []
    for folder in old:
        shutil.rmtree(folder, ignore_errors=True)
    return old


def _version() -> str:
    return str(importlib.import_module("ctranslate2").__version__)


def _stamp_ok(ct2_dir: Path, digest: str) -> str | None:
    """None when `ct2_dir` holds weights converted from `digest`, intact; else what is wrong."""
    try:
        stamp = json.loads((ct2_dir / STAMP).read_text("utf-8"))
    except (OSError, ValueError):
        return "no readable stamp"
    if not isinstance(stamp, dict) or stamp.get("checkpoint_sha256") != digest:
        return "converted from another checkpoint"
    if stamp.get("ctranslate2") != _version():
        return f"converted by ctranslate2 {stamp.get('ctranslate2')}, not {_version()}"
    if not (ct2_dir / "model.bin").is_file():
        return "model.bin is missing"
    if stamp.get("model_bin_sha256") != file_digest(ct2_dir / "model.bin"):
        return "model.bin does not match its stamp"
    return None


def build_spec(model: Transformer, tokenizer: Tokenizer) -> Any:
    """The CTranslate2 `TransformerSpec` of a float fitsub model (its unconstrained mode)."""
    import torch
    from ctranslate2.specs import common_spec, transformer_spec

    from fitsub.nmt.length_encodings import sinusoidal

    cfg = model.cfg
    sd = {k: v.detach().float().cpu().numpy() for k, v in model.state_dict().items()}

    def lin(spec: Any, name: str) -> None:
        spec.weight, spec.bias = sd[f"{name}.weight"], sd[f"{name}.bias"]

    def norm(spec: Any, name: str) -> None:
        spec.gamma, spec.beta = sd[f"{name}.weight"], sd[f"{name}.bias"]

    act = common_spec.Activation.GELU if cfg.activation == "gelu" else common_spec.Activation.RELU
    spec = transformer_spec.TransformerSpec.from_config(
        (cfg.enc_layers, cfg.dec_layers), cfg.n_heads, pre_norm=True, activation=act
    )
    spec.config.layer_norm_epsilon = 1e-5  # torch.nn.LayerNorm's
    table = sinusoidal(torch.arange(cfg.max_positions), cfg.d_model).numpy()
    enc, dec = spec.encoder, spec.decoder
    enc.embeddings[0].weight = sd["embed.weight"]
    dec.embeddings.weight = sd["embed.weight"]
    dec.projection.weight = sd["embed.weight"]
    enc.position_encodings.encodings = table
    dec.position_encodings.encodings = table
    norm(enc.layer_norm, "enc_norm")
    norm(dec.layer_norm, "dec_norm")
    for i, layer in enumerate(enc.layer):
        p = f"enc_layers.{i}"
        norm(layer.self_attention.layer_norm, f"{p}.ln1")
        lin(layer.self_attention.linear[0], f"{p}.attn.qkv")
        lin(layer.self_attention.linear[1], f"{p}.attn.proj")
        norm(layer.ffn.layer_norm, f"{p}.ln2")
        lin(layer.ffn.linear_0, f"{p}.ff.up")
        lin(layer.ffn.linear_1, f"{p}.ff.down")
    for i, layer in enumerate(dec.layer):
        p = f"dec_layers.{i}"
        norm(layer.self_attention.layer_norm, f"{p}.ln1")
        lin(layer.self_attention.linear[0], f"{p}.self_attn.qkv")
        lin(layer.self_attention.linear[1], f"{p}.self_attn.proj")
        norm(layer.attention.layer_norm, f"{p}.ln2")
        lin(layer.attention.linear[0], f"{p}.cross_attn.q")
        lin(layer.attention.linear[1], f"{p}.cross_attn.kv")
        lin(layer.attention.linear[2], f"{p}.cross_attn.proj")
        norm(layer.ffn.layer_norm, f"{p}.ln3")
        lin(layer.ffn.linear_0, f"{p}.ff.up")
        lin(layer.ffn.linear_1, f"{p}.ff.down")
    vocab = [tokenizer.sp.id_to_piece(i) for i in range(tokenizer.vocab_size)]
    spec.register_source_vocabulary(vocab)
    spec.register_target_vocabulary(vocab)
    spec.config.bos_token = vocab[tokenizer.bos_id]
    spec.config.eos_token = vocab[tokenizer.eos_id]
    spec.config.unk_token = vocab[tokenizer.unk_id]
    spec.config.decoder_start_token = vocab[tokenizer.bos_id]
    return spec


def convert(model: Transformer, tokenizer: Tokenizer, out: Path, digest: str) -> Path:
    """Write the CTranslate2 model of `model` to `out` (replaced as a whole, atomically: a
    temporary folder beside it, renamed), stamped with the checkpoint's `digest`."""
    from ctranslate2.converters.converter import Converter

    spec = build_spec(model, tokenizer)

    class _FromSpec(Converter):  # type: ignore[misc,unused-ignore]  # untyped: Any or not, by mypy
        def _load(self) -> Any:
            return spec

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        _FromSpec().convert(str(tmp), force=True)
        stamp = {
            "checkpoint_sha256": digest,
            "model_bin_sha256": file_digest(tmp / "model.bin"),
            "ctranslate2": _version(),
        }
        (tmp / STAMP).write_text(json.dumps(stamp, indent=1) + "\n", "utf-8")
        if out.exists():
            shutil.rmtree(out, ignore_errors=True)
        try:
            os.replace(tmp, out)
        except OSError:  # another process put its conversion there first: keep it if it is ours
            if _stamp_ok(out, digest) is not None:
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


@dataclass(frozen=True)
class Converted:
    """Where the converted weights are, and what was done to get them (a note, or None)."""

    path: Path
    note: str | None


def open_converted(
    model_dir: Path, model: Callable[[], Transformer], tokenizer: Tokenizer
) -> Converted:
    """The converted weights of the checkpoint in `model_dir`: `ct2/` beside it when exported
    there and intact, else the user's cache (`cache_dir`); converted there (once) when missing,
    the other versions' conversions pruned, and rebuilt with a note when stale or damaged.
    `model()` gives the float model, called only to convert (it loads torch and the weights)."""
    digest = checkpoint_digest(model_dir)
    beside, cached = model_dir / CT2_DIR, cache_root() / _version() / digest
    note = None
    if beside.is_dir():
        wrong = _stamp_ok(beside, digest)
        if wrong is None:
            return Converted(beside, None)
        note = f"{beside}: {wrong}; converted into {cached}"
    if cached.is_dir():
        wrong = _stamp_ok(cached, digest)
        if wrong is None:
            return Converted(cached, note)
        note = f"{cached}: {wrong}; converted again"
    else:
        prune_versions()
    convert(model(), tokenizer, cached, digest)
    return Converted(cached, note)


@dataclass(frozen=True)
class Placement:
    """Where and how CTranslate2 runs: the device's type ("cpu", "cuda") and index, the threads."""

    device: str
    index: int
    threads: int


class Ct2Engine:
    """A CTranslate2 `Translator` over converted weights, decoding fitsub's token ids."""

    def __init__(
        self, path: Path, cfg: ModelConfig, tokenizer: Tokenizer, where: Placement
    ) -> None:
        import ctranslate2

        try:
            self.translator = ctranslate2.Translator(
                str(path),
                device=where.device,
                device_index=where.index,
                compute_type="float32",
                intra_threads=max(1, where.threads),
                inter_threads=1,
            )
        except (RuntimeError, ValueError, OSError) as err:
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise InputError(path, f"converted CTranslate2 weights do not load: {first}") from err
        self.tokenizer = tokenizer
        self.max_positions = cfg.max_positions
        self.pieces = pieces = [tokenizer.sp.id_to_piece(i) for i in range(tokenizer.vocab_size)]
        self.index = {p: i for i, p in enumerate(pieces)}
        # what fitsub's search never generates: the pieces of no characters as the model counts
        # them (`Transformer.piece_chars`: the tokenizer's, 0 for pad, BOS and EOS), EOS apart
        silent = [
            c == 0 or i in (cfg.pad_id, cfg.bos_id) for i, c in enumerate(tokenizer.piece_chars())
        ]
        self.suppress = [[pieces[i]] for i, s in enumerate(silent) if s and i != tokenizer.eos_id]

    def translate_rows(
        self, sources: Sequence[list[int]], beam: int, n_best: int, batch_size: int
    ) -> list[list[tuple[list[int], float]] | None]:
        """`translate` over batches of `batch_size` sources sorted by length; input order."""
        order = sorted(range(len(sources)), key=lambda i: len(sources[i]))
        out: list[list[tuple[list[int], float]] | None] = [None] * len(sources)
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            got = self.translate([sources[i] for i in chunk], beam, n_best)
            for i, hyps in zip(chunk, got, strict=True):
                out[i] = hyps
        return out

    def translate(
        self, sources: Sequence[list[int]], beam: int, n_best: int
    ) -> list[list[tuple[list[int], float]] | None]:
        """Per source (ids ending with EOS): `n_best` (ids, summed log-probability), best first
        by fitsub's key; None where the output reached the row's own length cap."""
        if not sources:
            return []
        k = max(beam, n_best)
        caps = [min(self.max_positions, 2 * len(s) + 10) for s in sources]
        results = self.translator.translate_batch(
            [[self.pieces[i] for i in s] for s in sources],
            beam_size=k,
            num_hypotheses=k,
            length_penalty=0.0,
            return_scores=True,
            max_decoding_length=max(caps),
            suppress_sequences=self.suppress,
            disable_unk=True,
            max_batch_size=0,
        )
        out: list[list[tuple[list[int], float]] | None] = []
        for cap, res in zip(caps, results, strict=True):
            hyps = [
                ([self.index[p] for p in h], float(s))
                for h, s in zip(res.hypotheses, res.scores, strict=True)
            ]
            if any(len(ids) >= cap - 1 for ids, _ in hyps):
                out.append(None)  # the forced end of fitsub's search: its own search decides
                continue
            if k > 1:
                hyps.sort(key=lambda h: -normalised_score(h[1], len(h[0])))
            out.append(hyps[:n_best])
        return out


ENGINE_ENV = "FITSUB_CT2"  # "off": fitsub's own search for every pass (benchmarks, checks)


def open_engine(
    model_dir: Path,
    cfg: ModelConfig,
    tokenizer: Tokenizer,
    unconstrained: bool,
    where: Callable[[], Placement],
    model: Callable[[], Transformer],
) -> tuple[Ct2Engine | None, str | None]:
    """The CTranslate2 engine of the unconstrained pass and a note to say once, or (None, why)
    where fitsub's own search runs it: ctranslate2 missing (said), the model not expressible,
    $FITSUB_CT2=off. `where()`: where it runs; `model()`: the float model, asked for only to
    convert the weights (it loads torch): an engine over converted weights needs no torch."""
    if os.environ.get(ENGINE_ENV, "").lower() in ("0", "off", "no", "false"):
        return None, None
    if expressible(cfg, unconstrained) is not None:
        return None, None
    if not available():
        return None, MISSING_NOTE
    try:
        converted = open_converted(Path(model_dir), model, tokenizer)
    except OSError as err:  # neither the model's folder nor the user's cache takes them
        return (
            None,
            f"no CTranslate2 weights ({err}): the unconstrained pass runs on fitsub's search",
        )
    try:
        engine = Ct2Engine(converted.path, cfg, tokenizer, where())
    except InputError:  # stamped but unreadable: converted again; failing again is the error
        convert(model(), tokenizer, converted.path, checkpoint_digest(Path(model_dir)))
        engine = Ct2Engine(converted.path, cfg, tokenizer, where())
        return engine, f"{converted.path}: did not load; converted again"
    return engine, converted.note


def export_converted(model_dir: Path) -> Path:
    """`fitsub export --ct2`: convert the checkpoint in `model_dir` into `model_dir/ct2`
    (replaced); InputError when CTranslate2 cannot express it, FitsubError without the package."""
    from fitsub.errors import FitsubError
    from fitsub.nmt.checkpoint import load_checkpoint

    model, tokenizer, cfg, _ = load_checkpoint(model_dir)
    why = expressible(cfg, not cfg.uses_length or cfg.length_dropout > 0)
    if why is not None:
        raise InputError(
            model_dir, f"CTranslate2 cannot run this model's unconstrained pass: {why}"
        )
    if not available():
        raise FitsubError("ctranslate2 is not installed (pip install ctranslate2)")
    return convert(model, tokenizer, model_dir / CT2_DIR, checkpoint_digest(model_dir))
