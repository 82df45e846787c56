"""`fitsub dub-check`: speak a dub and its source with espeak-ng and compare line durations."""

from __future__ import annotations

from pathlib import Path

import typer

from fitsub.cli.options import SecondVoice, SpeechRate


def dub_check_cmd(
    dub: Path = typer.Argument(..., help="The dubbed (translated) subtitle file, e.g. OUT.srt."),
    source: Path = typer.Option(..., "--source", help="The source subtitle file it translates."),
    lang: str = typer.Option(..., "--lang", help="Language of the dub (it, de, fr, es, en)."),
    src_lang: str = typer.Option("en", "--src-lang", help="Language of the source."),
    speech_rate: SpeechRate = None,
    voice: SecondVoice = None,
    json_out: Path | None = typer.Option(None, "--json", help="Write the report as JSON here."),
    plot: Path | None = typer.Option(
        None, "--plot", help="Write a PNG of the duration ratio per cue here."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No table on stdout."),
) -> None:
    """Speak every source and dubbed line with espeak-ng and check each line's duration.

    Each dubbed line's synthesized duration is compared with its window, the synthesized
    source line's: outside ±15 % it is flagged too-long-to-speak or too-short-to-speak. The
    table also gives the cue's duration, the estimated speaking time (syllables ÷ rate) and
    whether the spoken line fits its cue. espeak-ng is a program fitsub runs (never links);
    without it the command says how to install it and exits 2. --voice festival (Italian)
    times every dubbed line with festival too, reported beside espeak-ng.

    Example: fitsub dub-check build/scene.it.srt --source samples/dubbing/scene.srt --lang it
    --voice festival --json build/scene.dub.json --plot build/scene.dub.png
    """
    from fitsub.cli.console import say
    from fitsub.cli.documents import load_input
    from fitsub.dubbing.check import check_dub, plot_ratios, report_table, write_json
    from fitsub.io.plotting import require_matplotlib

    if plot is not None:
        require_matplotlib()
    report = check_dub(
        load_input(source),
        load_input(dub),
        src_lang=src_lang,
        lang=lang,
        speech_rate=speech_rate,
        voice=voice,
    )
    if not quiet:
        print(report_table(report))
    if json_out is not None:
        write_json(report, json_out)
        say(f"wrote {json_out}")
    if plot is not None:
        plot_ratios(report, plot)
        say(f"wrote {plot}")
