"""What one `fitsub translate` does, resolved from its flags: the core's options and the rest.

`TranslateFlags` holds the options as given; `resolve_run` applies fitsub.toml, the profile and
the language's defaults (`fitsub.budget`) and checks them, in the order their errors are told.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fitsub.backend import TranslationBackend
from fitsub.budget import BudgetSettings, Profile, resolve_settings, with_speech
from fitsub.cli.config_file import Settings
from fitsub.cli.console import say
from fitsub.cli.documents import table_layout
from fitsub.cli.limits import pick_profile, settings, translate_options
from fitsub.cli.models import check_model_path, open_model, pick_language, with_policy
from fitsub.cli.options import check_device, check_share, check_terms, language_code
from fitsub.glossary import load_glossary
from fitsub.lengthpred.policy import check_policy
from fitsub.pipeline import TranslateOptions
from fitsub.quality.bilingual import load_bilingual


@dataclass(frozen=True, kw_only=True)
class TranslateFlags:
    """`fitsub translate`'s options as given (`fitsub.cli.translate`), before fitsub.toml, the
    profile and the defaults are applied."""

    inputs: list[Path]
    output: Path | None
    out_dir: Path | None
    fmt: str | None
    encoding_in: str | None
    lang: str | None
    src_lang: str | None
    profile: str | None
    ratio: float | None
    min_ratio: float | None
    cpl: int | None
    unit: str | None
    isochrony: str
    speech_rate: float | None
    # a dubbing n-best's ranking (a run-settings record written before it: the estimate)
    rank_by: str | None = "estimate"
    lines: int | None
    cps: float | None
    model: Path | None
    beam: int
    device: str
    threads: int | None
    compare: bool
    per_cue: bool
    glossary: Path | None
    report: Path | None
    review: Path | None
    table_format: str
    wide: bool
    strict: bool
    length_policy: str
    length_predictor: Path | None
    quality_threshold: float | None
    quiet: bool
    # `--terms dictionary` (a run-settings record written before it: off)
    terms: str | None = None


@dataclass(frozen=True, kw_only=True)
class Run:
    """What one `fitsub translate` does, resolved from its flags and fitsub.toml."""

    opts: TranslateOptions
    profile: str | None  # the style profile's name
    model: Path | None
    src_lang: str
    device: str
    beam: int
    threads: int | None
    fmt: str | None
    encoding: str | None
    report: Path | None
    strict: bool
    quiet: bool
    length_policy: str
    length_predictor: Path | None
    table_format: str
    wide: bool = False  # every column of the per-segment table, whatever the terminal's width
    glossary: Path | None = None  # the glossary file (recorded for `fitsub review --serve`)
    per_cue: bool = False
    quality_threshold: float | None = None
    terms: str | None = None  # `--terms dictionary` (`fitsub.pipeline.forced_terms`); None: off

    @property
    def lang(self) -> str:
        """The target language."""
        return self.opts.lang

    @property
    def meta(self) -> dict[str, Any]:
        """The run's settings, as the JSON report records them."""
        opts, speech = self.opts, self.opts.speech
        return {
            "lang": self.lang,
            "src_lang": self.src_lang,
            "profile": self.profile,
            "mode": opts.mode,
            "ratio": opts.ratio,
            "min_ratio": opts.min_ratio,
            "unit": "char" if speech is None else speech.unit,
            "isochrony": None if speech is None else speech.isochrony,
            "speech_rate": None if speech is None else speech.rate,
            "rank_by": None if speech is None else speech.rank_by,
            "limits": dataclasses.asdict(opts.limits),
            "length_policy": self.length_policy,
            **({"terms": self.terms} if self.terms is not None else {}),  # unasked: as before it
        }

    def with_model(self) -> tuple[TranslateOptions, TranslationBackend]:
        """The options with their length policy, and the backend: loaded once per run."""
        opts = with_policy(
            self.opts,
            length_policy=self.length_policy,
            length_predictor=self.length_predictor,
            model=self.model,
            src_lang=self.src_lang,
            lang=self.lang,
        )
        backend = open_model(
            self.model,
            src_lang=self.src_lang,
            lang=self.lang,
            device=self.device,
            beam=self.beam,
            threads=self.threads,
        )
        for what in ("lexicon_note", "links_note", "engine_note"):  # each said once
            note = getattr(backend, what, None)
            if isinstance(note, str) and not self.quiet:
                say(f"note: {note}")
        return opts, backend


def resolve_run(flags: TranslateFlags) -> Run:
    """The run `flags` ask for: languages, model, budget settings and options, each checked."""
    check_device(flags.device)
    config = settings()
    src_lang = language_code(config.get("src_lang", flags.src_lang) or "en")
    named = config.get("model", flags.model)
    model = None if named is None else Path(named)
    check_model_path(model)
    lang = pick_language(config.get("lang", flags.lang), model, src_lang)
    glossary = config.get("glossary", flags.glossary)
    terms = check_terms(flags.terms)
    profile = pick_profile(config, flags.profile)
    budget = _budget_settings(flags, config, profile, lang=lang, src_lang=src_lang)
    opts = translate_options(budget, per_cue=flags.per_cue, compare=flags.compare)
    check_policy(flags.length_policy, ("source", "predicted"))
    if flags.quality_threshold is not None:
        check_share("quality_threshold", flags.quality_threshold)
        opts = dataclasses.replace(opts, quality_threshold=flags.quality_threshold)
    if glossary is not None:
        opts = dataclasses.replace(opts, glossary=load_glossary(Path(glossary)))
    if terms is not None:
        opts = dataclasses.replace(opts, dictionary=load_bilingual(lang, src_lang))
    table_layout(flags.table_format, True)  # a bad choice is an error before any work
    return Run(
        opts=opts,
        profile=None if profile is None else profile.name,
        model=model,
        src_lang=src_lang,
        device=flags.device,
        beam=flags.beam,
        threads=flags.threads,
        fmt=flags.fmt,
        encoding=flags.encoding_in,
        report=flags.report,
        strict=flags.strict,
        quiet=flags.quiet,
        length_policy=flags.length_policy,
        length_predictor=flags.length_predictor,
        table_format=flags.table_format,
        wide=flags.wide,
        glossary=None if glossary is None else Path(glossary),
        per_cue=flags.per_cue,
        quality_threshold=flags.quality_threshold,
        terms=terms,
    )


def _budget_settings(
    flags: TranslateFlags, config: Settings, profile: Profile | None, *, lang: str, src_lang: str
) -> BudgetSettings:
    """The budget settings of the flags over the profile over fitsub.toml (`fitsub.budget`)."""
    asked = resolve_settings(
        lang,
        ratio=flags.ratio,
        cpl=flags.cpl,
        lines=flags.lines,
        cps=flags.cps,
        min_ratio=flags.min_ratio,
        profile=profile,
        default_ratio=config.get("ratio"),
    )
    return with_speech(
        asked,
        unit=flags.unit,
        profile=profile,
        src_lang=src_lang,
        isochrony=flags.isochrony,
        speech_rate=flags.speech_rate,
        rank_by=flags.rank_by,
        ratio_given=flags.ratio is not None or flags.min_ratio is not None,
    )
