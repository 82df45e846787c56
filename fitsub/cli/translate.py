"""`fitsub translate` and `fitsub budget`: parse options, read, plan or translate, write, report."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import fields, replace
from pathlib import Path
from typing import Any, overload

import typer
from rich.console import Console
from rich.text import Text

from fitsub.backend import TranslationBackend
from fitsub.batch import (
    FileOutcome,
    batch_outputs,
    encoding_info,
    output_name,
    translate_file,
)
from fitsub.budget import Budget, limits_for, summarize_budgets
from fitsub.cli import _say, app, fail, printable, progress_bar
from fitsub.document import FORMATS, Document, Format, Segment
from fitsub.errors import FitsubError, InputError
from fitsub.formats import (
    EXTENSIONS,
    document_bytes,
    read_bytes_document,
    read_document,
    with_target_language,
)
from fitsub.glossary import load_glossary
from fitsub.io import STDIO, atomic_write_bytes, check_output_path, expand_inputs
from fitsub.lengthpred.policy import check_policy
from fitsub.pipeline import TranslateOptions, plan, translate_document
from fitsub.pipeline import summarize_results as summarize
from fitsub.profiles import Profile, resolve, tight_gaps
from fitsub.report import (
    budget_summary_table,
    budget_table,
    comparison_json,
    comparison_table,
    comparison_tsv,
    summary_table,
    write_batch_report,
    write_report,
)
from fitsub.review import check_review_path, write_review
from fitsub.settings import Settings, load_settings

STRICT_EXIT = 3  # --strict: some segment carries a quality flag
LANG_HELP = (
    "Target language (sets the CPL / lines / CPS defaults): it, de, fr, es, en (default: it, "
    "or fitsub.toml's)."
)
PROFILE_HELP = "Style profile: netflix-it, bbc, ted, dubbing… (`fitsub profiles` lists them)."
TABLE_FORMATS = ("auto", "rich", "tsv", "json")
FORMAT_ALIASES = {"md": "markdown", "txt": "slides"}
TABLE_ROWS = 1000  # `fitsub budget` prints its table in parts of this many rows
FORMAT_HELP = (
    "Input format: srt, vtt, ass, ssa, slides (.txt), md, pptx (default: from the extension; "
    "sniffed for '-')."
)
ENCODING_HELP = "Input encoding, e.g. cp1252 (default: detected; invalid UTF-8 is an error)."


def _format(fmt: str | None) -> Format | None:
    if fmt is None:
        return None
    fmt = FORMAT_ALIASES.get(fmt, fmt)
    if fmt not in FORMATS:
        raise InputError(None, f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    return fmt


def load_input(path: Path, fmt: str | None = None, encoding: str | None = None) -> Document:
    """Read the input document: a file, or standard input for `-` (format given or sniffed)."""
    if str(path) == STDIO:
        data = sys.stdin.buffer.read()
        return read_bytes_document(data, _format(fmt), Path("<stdin>"), encoding)
    return read_document(path, _format(fmt), encoding)


def write_output(doc: Document, out: Path) -> str:
    """Write the translated document to `out` (atomically) or standard output for `-`."""
    data, encoding = document_bytes(doc, None if str(out) == STDIO else out)
    if str(out) == STDIO:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        atomic_write_bytes(out, data)
    return encoding


def settings() -> Settings:
    """The config file's settings (`fitsub.settings`): current folder up, then the user's."""
    return load_settings(Path.cwd(), Path(typer.get_app_dir("fitsub")))


def _options(
    lang: str,
    ratio: float | None,
    cpl: int | None,
    lines: int | None,
    cps: float | None,
    per_cue: bool = False,
    compare: bool = True,
    min_ratio: float | None = None,
    profile: Profile | None = None,
    default_ratio: float | None = 1.0,
) -> TranslateOptions:
    """Options from flags over a profile over the language's defaults (flags always win)."""
    if profile is not None:
        ratio = ratio if ratio is not None else profile.ratio
        min_ratio = min_ratio if min_ratio is not None else profile.min_ratio
    ratio = ratio if ratio is not None else default_ratio
    if ratio is not None and ratio <= 0:
        raise InputError(None, f"--ratio must be positive, got {ratio}")
    for name, value in (("--cpl", cpl), ("--lines", lines), ("--cps", cps)):
        if value is not None and value <= 0:
            raise InputError(None, f"{name} must be positive, got {value}")
    try:
        if profile is None:
            limits = limits_for(lang, cpl=cpl, lines=lines, cps=cps)
        else:
            base = profile.limits()
            limits = dataclasses.replace(
                base,
                cpl=base.cpl if cpl is None else cpl,
                lines=base.lines if lines is None else lines,
                cps=base.cps if cps is None else cps,
                reading_speed=base.reading_speed or cps is not None,
            )
    except ValueError as err:
        raise InputError(None, str(err)) from None
    if min_ratio is not None and not 0 < min_ratio <= (ratio or min_ratio):
        raise InputError(None, f"--min-ratio must be in (0, --ratio], got {min_ratio}")
    return TranslateOptions(
        lang=lang, limits=limits, ratio=ratio, per_cue=per_cue, compare=compare, min_ratio=min_ratio
    )


