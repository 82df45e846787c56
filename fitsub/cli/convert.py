"""`fitsub convert`: turn another toolkit's translation model into a fitsub model directory."""

from __future__ import annotations

from pathlib import Path

import typer

from fitsub.errors import InputError

FORMATS = ("fairseq",)


def convert_cmd(
    fmt: str = typer.Argument(..., metavar="FORMAT", help="The model's toolkit: fairseq."),
    checkpoint: Path = typer.Argument(
        ..., metavar="CHECKPOINT", help="The model file (fairseq: checkpoint.pt)."
    ),
    out: Path = typer.Argument(..., metavar="OUT", help="The fitsub model directory to write."),
    spm: Path | None = typer.Option(
        None, "--spm", help="The SentencePiece model (default: the *.model beside CHECKPOINT)."
    ),
    dict_dir: Path | None = typer.Option(
        None, "--dict-dir", help="Where dict.SRC.txt / dict.TGT.txt are (default: beside it)."
    ),
    src_lang: str | None = typer.Option(None, "--src-lang", help="Source language code."),
    tgt_lang: str | None = typer.Option(None, "--tgt-lang", help="Target language code."),
    dtype: str = typer.Option("float32", "--dtype", help="float32, float16 or bfloat16 weights."),
    force: bool = typer.Option(False, "--force", help="Replace OUT even if it holds files."),
) -> None:
    """Convert a fairseq Transformer checkpoint into a fitsub model (no pickled code is run).

    fairseq: CHECKPOINT is a `transformer`-family checkpoint.pt; dict.SRC.txt, dict.TGT.txt and
    the SentencePiece model are read from beside it. The languages
    come from the checkpoint's arguments unless --src-lang / --tgt-lang are given. The model
    has no length input: `fitsub translate` runs it unconstrained, with each segment's hard
    budget still enforced by the search.

    Example: fitsub convert fairseq run/checkpoint_best.pt models/en-it-fairseq
    """
    from fitsub.cli.export import check_model_out
    from fitsub.convert.fairseq import convert_fairseq

    if fmt not in FORMATS:
        raise InputError(None, f"unknown model format {fmt!r}; converted: {', '.join(FORMATS)}")
    check_model_out(out, dtype, force, "convert")
    done = convert_fairseq(
        checkpoint,
        out,
        spm_model=spm,
        dict_dir=dict_dir,
        src_lang=src_lang,
        tgt_lang=tgt_lang,
        dtype=dtype,
    )
    c = done.config
    norm = "pre-norm" if c.norm_first else "post-norm"
    print(
        f"wrote {done.out}: fairseq {done.arch} {c.src_lang}-{c.tgt_lang}, {c.enc_layers}+"
        f"{c.dec_layers} layers, d {c.d_model}, {c.n_heads} heads, {norm}, {c.activation}, "
        f"embeddings tied: {c.tie_embeddings}, vocabulary {c.vocab_size} ({dtype})"
    )
    if done.unused_symbols:
        print(
            f"{done.unused_symbols} dictionary symbols are not SentencePiece pieces: never produced"
        )
    if done.dropped_pieces:
        print(f"{done.dropped_pieces} SentencePiece pieces are not in the dictionary: left out")
    print("no length input: translate runs it unconstrained; the hard budget still applies")
