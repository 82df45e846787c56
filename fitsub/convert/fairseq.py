"""Convert a fairseq Transformer checkpoint (`checkpoint.pt` + `dict.SRC.txt` / `dict.TGT.txt` +
its SentencePiece model) into a fitsub checkpoint directory (`fitsub.nmt.checkpoint`).

The model is fairseq's `TransformerModel` (Vaswani et al. 2017 as fairseq implements it): the
`transformer` family of architectures, which the length-control papers' code builds on (Takase &
Okazaki 2019; Lakew et al. 2019). Its computation maps onto fitsub's `Transformer` as:

    x_t = sqrt(d) * E[w_t] + P(t + 2)      P: `encodings.fairseq_sinusoidal`, 2 = padding_idx + 1
    post-norm (fairseq's default):  x = LN(x + Sublayer(x)), no final LayerNorm
    pre-norm (`--*-normalize-before`):  x = x + Sublayer(LN(x)), a final LayerNorm
    attention q, k, v, out_proj -> fitsub's fused `qkv` / `q` + `kv` and `proj`; fc1, fc2 ->
    `ff.up`, `ff.down` (ReLU or GELU); shared / separate embeddings -> `tie_embeddings`

A fairseq model takes no length input: the result is a `baseline` model (no length signal), and
fitsub's search still applies each segment's hard character budget to it.

Variants fitsub's model does not have (learned positions, layernorm_embedding, unscaled
embeddings, adaptive softmax, a length-aware decoder,
BPE codes instead of SentencePiece, ...) are refused with one line, as is any weight the mapping
does not use.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from fitsub.convert.safe_load import load_restricted
from fitsub.convert.vocab import dictionary_tokenizer, joint_symbols, read_dictionary, side_rows
from fitsub.errors import InputError
from fitsub.nmt.checkpoint import build_model, save_checkpoint
from fitsub.nmt.config import ModelConfig
from fitsub.nmt.tokenizer import Tokenizer

# fairseq's `transformer` architectures (fairseq/models/transformer/transformer_legacy.py):
# name -> (attention heads, normalize_before) where the checkpoint's arguments do not say.
ARCHS: dict[str, tuple[int, bool]] = {
    "transformer": (8, False),
    "transformer_tiny": (2, False),
    "transformer_iwslt_de_en": (4, False),
    "transformer_wmt_en_de": (8, False),
    "transformer_vaswani_wmt_en_de_big": (16, False),
    "transformer_vaswani_wmt_en_fr_big": (16, False),
    "transformer_wmt_en_de_big": (16, False),
    "transformer_wmt_en_de_big_t2t": (16, True),
}
# arguments that, when set, change the computation in a way fitsub's model does not have
_UNSUPPORTED = {
    "encoder_learned_pos": "learned position embeddings",
    "decoder_learned_pos": "learned position embeddings",
    "no_token_positional_embeddings": "no position embeddings",
    "no_scale_embedding": "unscaled embeddings",
    "layernorm_embedding": "layernorm_embedding",
    "cross_self_attention": "cross+self attention",
    "adaptive_input": "adaptive input",
    "adaptive_softmax_cutoff": "adaptive softmax",
    "tie_adaptive_weights": "adaptive softmax",
    "no_decoder_final_norm": "a pre-norm decoder without final LayerNorm",
    "represent_length_by_lrpe": "a length-aware decoder (LRPE)",
    "represent_length_by_ldpe": "a length-aware decoder (LDPE)",
    "ordinary_sinpos": "a length-aware decoder",
}
_BPE_ONLY = ("subword_nmt", "fastbpe", "gpt2", "hf_byte_bpe", "bert", "byte_bpe", "characters")


@dataclass(frozen=True)
class Conversion:
    """What `convert_fairseq` wrote."""

    out: Path
    config: ModelConfig
    arch: str
    unused_symbols: int  # dictionary symbols that are no SentencePiece piece
    dropped_pieces: int  # SentencePiece pieces that are not in the dictionary


def _flat(section: Any) -> dict[str, Any]:
    """A Namespace or a dict of arguments as one flat dict (`encoder: {x}` -> `encoder_x`)."""
    d = vars(section) if isinstance(section, argparse.Namespace) else section
    if not isinstance(d, dict):
        return {}
    out: dict[str, Any] = {}
    for key, value in d.items():
        if key in ("encoder", "decoder") and isinstance(value, dict | argparse.Namespace):
            out.update({f"{key}_{k}": v for k, v in _flat(value).items()})
        else:
            out[str(key)] = value
    return out


def read_arguments(ckpt: dict[str, Any]) -> dict[str, Any]:
    """The training arguments of a fairseq checkpoint: `args` (a Namespace, older fairseq) or
    `cfg` (dicts: `model`, `task`, `bpe`; newer fairseq), flattened into one dict."""
    args = _flat(ckpt.get("args"))
    cfg = ckpt.get("cfg")
    if isinstance(cfg, dict):
        for part in ("task", "bpe", "model"):
            section = _flat(cfg.get(part))
            name = section.pop("_name", None)
            if name is not None:
                section.setdefault("arch" if part == "model" else part, name)
            args.update(section)
    return args


def _modern_names(state: dict[str, Any], path: Path) -> dict[str, Tensor]:
    """The weights under fairseq >= 0.9 names (old fused `in_proj_*` split, `layer_norms.N`
    renamed, `decoder.embed_out` as `decoder.output_projection.weight`), buffers dropped."""
    out: dict[str, Tensor] = {}
    for key, value in state.items():
        if not isinstance(value, Tensor):
            raise InputError(path, f"model entry {key!r} is not a tensor")
        if key.endswith(("._float_tensor", ".version")):
            continue  # fairseq's dummy buffers: no weights
        value = value.detach().to(torch.float32)
        if m := re.fullmatch(r"(encoder\.layers\.\d+)\.layer_norms\.([01])\.(weight|bias)", key):
            which = ("self_attn_layer_norm", "final_layer_norm")[int(m.group(2))]
            out[f"{m.group(1)}.{which}.{m.group(3)}"] = value
        elif m := re.fullmatch(r"(.*)\.in_proj_(weight|bias)", key):
            for name, part in zip(("q", "k", "v"), value.chunk(3), strict=True):
                out[f"{m.group(1)}.{name}_proj.{m.group(2)}"] = part
        elif key == "decoder.embed_out":
            out["decoder.output_projection.weight"] = value
        else:
            out[key] = value
    return out


def _layers(state: dict[str, Tensor], side: str) -> int:
    found = {int(m.group(1)) for k in state if (m := re.match(rf"{side}\.layers\.(\d+)\.", k))}
    if found != set(range(len(found))):
        raise ValueError(f"{side} layers are not numbered 0..N-1")
    return len(found)


def _arg(args: dict[str, Any], key: str, default: Any) -> Any:
    """A training argument, `default` where the checkpoint lacks it or holds None."""
    value = args.get(key)
    return default if value is None else value


def model_config(
    args: dict[str, Any],
    state: dict[str, Tensor],
    langs: tuple[str, str],
    *,
    vocab_size: int,
    dict_sizes: tuple[int, int],
) -> ModelConfig:
    """fitsub's config for the fairseq model (ValueError naming what is not supported).

    `dict_sizes`: the rows of fairseq's source and target embeddings (each dictionary and its 4
    specials); `vocab_size`: the converted vocabulary (`fitsub.convert.vocab.joint_symbols`).
    """
    arch = str(_arg(args, "arch", ""))
    if arch not in ARCHS:
        raise ValueError(
            f"architecture {arch or '(none recorded)'!r} is not a fairseq Transformer "
            f"(converted: {', '.join(ARCHS)})"
        )
    for key, what in _UNSUPPORTED.items():
        if args.get(key):
            raise ValueError(f"{what} ({key}) is not supported")
    heads, pre_norm = ARCHS[arch]
    enc_pre = bool(_arg(args, "encoder_normalize_before", pre_norm))
    dec_pre = bool(_arg(args, "decoder_normalize_before", pre_norm))
    if enc_pre != dec_pre:
        raise ValueError("a pre-norm encoder with a post-norm decoder (or the reverse)")
    n_heads = int(_arg(args, "encoder_attention_heads", heads))
    if int(_arg(args, "decoder_attention_heads", n_heads)) != n_heads:
        raise ValueError("different numbers of encoder and decoder attention heads")
    activation = str(_arg(args, "activation_fn", "relu"))
    if activation not in ("relu", "gelu"):
        raise ValueError(f"activation {activation!r} (converted: relu, gelu)")
    enc, dec = state["encoder.embed_tokens.weight"], state["decoder.embed_tokens.weight"]
    d_model = enc.size(1)
    if dec.size(1) != d_model or (enc.size(0), dec.size(0)) != dict_sizes:
        raise ValueError(
            f"embeddings {tuple(enc.shape)} / {tuple(dec.shape)} do not match the dictionaries "
            f"({dict_sizes[0]} / {dict_sizes[1]} symbols with the 4 specials) and one width"
        )
    out = state.get("decoder.output_projection.weight", dec)
    if out.shape != dec.shape:
        raise ValueError(f"output projection {tuple(out.shape)} (decoder output dim != width)")
    joined = vocab_size == dict_sizes[0] == dict_sizes[1]
    if joined and torch.equal(enc, dec) and torch.equal(dec, out):
        tie = "all"
    elif torch.equal(dec, out):
        tie = "target"
    else:
        tie = "none"
    positions = [
        int(_arg(args, "max_source_positions", 1024)),
        int(_arg(args, "max_target_positions", 1024)),
    ]
    return ModelConfig(
        vocab_size=vocab_size,
        src_lang=langs[0],
        tgt_lang=langs[1],
        d_model=d_model,
        n_heads=n_heads,
        enc_layers=_layers(state, "encoder"),
        dec_layers=_layers(state, "decoder"),
        d_ff=state["encoder.layers.0.fc1.weight"].size(0),
        dropout=float(_arg(args, "dropout", 0.1)),
        max_positions=max(positions),
        method="baseline",
        norm_first=enc_pre,
        activation=activation,
        tie_embeddings=tie,
        positions="fairseq",
        output_vocab=0 if vocab_size == dict_sizes[1] else dict_sizes[1],
        extra={"converted_from": "fairseq", "fairseq_arch": arch},
    )


def fitsub_weights(
    cfg: ModelConfig, state: dict[str, Tensor], src_rows: list[int], tgt_rows: list[int]
) -> dict[str, Tensor]:
    """fitsub's state dict from fairseq's (modern names), the embeddings' rows taken in the
    order `src_rows` / `tgt_rows` (`fitsub.convert.vocab.side_rows`); KeyError for a missing
    weight, and ValueError naming the first fairseq weight the mapping leaves unused."""
    left = dict(state)
    out: dict[str, Tensor] = {}
    rows, srows = torch.tensor(tgt_rows), torch.tensor(src_rows)

    def take(key: str) -> Tensor:
        return left.pop(key) if key in left else state[key]

    def put(dest: str, src: str, join: Callable[[list[Tensor]], Tensor] | None = None) -> None:
        for kind in ("weight", "bias"):
            parts = [take(f"{s}.{kind}") for s in src.split("+")]
            out[f"{dest}.{kind}"] = torch.cat(parts) if len(parts) > 1 else parts[0]

    dec_embed = take("decoder.embed_tokens.weight")
    out["embed.weight"] = dec_embed[rows]
    enc_embed = take("encoder.embed_tokens.weight")
    output = left.pop("decoder.output_projection.weight", dec_embed)
    if cfg.tie_embeddings != "all":
        out["src_embed.weight"] = enc_embed[srows]
    if cfg.tie_embeddings == "none":
        out["out_weight"] = output[rows]
    for i in range(cfg.enc_layers):
        f, t = f"encoder.layers.{i}", f"enc_layers.{i}"
        put(f"{t}.attn.qkv", f"{f}.self_attn.q_proj+{f}.self_attn.k_proj+{f}.self_attn.v_proj")
        put(f"{t}.attn.proj", f"{f}.self_attn.out_proj")
        put(f"{t}.ln1", f"{f}.self_attn_layer_norm")
        put(f"{t}.ff.up", f"{f}.fc1")
        put(f"{t}.ff.down", f"{f}.fc2")
        put(f"{t}.ln2", f"{f}.final_layer_norm")
    for i in range(cfg.dec_layers):
        f, t = f"decoder.layers.{i}", f"dec_layers.{i}"
        put(f"{t}.self_attn.qkv", f"{f}.self_attn.q_proj+{f}.self_attn.k_proj+{f}.self_attn.v_proj")
        put(f"{t}.self_attn.proj", f"{f}.self_attn.out_proj")
        put(f"{t}.ln1", f"{f}.self_attn_layer_norm")
        put(f"{t}.cross_attn.q", f"{f}.encoder_attn.q_proj")
        put(f"{t}.cross_attn.kv", f"{f}.encoder_attn.k_proj+{f}.encoder_attn.v_proj")
        put(f"{t}.cross_attn.proj", f"{f}.encoder_attn.out_proj")
        put(f"{t}.ln2", f"{f}.encoder_attn_layer_norm")
        put(f"{t}.ff.up", f"{f}.fc1")
        put(f"{t}.ff.down", f"{f}.fc2")
        put(f"{t}.ln3", f"{f}.final_layer_norm")
    if cfg.norm_first:
        put("enc_norm", "encoder.layer_norm")
        put("dec_norm", "decoder.layer_norm")
    if left:
        raise ValueError(f"weight {sorted(left)[0]!r} has no place in a fairseq Transformer")
    return out


def _find_spm(ckpt_path: Path, args: dict[str, Any]) -> Path:
    """The SentencePiece model beside the checkpoint (the one its arguments name, or the only
    `*.model` file there)."""
    folder = ckpt_path.parent
    bpe = str(args.get("bpe") or "")
    if bpe in _BPE_ONLY:
        raise InputError(
            ckpt_path, f"tokenised with {bpe} BPE, not SentencePiece: fitsub cannot convert it"
        )
    named = args.get("sentencepiece_model")
    if isinstance(named, str) and (folder / Path(named).name).is_file():
        return folder / Path(named).name
    models = sorted(p for p in folder.glob("*.model") if p.is_file())
    if len(models) == 1:
        return models[0]
    where = "no SentencePiece *.model" if not models else f"{len(models)} *.model files"
    raise InputError(ckpt_path, f"{where} beside the checkpoint; name it with --spm")


def _languages(
    ckpt_path: Path, args: dict[str, Any], src: str | None, tgt: str | None
) -> tuple[str, str]:
    src = src or args.get("source_lang")
    tgt = tgt or args.get("target_lang")
    if not (isinstance(src, str) and src and isinstance(tgt, str) and tgt):
        raise InputError(
            ckpt_path,
            "the checkpoint does not record its languages; pass --src-lang and --tgt-lang",
        )
    return src, tgt


def convert_fairseq(
    checkpoint: str | Path,
    out: str | Path,
    *,
    spm_model: str | Path | None = None,
    dict_dir: str | Path | None = None,
    src_lang: str | None = None,
    tgt_lang: str | None = None,
    dtype: str = "float32",
) -> Conversion:
    """Read a fairseq checkpoint (without running pickled code), map it onto fitsub's model and
    write the checkpoint directory `out` atomically. InputError (one line) for anything that is
    not a convertible fairseq Transformer; nothing is written then."""
    path = Path(checkpoint)
    ckpt = load_restricted(path)
    if not isinstance(ckpt, dict) or not isinstance(ckpt.get("model"), dict):
        raise InputError(path, "not a fairseq checkpoint (no 'model' weights)")
    args = read_arguments(ckpt)
    if not args:
        raise InputError(path, "not a fairseq checkpoint (no 'args' or 'cfg' arguments)")
    state = _modern_names(ckpt["model"], path)
    for key in ("encoder.embed_tokens.weight", "decoder.embed_tokens.weight",
                "encoder.layers.0.fc1.weight"):  # fmt: skip
        if key not in state:
            raise InputError(path, f"not a fairseq Transformer (no {key})")
    langs = _languages(path, args, src_lang, tgt_lang)
    folder = Path(dict_dir) if dict_dir is not None else path.parent
    src_dict, tgt_dict = (folder / f"dict.{lang}.txt" for lang in langs)
    src_symbols, tgt_symbols = read_dictionary(src_dict), read_dictionary(tgt_dict)
    symbols = joint_symbols(src_symbols, tgt_symbols)
    spm_path = Path(spm_model) if spm_model is not None else _find_spm(path, args)
    tokenizer, unused, dropped = dictionary_tokenizer(spm_path, symbols)
    sizes = (4 + len(src_symbols), 4 + len(tgt_symbols))
    try:
        cfg = model_config(args, state, langs, vocab_size=tokenizer.vocab_size, dict_sizes=sizes)
        src_rows, tgt_rows = side_rows(symbols, src_symbols), side_rows(symbols, tgt_symbols)
        weights = fitsub_weights(cfg, state, src_rows, tgt_rows)
    except KeyError as err:
        raise InputError(path, f"not a fairseq Transformer: no weight {err.args[0]!r}") from None
    except (ValueError, TypeError) as err:
        raise InputError(path, f"cannot convert: {err}") from None
    model = _load(cfg, tokenizer, weights, path)
    source = {"format": "fairseq", "checkpoint": path.name, "arch": cfg.extra["fairseq_arch"]}
    source |= {"spm": spm_path.name, "dictionaries": [src_dict.name, tgt_dict.name]}
    train = {"converted_from": source}
    dest = save_checkpoint(out, model, cfg, tokenizer, train, dtype=dtype, keep_existing=False)
    return Conversion(
        out=dest,
        config=cfg,
        arch=str(cfg.extra["fairseq_arch"]),
        unused_symbols=unused,
        dropped_pieces=dropped,
    )


def _load(cfg: ModelConfig, tokenizer: Tokenizer, weights: dict[str, Tensor], path: Path) -> Any:
    model = build_model(cfg, tokenizer)
    try:
        model.load_state_dict(weights, strict=True)
    except RuntimeError as err:
        first = str(err).strip().splitlines()[0]
        raise InputError(path, f"cannot convert: shapes do not fit ({first})") from None
    return model.eval()
