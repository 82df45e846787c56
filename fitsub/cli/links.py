"""`fitsub links`: build the word links a model's quality score checks the source against."""

from __future__ import annotations

from pathlib import Path

import typer


def links_cmd(
    model: Path = typer.Argument(..., help="The model directory (e.g. models/en-it)."),
    data: Path = typer.Option(
        ..., "--data", help="Folder of the training text (NAME.en and NAME.xx files)."
    ),
    corpus: list[str] = typer.Option(
        ..., "--corpus", help="A training corpus (file stem), repeated: those the model card lists."
    ),
    lang: str | None = typer.Option(
        None, "--lang", help="Target language (default: the model's; one of a multilingual's)."
    ),
    out: Path | None = typer.Option(
        None, "--out", help="The file to write (default: MODEL/links.txt.gz)."
    ),
) -> None:
    """Build MODEL's word links: the target words that translate each English word (gzip text).

    The quality score counts the source's content words that have no counterpart in the
    translation (docs/quality.md). Links are word pairs with a Dice coefficient of at least
    0.02 over the sentence pairs of the training text. Corpus weights such as `tatoeba:0.5`
    are accepted and ignored.

    Example: fitsub links models/en-it --data ../shared/data/en-it/train --corpus tatoeba
    --corpus gettext-ui
    """
    from fitsub.cli.models import training_target
    from fitsub.quality.links import LINKS_FILE, build_links

    language = training_target(model, lang, data)
    names = [c.split(":")[0] for c in corpus]
    links = build_links(data, names, language, out or model / LINKS_FILE)
    size = links.path.stat().st_size if links.path is not None else 0
    print(f"wrote {links.path} ({links.describe()}, {size / 1e3:.0f} kB)")
