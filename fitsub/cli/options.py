"""Options and checks several commands share: one definition each, the same flag and help."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer

from fitsub.errors import InputError
from fitsub.profiles import MOST  # (the largest value each numeric option takes)

DEVICES = ("auto", "cpu", "cuda")
STRICT_EXIT = 3  # `translate --strict`: some segment carries a quality flag
LANG_HELP = (
    "Target language (sets the CPL / lines / CPS defaults): it, de, fr, es, en (default: it, "
    "or fitsub.toml's)."
)
PROFILE_HELP = "Style profile: netflix-it, bbc, ted, dubbing… (`fitsub profiles` lists them)."
FORMAT_HELP = (
    "Input format: srt, vtt, ass, ssa, slides (.txt), md, pptx (default: from the extension; "
    "sniffed for '-')."
)
ENCODING_HELP = "Input encoding, e.g. cp1252 (default: detected; invalid UTF-8 is an error)."

Device = Annotated[str, typer.Option("--device", help="auto, cpu or cuda.")]
Beam = Annotated[int, typer.Option("--beam", min=1, max=1000, help="Beam size.")]
Threads = Annotated[
    int | None,
    typer.Option(
        "--threads",
        min=1,
        max=4096,
        help="CPU threads (default: the cores other programs leave free, followed as they change).",
    ),
]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")]
BudgetUnit = Annotated[
    str | None,
    typer.Option(
        "--unit",
        help="Budget unit: char, or syllables / seconds for dubbing (the speaking window; "
        "espeak-ng). Default: char; seconds with --profile dubbing.",
    ),
]
Isochrony = Annotated[
    str, typer.Option("--isochrony", help="Dubbing window: the source's speaking time, or the cue.")
]
SpeechRate = Annotated[
    float | None,
    typer.Option("--speech-rate", help="Syllables/s of --lang (default: Pellegrino et al. 2011)."),
]
Lang = Annotated[str | None, typer.Option("--lang", help=LANG_HELP)]
Profile = Annotated[str | None, typer.Option("--profile", help=PROFILE_HELP)]
Lines = Annotated[int | None, typer.Option("--lines", help="Lines per cue (default per language).")]
Cps = Annotated[float | None, typer.Option("--cps", help="Reading speed, characters per second.")]
InputFormat = Annotated[str | None, typer.Option("--format", help=FORMAT_HELP)]
Encoding = Annotated[str | None, typer.Option("--encoding", help=ENCODING_HELP)]
LengthPredictor = Annotated[
    Path | None,
    typer.Option(
        "--length-predictor",
        help="Length predictor directory (default: MODEL/length-predictor).",
    ),
]


def language_code(lang: str) -> str:
    """A language code as fitsub names models and limits: `IT` → `it`, `pt_BR` → `pt-br`."""
    code = lang.strip().lower().replace("_", "-")
    if not code:
        raise InputError(None, "must name a language, e.g. it", setting="lang")
    return code


def check_device(device: str) -> str:
    """`device` when it is auto, cpu or cuda; else an `InputError` about `--device`."""
    if device not in DEVICES:
        raise InputError(None, f"must be auto, cpu or cuda, got {device!r}", setting="device")
    return device


def check_positive(setting: str, value: float | None) -> None:
    """An `InputError` about `setting` when `value` is given and not a finite number above zero
    (nor above `MOST`)."""
    if value is None:
        return
    if not math.isfinite(value) or value <= 0:
        raise InputError(None, f"must be positive, got {value}", setting=setting)
    if setting in MOST and value > MOST[setting]:
        raise InputError(None, f"must be at most {MOST[setting]:g}, got {value:g}", setting=setting)


def check_share(setting: str, value: float) -> None:
    """An `InputError` about `setting` when `value` is not a number from 0 to 1."""
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise InputError(None, f"must be from 0 to 1, got {value}", setting=setting)


def split_list(values: list[str] | None) -> list[str]:
    """Repeated options and comma-separated values: `--ratio 1.0,0.9 --ratio 0.8`."""
    return [part.strip() for v in values or [] for part in v.split(",") if part.strip()]
