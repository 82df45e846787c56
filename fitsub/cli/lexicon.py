"""`fitsub lexicon`: build the target-language lexicon a model's search keeps to."""

from __future__ import annotations

from pathlib import Path

import typer


def lexicon_cmd(
    model: Path = typer.Argument(..., help="The model directory (e.g. models/en-it)."),
    data: Path = typer.Option(..., "--data", help="Folder of the training text (NAME.xx files)."),
    corpus: list[str] = typer.Option(
        ..., "--corpus", help="A training corpus (file stem), repeated: those the model card lists."
    ),
    min_count: int = typer.Option(
        2, "--min-count", help="Keep words seen at least this often (2 drops one-off typos)."
    ),
    lang: str | None = typer.Option(
        None, "--lang", help="Target language (default: the model's; one of a multilingual's)."
    ),
    out: Path | None = typer.Option(
        None, "--out", help="The file to write (default: MODEL/lexicon.txt.gz)."
    ),
) -> None:
    """Build MODEL's lexicon: the words of its training target text, with counts (gzip text).

    The search keeps every word of a translation to the lexicon or the source
    (docs/lexicon.md). Corpus weights such as `tatoeba:0.5` are accepted and ignored: a word
    counts once per occurrence in the text.

    Example: fitsub lexicon models/en-it --data ../shared/data/en-it/train --corpus tatoeba
    --corpus gettext-ui
    """
    from fitsub.cli.models import training_target
    from fitsub.quality.lexicon import LEXICON_FILE, build_lexicon

    language = training_target(model, lang, data)
    names = [c.split(":")[0] for c in corpus]
    lex = build_lexicon(
        data=data,
        corpora=names,
        language=language,
        out=out or model / LEXICON_FILE,
        min_count=min_count,
    )
    size = lex.path.stat().st_size if lex.path is not None else 0
    print(f"wrote {lex.path} ({len(lex):,} words seen >= {min_count} times, {size / 1e3:.0f} kB)")