def pick_profile(config: Settings, name: str | None) -> Profile | None:
    """The profile `--profile` (or the config's default) names; None when neither does."""
    name = config.get("profile", name)
    if name is None:
        return None
    try:
        return resolve(name, config.profiles)
    except ValueError as err:
        raise InputError(config.path if name != config.get("profile") else None, str(err)) from None


def default_output(src: Path, lang: str, src_lang: str) -> Path:
    """`talk.srt` → `talk.it.srt`; `talk.en.srt` → `talk.it.srt`."""
    return src.with_name(output_name(src, lang, src_lang))


def check_model_language(model: Path | None, src_lang: str, lang: str) -> None:
    """`InputError` when a fitsub checkpoint cannot produce `lang` (its config names its pair).

    Hugging Face models are checked when loaded (`fitsub.hf`), where their languages are known.
    """
    from fitsub.hf.dispatch import is_hf_model
    from fitsub.nmt.backend import resolve_model_dir

    if is_hf_model(model):
        return
    model_dir = resolve_model_dir(model, src_lang, lang)
    try:
        cfg = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))["model"]
    except (OSError, ValueError, KeyError, TypeError):
        return  # the loader reports a broken checkpoint in its own words
    pair = (cfg.get("src_lang"), cfg.get("tgt_lang"))
    wanted = lang.strip().lower().replace("_", "-").split("-")[0]
    if pair[1] is not None and wanted != pair[1]:
        raise InputError(
            model_dir,
            f"this model translates {pair[0]} → {pair[1]}; it cannot produce --lang {lang} "
            f"(use --lang {pair[1]}, or a model for {lang})",
        )


def table_layout(choice: str, to_terminal: bool) -> str:
    """The per-segment table's layout: ``rich`` on a terminal, ``tsv`` elsewhere, or as asked."""
    if choice not in TABLE_FORMATS:
        raise InputError(None, f"--table-format must be one of {', '.join(TABLE_FORMATS)}")
    if choice == "auto":
        return "rich" if to_terminal else "tsv"
    return choice


