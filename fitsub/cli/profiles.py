"""`fitsub profiles`: the style profiles, built in and from fitsub.toml, with their values."""

from __future__ import annotations

import json

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from fitsub.cli.limits import settings


def profiles_cmd(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """List the style profiles: CPL, lines, CPS, minimum duration and gap, ratio, source.

    Example: fitsub translate talk.srt --lang it --profile netflix-it
    """
    config = settings()
    profiles = list(config.profiles.values())
    if as_json:
        typer.echo(json.dumps([p.to_dict() for p in profiles], ensure_ascii=False, indent=2))
        return
    table = Table(title="style profiles (docs/profiles.md)")
    for name in ("profile", "cpl", "lines", "cps", "min dur. ms", "min gap ms", "ratio"):
        table.add_column(name, justify="left" if name == "profile" else "right", no_wrap=True)
    table.add_column("source", overflow="fold")
    for p in profiles:
        ratio = "" if p.ratio is None else f"{p.min_ratio or 0:g}–{p.ratio:g}"
        cps = f"{p.cps:g}" if p.reading_speed else "—"
        table.add_row(
            p.name,
            str(p.cpl),
            str(p.lines),
            cps,
            str(p.min_duration_ms),
            str(p.min_gap_ms),
            ratio,
            Text(p.source),
        )
    Console().print(table)
    if config.path is not None:
        Console().print(Text(f"config: {config.path}"), highlight=False)
