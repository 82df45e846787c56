"""`fitsub eval`'s flags as given (`EvalFlags`) and what they resolve to (`EvalRun`): the target
language, the metrics' options, the ratios and the test sets, each checked in the order their
errors are told."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fitsub.budget import limits_for
from fitsub.cli.limits import settings as config_settings
from fitsub.cli.models import pick_language
from fitsub.cli.options import check_device, language_code, split_list
from fitsub.errors import InputError
from fitsub.eval.evaluate import ScoreOptions
from fitsub.eval.testsets import LoadedSet, TestSet, load_testset, parse_testset
from fitsub.io.outputs import check_output_path
from fitsub.io.plotting import require_matplotlib
from fitsub.lengthpred.policy import check_policy


@dataclass(frozen=True, kw_only=True)
class EvalFlags:
    """`fitsub eval`'s options as given (`fitsub.cli.eval`), before fitsub.toml and the defaults."""

    model: list[Path] | None
    src: list[Path] | None
    ref: list[Path] | None
    hyp: list[Path] | None
    testset: list[str] | None
    bleu: bool
    lr: bool
    settings: list[str] | None
    ratio: list[str] | None
    src_lang: str | None
    lang: str | None
    cpl: int | None
    lines: int | None
    cps: float | None
    tokenize: str
    max_segments: int | None
    batch_size: int
    beam: int
    device: str
    threads: int | None
    json_out: Path | None
    markdown: Path | None
    plot: Path | None
    quiet: bool
    length_policy: list[str] | None
    length_predictor: Path | None
    unit: str | None
    speech_rate: float | None


@dataclass(frozen=True, kw_only=True)
class EvalRun:
    """What one `fitsub eval` scores, and how: the core's options and the test sets in memory."""

    loaded: list[LoadedSet]
    ratios: list[float]
    options: ScoreOptions
    models: list[Path]
    src_lang: str
    lang: str
    given: bool  # --hyp: the outputs are given, nothing is translated
    modes: list[str]  # the settings each test set is translated under
    policies: list[str]  # the length policies of the length / hard / band settings
    predictor_dir: Path | None
    device: str
    beam: int
    batch_size: int
    threads: int | None
    quiet: bool


def resolve_eval(flags: EvalFlags) -> EvalRun:
    """The evaluation `flags` ask for: languages, metrics, ratios and the loaded test sets."""
    check_device(flags.device)
    config = config_settings()
    src_lang = language_code(config.get("src_lang", flags.src_lang) or "en")
    models, hyp = flags.model or [], flags.hyp or []
    lang = _target(config.get("lang", flags.lang), models, src_lang, translating=not hyp)
    check_output_path(flags.json_out, "--json", [], allow_stdout=True)
    check_output_path(flags.markdown, "--markdown", [], allow_stdout=True)
    options = _score_options(flags, src_lang, lang)
    ratios = _ratios(flags.ratio)
    specs, src, ref = flags.testset or [], flags.src or [], flags.ref or []
    sets = _testsets(src=src, ref=ref, hyp=hyp, specs=specs, src_lang=src_lang, lang=lang)
    _check_outputs(sets, flags.json_out, flags.markdown, flags.plot)
    loaded = [load_testset(t, flags.max_segments) for t in sets]
    asked = [check_policy(p) for p in split_list(flags.length_policy)] if not hyp else []
    return EvalRun(
        loaded=loaded,
        ratios=ratios,
        options=options,
        models=models,
        src_lang=src_lang,
        lang=lang,
        given=bool(hyp),
        modes=split_list(flags.settings) or ["unconstrained", "length"],
        policies=asked or ["source"],
        predictor_dir=flags.length_predictor,
        device=flags.device,
        beam=flags.beam,
        batch_size=flags.batch_size,
        threads=flags.threads,
        quiet=flags.quiet,
    )


def _score_options(flags: EvalFlags, src_lang: str, lang: str) -> ScoreOptions:
    """The metric groups (both unless --bleu or --lr picks one), the subtitle limits and the
    speech unit's scoring (`--unit`)."""
    try:
        limits = limits_for(lang, cpl=flags.cpl, lines=flags.lines, cps=flags.cps)
    except ValueError as err:
        raise InputError(None, str(err)) from None
    quality, lengths = (flags.bleu, flags.lr) if (flags.bleu or flags.lr) else (True, True)
    speech = None
    if flags.unit is not None:
        from fitsub.metrics.speaking import SpeechScoring

        speech = SpeechScoring(
            flags.unit, src_lang=src_lang, lang=lang, speech_rate=flags.speech_rate
        )
    return ScoreOptions(
        quality=quality, lengths=lengths, tokenize=flags.tokenize, limits=limits, speech=speech
    )


def _ratios(values: list[str] | None) -> list[float]:
    out = []
    for v in split_list(values) or ["1.0"]:
        try:
            out.append(float(v))
        except ValueError:
            raise InputError(None, f"--ratio must be a number, got {v!r}") from None
    return out


def _name(path: Path, taken: set[str]) -> str:
    name = path.name.rsplit(".", 2)[0] if path.suffix else path.name
    return str(path) if name in taken else name


def _testsets(
    src: list[Path], ref: list[Path], hyp: list[Path], specs: list[str], src_lang: str, lang: str
) -> list[TestSet]:
    sets = [parse_testset(spec, src_lang, lang) for spec in specs]
    if specs and hyp:
        raise InputError(None, "--testset names sources to translate; it cannot be used with --hyp")
    if not ref:
        if src or hyp:
            raise InputError(None, "--ref is required with --src / --hyp")
    else:
        for opt, paths in (("--src", src), ("--hyp", hyp)):
            if paths and len(paths) != len(ref):
                raise InputError(
                    None, f"{len(paths)} {opt} files for {len(ref)} --ref files; give one per --ref"
                )
        taken: set[str] = {t.name for t in sets}
        for i, r in enumerate(ref):
            name = _name(r, taken)
            taken.add(name)
            sets.append(
                TestSet(name, ref=r, src=src[i] if src else None, hyp=hyp[i] if hyp else None)
            )
    if not sets:
        raise InputError(None, "nothing to evaluate: give --ref with --src or --hyp, or --testset")
    return sets


def _target(lang: str | None, models: list[Path], src_lang: str, translating: bool) -> str:
    """`--lang` as `fitsub translate` picks it, or the one language all `--model`s translate into."""
    if lang is not None or len(models) < 2:
        return pick_language(lang, models[0] if models else None, src_lang, translating)
    found = sorted({pick_language(None, m, src_lang) for m in models})
    if len(found) > 1:
        into = f"the models translate into {', '.join(found)}"
        raise InputError(None, f"is required: {into}", setting="lang")
    return found[0]


def _check_outputs(
    sets: list[TestSet], json_out: Path | None, markdown: Path | None, plot: Path | None
) -> None:
    """No report may overwrite an input (or name a folder, or a file for --plot)."""
    inputs = {p.resolve() for t in sets for p in (t.src, t.ref, t.hyp) if p is not None}
    for opt, out in (("--json", json_out), ("--markdown", markdown)):
        if out is not None and str(out) != "-" and out.resolve() in inputs:
            raise InputError(out, f"{opt} would overwrite an input file; choose another path")
        check_output_path(out, opt, sorted(inputs), allow_stdout=True)
    check_output_path(plot, "--plot", sorted(inputs), directory=True)
    if plot is not None:
        require_matplotlib()