@app.command("translate")
def translate_cmd(
    inputs: list[Path] = typer.Argument(
        ...,
        help="Subtitles (.srt .vtt .ass .ssa), slides (.txt .md .pptx), folders or glob "
        "patterns; '-': standard input.",
        show_default=False,
    ),
    output: Path | None = typer.Option(
        None,
        "-o",
        "--output",
        help="Output file (default: the input name with the language added; '-': stdout).",
    ),
    out_dir: Path | None = typer.Option(
        None,
        "--out-dir",
        help="Write every output into this folder (batch runs; a named folder's layout is kept).",
    ),
    fmt: str | None = typer.Option(None, "--format", help=FORMAT_HELP),
    encoding_in: str | None = typer.Option(None, "--encoding", help=ENCODING_HELP),
    lang: str | None = typer.Option(None, "--lang", help=LANG_HELP),
    src_lang: str | None = typer.Option(None, "--src-lang", help="Source language (default: en)."),
    profile: str | None = typer.Option(None, "--profile", help=PROFILE_HELP),
    ratio: float | None = typer.Option(
        None, "--ratio", help="Budget = ratio × source characters (default 1.0: same length)."
    ),
    min_ratio: float | None = typer.Option(
        None,
        "--min-ratio",
        help="Also a lower bound, e.g. 0.9 for dubbing (as long as the source).",
    ),
    cpl: int | None = typer.Option(
        None, "--cpl", help="Characters per line (default per language or profile)."
    ),
    lines: int | None = typer.Option(None, "--lines", help="Lines per cue (default per language)."),
    cps: float | None = typer.Option(None, "--cps", help="Reading speed, characters per second."),
    model: Path | None = typer.Option(
        None,
        "--model",
        help="fitsub model directory, or a Hugging Face model directory / hub id (default: shipped model).",
    ),
    beam: int = typer.Option(5, "--beam", min=1, help="Beam size."),
    device: str = typer.Option("auto", "--device", help="auto, cpu or cuda."),
    threads: int | None = typer.Option(
        None, "--threads", min=1, help="CPU threads (default: torch's, all cores)."
    ),
    compare: bool = typer.Option(
        True,
        "--compare/--no-compare",
        help="Also translate unconstrained and compare.",
        metavar="",
    ),
    per_cue: bool = typer.Option(
        False, "--per-cue", help="Translate cue by cue (no sentence grouping).", metavar=""
    ),
    glossary: Path | None = typer.Option(
        None,
        "--glossary",
        help="TSV of terms: 'source<TAB>target', or a term alone to keep it as it is.",
    ),
    report: Path | None = typer.Option(
        None, "--report", help="Write the comparison as JSON here (batch: every file in one)."
    ),
    review: Path | None = typer.Option(
        None,
        "--review",
        help="Write a bilingual review file here: review.tsv or review.html (by extension).",
    ),
    table_format: str = typer.Option(
        "auto",
        "--table-format",
        help="Per-segment table: auto (rich on a terminal, tsv otherwise), rich, tsv or json.",
    ),
    strict: bool = typer.Option(
        False,
        "--strict",
        help="Exit 3 when any segment carries a quality flag (0 otherwise).",
        metavar="",
    ),
    length_policy: str = typer.Option(
        "source",
        "--length-policy",
        help="Length asked of the model: source (the budget, ratio × source) or predicted "
        "(the length predictor's, capped by the budget; needs the `length` extra).",
    ),
    length_predictor: Path | None = typer.Option(
        None,
        "--length-predictor",
        help="Length predictor directory (default: MODEL/length-predictor).",
    ),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="Print nothing but errors.", metavar=""
    ),
) -> None:
    """Translate subtitles or slides so that each segment fits its budget, and compare.

    Every fitted segment gets quality flags (cut-word, number-changed, untranslated,
    dropped-content, over-budget, repeated-token); with --strict the exit status is 3 when any
    segment carries one. The output is written either way. Several inputs, a folder or a glob
    pattern make a batch run: one model load, one line per file, exit 2 at the end when a file
    failed (the others are translated).

    Example: fitsub translate samples/talk.srt --lang it --ratio 1.0
    """
    if device not in ("auto", "cpu", "cuda"):
        raise InputError(None, f"--device must be auto, cpu or cuda, got {device!r}")
    config = settings()
    lang = config.get("lang", lang) or "it"
    src_lang = config.get("src_lang", src_lang) or "en"
    model = config.get("model", model)
    model = None if model is None else Path(model)
    glossary_path = config.get("glossary", glossary)
    chosen = pick_profile(config, profile)
    opts = _options(
        lang,
        ratio,
        cpl,
        lines,
        cps,
        per_cue,
        compare,
        min_ratio,
        chosen,
        config.get("ratio") or 1.0,
    )
    check_policy(length_policy, ("source", "predicted"))
    if glossary_path is not None:
        opts = dataclasses.replace(opts, glossary=load_glossary(Path(glossary_path)))
    table_layout(table_format, True)  # a bad choice is an error before any work
    files = expand_inputs(inputs, EXTENSIONS)
    batch = out_dir is not None or len(files) > 1
    if batch:
        if output is not None:
            raise InputError(None, "-o names one output; with several inputs use --out-dir")
        if review is not None:
            raise InputError(None, "--review takes one input; run it per file")
        if any(str(f) == STDIO for f, _ in files):
            raise InputError(None, "'-' (standard input) cannot be part of a batch run")
    meta: dict[str, Any] = {
        "lang": lang,
        "src_lang": src_lang,
        "profile": None if chosen is None else chosen.name,
        "ratio": opts.ratio,
        "min_ratio": opts.min_ratio,
        "limits": dataclasses.asdict(opts.limits),
        "length_policy": length_policy,
    }
    if batch:
        _translate_batch(
            files, out_dir, opts, meta, model, src_lang, device, beam, threads, fmt, encoding_in,
            report, strict, quiet, length_policy, length_predictor,
        )  # fmt: skip
        return
    src = files[0][0]
    from_stdin = str(src) == STDIO
    if output is not None:
        out = output
    else:
        out = Path(STDIO) if from_stdin else default_output(src, lang, src_lang)
    to_stdout = str(out) == STDIO
    check_output_path(out, "-o", [src], allow_stdout=True)
    check_output_path(report, "--report", [src, out])
    if report is not None and not to_stdout and os.path.abspath(report) == os.path.abspath(out):
        raise InputError(report, "--report and -o name the same file")
    if review is not None:
        check_review_path(review, [src, out])
        taken = [p for p in (report, None if to_stdout else out) if p is not None]
        if any(os.path.abspath(review) == os.path.abspath(p) for p in taken):
            raise InputError(review, "--review names the same file as -o or --report")
    doc = load_input(src, fmt, encoding_in)
    opts = _with_policy(opts, length_policy, length_predictor, model, src_lang, lang)
    backend = _open_model(model, src_lang, lang, device, beam, threads)

    console = Console(stderr=True, quiet=quiet)
    with progress_bar(console, quiet) as bar:
        task = bar.add_task("translating", total=None)
        result = translate_document(
            doc,
            backend,
            opts,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    translated = with_target_language(result.document, lang)
    encoding = write_output(translated, out)
    summary = summarize(result.segments)
    if report is not None:
        meta.update(
            input=str(src),
            output=str(out),
            format=doc.format,
            encoding=encoding,
            encoding_detected=encoding_info(doc),
            model=backend.name,
        )
        write_report(report, result.segments, summary, meta)
    if review is not None:
        write_review(review, translated, result.segments, title=f"{src} → {out}")
    if not quiet:
        # With `-o -` the translation owns standard output: the tables go to standard error.
        stdout = Console(stderr=to_stdout)
        stream = sys.stderr if to_stdout else sys.stdout
        shown_layout = table_layout(table_format, stream.isatty())
        if shown_layout == "rich":
            if compare:
                title = printable(f"{src} → {out}")
                stdout.print(comparison_table(result.segments, title=title))
            stdout.print(summary_table(summary))
        else:
            render = comparison_json if shown_layout == "json" else comparison_tsv
            stream.write(render(result.segments, summary))
            stream.flush()
        shown = "standard output" if to_stdout else printable(out)
        target = stdout if shown_layout == "rich" else console  # the TSV / JSON stays clean
        target.print(
            Text(f"wrote {shown} ({encoding}, {len(doc.segments)} segments)"), highlight=False
        )
        for warning in doc.warnings:
            console.print(Text.assemble(("warning:", "yellow"), printable(f" {src}: {warning}")))
    # What the output lost (markup it cannot carry, glossary terms) is shown even with --quiet.
    loud = Console(stderr=True)
    for warning in result.warnings:
        loud.print(Text.assemble(("warning:", "yellow"), f" {src}: {warning}"), soft_wrap=True)
    flagged = sum(1 for r in result.segments if r.flags)
    if strict and flagged:
        console.print(f"--strict: {flagged} segment(s) carry quality flags; exit {STRICT_EXIT}")
        raise typer.Exit(STRICT_EXIT)


def _with_policy(
    opts: TranslateOptions,
    length_policy: str,
    length_predictor: Path | None,
    model: Path | None,
    src_lang: str,
    lang: str,
) -> TranslateOptions:
    """The options with the length policy asked for (the predictor checked before the model)."""
    if length_policy == "source":
        return opts
    from fitsub.hf.dispatch import is_hf_model
    from fitsub.lengthpred.predictor import open_policy
    from fitsub.nmt.backend import resolve_model_dir

    owned = None if is_hf_model(model) else resolve_model_dir(model, src_lang, lang)
    policy = open_policy(length_policy, length_predictor, owned, src_lang, lang)
    return dataclasses.replace(opts, length=policy)


def _open_model(
    model: Path | None, src_lang: str, lang: str, device: str, beam: int, threads: int | None
) -> TranslationBackend:
    """The backend `--model` names (checked against `--lang` first): loaded once per run."""
    from fitsub.hf.dispatch import is_hf_model, open_hf
    from fitsub.nat.backend import open_backend  # a CMLM checkpoint gets the NAT backend
    from fitsub.nmt.backend import resolve_model_dir

    check_model_language(model, src_lang, lang)
    if is_hf_model(model):  # a Hugging Face model directory or hub id (fitsub.hf)
        return open_hf(model, src_lang, lang, device=device, beam=beam, threads=threads)
    return open_backend(
        resolve_model_dir(model, src_lang, lang), device=device, beam=beam, threads=threads
    )


def _translate_batch(
    files: list[tuple[Path, Path | None]],
    out_dir: Path | None,
    opts: TranslateOptions,
    meta: dict[str, Any],
    model: Path | None,
    src_lang: str,
    device: str,
    beam: int,
    threads: int | None,
    fmt: str | None,
    encoding_in: str | None,
    report: Path | None,
    strict: bool,
    quiet: bool,
    length_policy: str,
    length_predictor: Path | None,
) -> None:
    """Translate every file with one model load and one progress bar; exit 2 if any failed."""
    if out_dir is not None:
        check_output_path(out_dir, "--out-dir", [f for f, _ in files], directory=True)
    outputs = batch_outputs(files, out_dir, opts.lang, src_lang)
    check_output_path(report, "--report", [f for f, _ in files])
    opts = _with_policy(opts, length_policy, length_predictor, model, src_lang, opts.lang)
    backend = _open_model(model, src_lang, opts.lang, device, beam, threads)
    meta = {**meta, "model": backend.name}
    if out_dir is not None:
        out_dir.mkdir(exist_ok=True)
    console = Console(stderr=True, quiet=quiet)
    outcomes: list[FileOutcome] = []
    with progress_bar(console, quiet) as bar:
        task = bar.add_task("translating", total=len(files))
        for k, ((src, _), out) in enumerate(zip(files, outputs, strict=True)):
            bar.update(task, description=printable(f"{src.name}"), completed=k)

            def step(done: int, total: int, k: int = k) -> None:
                bar.update(task, completed=k + (done / total if total else 0))

            try:
                outcome = translate_file(
                    src, out, backend, opts, meta, _format(fmt), encoding_in, step
                )
            except FitsubError as err:
                outcome = FileOutcome(src, out, error=str(err))
            except Exception as err:  # noqa: BLE001 - one file's failure must not stop the rest
                outcome = FileOutcome(src, out, error=f"{type(err).__name__}: {err}")
            outcomes.append(outcome)
            console.print(Text(printable(outcome.line)), highlight=False, soft_wrap=True)
        bar.update(task, completed=len(files))
    loud = Console(stderr=True)
    for outcome in outcomes:
        for warning in outcome.warnings:
            loud.print(
                Text.assemble(("warning:", "yellow"), printable(f" {outcome.input}: {warning}")),
                soft_wrap=True,
            )
    if report is not None:
        entries = [
            {"input": str(o.input), "output": str(o.output), "status": "ok", **o.report}
            if o.report is not None
            else {
                "input": str(o.input),
                "output": str(o.output),
                "status": "failed",
                "error": o.error,
            }
            for o in outcomes
        ]
        write_batch_report(report, entries)
    failed = [o for o in outcomes if o.error is not None]
    done = len(outcomes) - len(failed)
    console.print(f"{done} of {len(outcomes)} files translated")
    if failed:
        for o in failed:
            _say(f"fitsub: error: {o.error}")
        fail(f"{len(failed)} of {len(outcomes)} files failed", 2)
    if strict and any(o.summary is not None and o.summary.flagged for o in outcomes):
        raise typer.Exit(STRICT_EXIT)


class CompactBudgets(Sequence[Budget]):
    """Budgets stored as tuples of their fields: a long file's summary without a Budget object
    (and its attribute dict) per segment; each is rebuilt when read."""

    def __init__(self) -> None:
        self._names = tuple(f.name for f in fields(Budget) if f.init)
        self._rows: list[tuple[Any, ...]] = []

    def append(self, budget: Budget) -> None:
        """Keep one budget."""
        self._rows.append(tuple(getattr(budget, name) for name in self._names))

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, i: int) -> Budget: ...
    @overload
    def __getitem__(self, i: slice) -> list[Budget]: ...
    def __getitem__(self, i: int | slice) -> Budget | list[Budget]:
        if isinstance(i, slice):
            return [Budget(**dict(zip(self._names, row, strict=True))) for row in self._rows[i]]
        return Budget(**dict(zip(self._names, self._rows[i], strict=True)))

    def __iter__(self) -> Iterator[Budget]:
        for row in self._rows:
            yield Budget(**dict(zip(self._names, row, strict=True)))


