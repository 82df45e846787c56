"""`fitsub eval`: its options, one line each; the command resolves the run, scores it and writes
the report (`fitsub.cli.eval_config`, `fitsub.cli.eval_run`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fitsub.cli.eval_config import EvalFlags, resolve_eval
from fitsub.cli.eval_run import evaluate, write_outputs
from fitsub.cli.options import (
    Beam,
    Cps,
    Device,
    Lang,
    LengthPredictor,
    Lines,
    SpeechRate,
    Threads,
)

EPILOG = (
    "Examples:\n\n"
    "fitsub eval --model models/en-it --src test.en --ref test.it --bleu --lr"
    " --settings unconstrained,length,hard --ratio 1.0,0.9 --markdown results.md --plot plots/\n\n"
    "fitsub eval --src test.en --hyp out.it --ref test.it --lang it --ratio 0.9 --json scores.json\n\n"
    "fitsub eval --hyp out.it.srt --ref ref.it.srt --src in.srt --lang it\n\n"
    "fitsub eval --testset flores=data/flores200-devtest --lang it --max-segments 500 --bleu --lr"
)

Models = Annotated[
    list[Path] | None,
    typer.Option(
        "--model",
        help="fitsub model directory or Hugging Face model directory / hub id; repeat to compare models (default: shipped model).",
    ),
]
Sources = Annotated[
    list[Path] | None,
    typer.Option("--src", help="Source file (one segment a line, or .srt/.vtt); repeatable."),
]
References = Annotated[
    list[Path] | None,
    typer.Option("--ref", help="Reference file, one per --src / --hyp; repeatable."),
]
Hypotheses = Annotated[
    list[Path] | None,
    typer.Option(
        "--hyp",
        help="System output to score without a model (text, .srt or .vtt); repeatable.",
    ),
]
Testsets = Annotated[
    list[str] | None,
    typer.Option(
        "--testset",
        help="NAME=PREFIX: source PREFIX.<src-lang>, reference PREFIX.<lang>; repeatable.",
    ),
]
Bleu = Annotated[
    bool, typer.Option("--bleu", help="Quality: BLEU, BLEU*, chrF, per-length buckets.")
]
Lr = Annotated[
    bool, typer.Option("--lr", help="Length: LR, VAR, LC, fit (default with --bleu: both).")
]
Settings = Annotated[
    list[str] | None,
    typer.Option(
        "--settings",
        help="unconstrained, length, hard, band, iso (comma-separated or repeated; default: unconstrained,length).",
    ),
]
Ratios = Annotated[
    list[str] | None,
    typer.Option(
        "--ratio",
        help="Requested length = ratio × source characters; several: 1.0,0.9 (default 1.0).",
    ),
]
SrcLang = Annotated[str | None, typer.Option("--src-lang", help="Source language (default: en).")]
Cpl = Annotated[
    int | None, typer.Option("--cpl", help="Characters per line for subtitle compliance.")
]
Tokenize = Annotated[
    str,
    typer.Option("--tokenize", help="sacrebleu tokeniser for BLEU (13a, intl, zh, ja-mecab, ...)."),
]
MaxSegments = Annotated[
    int | None, typer.Option("--max-segments", help="Evaluate on the first N segments only.")
]
BatchSize = Annotated[int, typer.Option("--batch-size", help="Segments per translation batch.")]
JsonOut = Annotated[
    Path | None, typer.Option("--json", help="Write the report as JSON here ('-': stdout).")
]
Markdown = Annotated[
    Path | None, typer.Option("--markdown", help="Write markdown tables here ('-': stdout).")
]
Plot = Annotated[Path | None, typer.Option("--plot", help="Write PNG plots into this directory.")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No table or progress on the terminal.")]
LengthPolicies = Annotated[
    list[str] | None,
    typer.Option(
        "--length-policy",
        help="Length asked in length/hard/band settings: source (ratio × source), predicted "
        "(the length predictor's), oracle (the reference's); several: source,predicted,oracle.",
    ),
]
Unit = Annotated[
    str | None,
    typer.Option(
        "--unit", help="Also compliance in syllables or seconds (espeak-ng; docs/user-guide)."
    ),
]


def eval_cmd(
    model: Models = None,
    src: Sources = None,
    ref: References = None,
    hyp: Hypotheses = None,
    testset: Testsets = None,
    bleu: Bleu = False,
    lr: Lr = False,
    settings: Settings = None,
    ratio: Ratios = None,
    src_lang: SrcLang = None,
    lang: Lang = None,
    cpl: Cpl = None,
    lines: Lines = None,
    cps: Cps = None,
    tokenize: Tokenize = "13a",
    max_segments: MaxSegments = None,
    batch_size: BatchSize = 32,
    beam: Beam = 5,
    device: Device = "auto",
    threads: Threads = None,
    json_out: JsonOut = None,
    markdown: Markdown = None,
    plot: Plot = None,
    quiet: Quiet = False,
    length_policy: LengthPolicies = None,
    length_predictor: LengthPredictor = None,
    unit: Unit = None,
    speech_rate: SpeechRate = None,
) -> None:
    """Score translations: BLEU (sacrebleu, with signature), BLEU*, chrF, LR, VAR, LC, fit.

    Translates each test set under every setting × ratio (× model), or scores given --hyp
    outputs; subtitle outputs (.srt / .vtt) also get CPL, line-count and CPS compliance.
    """
    run = resolve_eval(EvalFlags(**locals()))  # the parameters above, as given
    write_outputs(evaluate(run), json_out=json_out, markdown=markdown, plot=plot, quiet=quiet)
