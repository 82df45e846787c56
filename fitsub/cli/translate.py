"""`fitsub translate`: its options, one line each; the command builds the run and translates."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fitsub.cli.many_files import expand_inputs
from fitsub.cli.options import (
    Beam,
    BudgetUnit,
    Cps,
    Device,
    Encoding,
    InputFormat,
    Isochrony,
    Lang,
    LengthPredictor,
    Lines,
    Profile,
    RankBy,
    SpeechRate,
    Terms,
    Threads,
)
from fitsub.cli.translate_batch import check_batch, translate_batch
from fitsub.cli.translate_one import translate_one
from fitsub.cli.translation import TranslateFlags, resolve_run
from fitsub.formats import EXTENSIONS

Inputs = Annotated[
    list[Path],
    typer.Argument(
        help="Subtitles (.srt .vtt .ass .ssa), slides (.txt .md .pptx), folders or glob "
        "patterns; '-': standard input.",
        show_default=False,
    ),
]
Output = Annotated[
    Path | None,
    typer.Option(
        "-o",
        "--output",
        help="Output file (default: the input name with the language added; '-': stdout).",
    ),
]
OutDir = Annotated[
    Path | None,
    typer.Option(
        "--out-dir",
        help="Write every output into this folder (batch runs; a named folder's layout is kept).",
    ),
]
SrcLang = Annotated[str | None, typer.Option("--src-lang", help="Source language (default: en).")]
Ratio = Annotated[
    float | None,
    typer.Option(
        "--ratio",
        help="Isometric mode: budget = ratio × source characters (capped by the slot). "
        "Default: slot mode for subtitles (the cue's CPL × lines and CPS × duration), "
        "ratio 1.0 for slides without a box.",
    ),
]
MinRatio = Annotated[
    float | None,
    typer.Option(
        "--min-ratio",
        help="Also a lower bound, e.g. 0.9 for dubbing (as long as the source); isometric mode.",
    ),
]
Cpl = Annotated[
    int | None,
    typer.Option("--cpl", help="Characters per line (default per language or profile)."),
]
Model = Annotated[
    Path | None,
    typer.Option(
        "--model",
        help="fitsub model directory, or a Hugging Face model directory / hub id (default: shipped model).",
    ),
]
Compare = Annotated[
    bool,
    typer.Option(
        "--compare/--no-compare",
        help="Show the unconstrained translation beside the fitted one (it is always computed: "
        "the output is the same either way).",
        metavar="",
    ),
]
PerCue = Annotated[
    bool,
    typer.Option("--per-cue", help="Translate cue by cue (no sentence grouping).", metavar=""),
]
Glossary = Annotated[
    Path | None,
    typer.Option(
        "--glossary",
        help="TSV of terms: 'source<TAB>target', or a term alone to keep it as it is.",
    ),
]
Report = Annotated[
    Path | None,
    typer.Option("--report", help="Write the comparison as JSON here (batch: every file in one)."),
]
Review = Annotated[
    Path | None,
    typer.Option(
        "--review",
        help="Write a bilingual review file here: review.tsv or review.html (by extension).",
    ),
]
TableFormat = Annotated[
    str,
    typer.Option(
        "--table-format",
        help="Per-segment table: auto (rich on a terminal, tsv otherwise), rich, tsv or json.",
    ),
]
Wide = Annotated[
    bool,
    typer.Option(
        "--wide",
        help="Every column of the per-segment table (default: those the terminal's width holds).",
        metavar="",
    ),
]
Strict = Annotated[
    bool,
    typer.Option(
        "--strict",
        help="Exit 3 when any segment carries a quality flag (0 otherwise).",
        metavar="",
    ),
]
LengthPolicy = Annotated[
    str,
    typer.Option(
        "--length-policy",
        help="Length asked of a segment that must be fitted: source (slot mode: the "
        "unconstrained translation's length capped by the budget; isometric mode: the budget, "
        "ratio × source) or predicted (the shipped length predictor's, capped by the budget).",
    ),
]
QualityThreshold = Annotated[
    float | None,
    typer.Option(
        "--quality-threshold",
        help="Flag low-quality under this score, 0-1 (default: the language's calibrated one; "
        "higher flags more lines and finds more of the wrong ones: docs/quality.md).",
    ),
]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.", metavar="")]


def translate_cmd(
    inputs: Inputs,
    output: Output = None,
    out_dir: OutDir = None,
    fmt: InputFormat = None,
    encoding_in: Encoding = None,
    lang: Lang = None,
    src_lang: SrcLang = None,
    profile: Profile = None,
    ratio: Ratio = None,
    min_ratio: MinRatio = None,
    cpl: Cpl = None,
    unit: BudgetUnit = None,
    isochrony: Isochrony = "source",
    speech_rate: SpeechRate = None,
    rank_by: RankBy = None,
    lines: Lines = None,
    cps: Cps = None,
    model: Model = None,
    beam: Beam = 5,
    device: Device = "auto",
    threads: Threads = None,
    compare: Compare = True,
    per_cue: PerCue = False,
    glossary: Glossary = None,
    terms: Terms = None,
    report: Report = None,
    review: Review = None,
    table_format: TableFormat = "auto",
    wide: Wide = False,
    strict: Strict = False,
    length_policy: LengthPolicy = "source",
    length_predictor: LengthPredictor = None,
    quality_threshold: QualityThreshold = None,
    quiet: Quiet = False,
) -> None:
    """Translate subtitles or slides so that each segment fits its budget, and compare.

    Every fitted segment gets quality flags (cut-word, number-changed, meaning-reversed, untranslated,
    dropped-content, over-budget, repeated-token, low-quality); with --strict the exit status is 3 when any
    segment carries one. The output is written either way. Several inputs, a folder or a glob
    pattern make a batch run: one model load, one line per file, exit 2 at the end when a file
    failed (the others are translated).

    Example: fitsub translate samples/talk.srt --lang it --ratio 1.0
    """
    flags = TranslateFlags(**locals())  # the parameters above, as given
    run = resolve_run(flags)
    files = expand_inputs(inputs, EXTENSIONS)
    if out_dir is not None or len(files) > 1:
        check_batch(files, output, review)
        translate_batch(run, files, out_dir)
    else:
        translate_one(run, files[0][0], output, review)