@app.command("budget")
def budget_cmd(
    input: Path = typer.Argument(
        ...,
        help="Subtitles (.srt .vtt .ass .ssa) or slides (.txt .md .pptx); '-': standard input.",
    ),
    lang: str | None = typer.Option(None, "--lang", help=LANG_HELP),
    profile: str | None = typer.Option(None, "--profile", help=PROFILE_HELP),
    ratio: float | None = typer.Option(
        None, "--ratio", help="Budget = ratio × source characters (default 1.0)."
    ),
    cpl: int | None = typer.Option(
        None, "--cpl", help="Characters per line (default per language)."
    ),
    lines: int | None = typer.Option(None, "--lines", help="Lines per cue (default per language)."),
    cps: float | None = typer.Option(None, "--cps", help="Reading speed, characters per second."),
    as_json: bool = typer.Option(
        False, "--json", help="Print JSON instead of a table.", metavar=""
    ),
    fmt: str | None = typer.Option(None, "--format", help=FORMAT_HELP),
    encoding_in: str | None = typer.Option(None, "--encoding", help=ENCODING_HELP),
) -> None:
    """Pre-flight check: per segment the source length, every limit and the binding one.

    Example: fitsub budget samples/talk.srt --lang it --ratio 1.0
    """
    config = settings()
    lang = config.get("lang", lang) or "it"
    chosen = pick_profile(config, profile)
    opts = _options(
        lang, ratio, cpl, lines, cps, profile=chosen, default_ratio=config.get("ratio") or 1.0
    )
    doc = load_input(input, fmt, encoding_in)
    gaps: list[str] = []
    if doc.timed and opts.limits.min_gap_ms:
        times = [(s.start_ms, s.end_ms) for s in doc.segments]
        gaps = [str(doc.segments[i].id or i + 1) for i in tight_gaps(times, opts.limits.min_gap_ms)]
    # Planned TABLE_ROWS segments at a time and printed as it goes: memory holds the document and
    # one Budget per segment, not every segment's plan, table row and JSON text at once.
    budgets = CompactBudgets()
    small: list[str] = []
    short: list[str] = []
    console = Console()
    write = sys.stdout.write
    if as_json:
        head = {
            "input": str(input),
            "lang": lang,
            "profile": None if chosen is None else chosen.name,
            "ratio": opts.ratio,
            "limits": opts.limits.__dict__,
        }
        write(json.dumps(head, ensure_ascii=False, indent=2)[:-2] + ',\n  "segments": [')
    segments: list[Segment | None] = list(doc.segments)
    doc = replace(doc, segments=(), gaps=())  # each part's segments are let go once planned
    for at in range(0, len(segments), TABLE_ROWS):
        chunk = tuple(s for s in segments[at : at + TABLE_ROWS] if s is not None)
        segments[at : at + TABLE_ROWS] = [None] * len(chunk)
        planned = [replace(p, index=at + p.index) for p in plan(replace(doc, segments=chunk), opts)]
        del chunk
        for p in planned:
            if p.budget is None:
                continue
            budgets.append(p.budget)
            if p.budget.too_small:
                small.append(str(p.id or p.index + 1))
            if p.budget.too_short:
                short.append(str(p.id or p.index + 1))
        if as_json:
            for p in planned:
                row = {
                    "index": p.index,
                    "id": p.id,
                    "text": p.protected.plain if p.protected else None,
                    "budget": p.budget.to_dict() if p.budget else None,
                }
                shown = json.dumps(row, ensure_ascii=False, indent=2).replace("\n", "\n    ")
                write(("," if p.index else "") + "\n    " + shown)
        else:
            rows = [
                (p.index, p.id, p.protected.plain if p.protected else "", p.budget) for p in planned
            ]
            console.print(budget_table(rows))
    summary = summarize_budgets(budgets)
    if as_json:
        summary_json = json.dumps(
            {**summary.to_dict(), "tight_gaps": gaps}, ensure_ascii=False, indent=2
        )
        write('\n  ],\n  "summary": ' + summary_json.replace("\n", "\n  ") + "\n}\n")
        return
    console.print(budget_summary_table(summary))
    if small:
        console.print(
            Text.assemble(
                ("TOO SMALL", "red"), f" for any translation: segment(s) {', '.join(small)}"
            )
        )
    if short:
        console.print(
            Text.assemble(
                ("TOO SHORT", "red"), f" on screen to be read: segment(s) {', '.join(short)}"
            )
        )
    if gaps:
        console.print(
            Text.assemble(
                ("GAP", "red"),
                f" under {opts.limits.min_gap_ms} ms before segment(s) {', '.join(gaps)} "
                "(timings are never changed)",
            )
        )
