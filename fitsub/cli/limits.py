"""Flags over a profile over fitsub.toml over the language's defaults → the core's options.

The fitting mode follows from the ratio (docs/fitting.md): no `--ratio`, `--min-ratio`, config
`ratio` or profile ratio (dubbing) means *slot* mode for subtitles (the budget is the cue's slot)
and the isometric ratio 1.0 for slides without a box; any of them means *isometric* mode.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import typer

from fitsub.budget import DEFAULT_RATIO, limits_for
from fitsub.cli.options import check_positive
from fitsub.config_file import Settings, load_settings
from fitsub.errors import InputError
from fitsub.pipeline import TranslateOptions
from fitsub.profiles import Profile, check_profile_language, resolve


def settings() -> Settings:
    """The config file's settings (`fitsub.config_file`): current folder up, then the user's."""
    return load_settings(Path.cwd(), Path(typer.get_app_dir("fitsub")))


def pick_profile(config: Settings, name: str | None) -> Profile | None:
    """The profile `--profile` (or the config's default) names; None when neither does."""
    name = config.get("profile", name)
    if name is None:
        return None
    try:
        return resolve(name, config.profiles)
    except ValueError as err:
        raise InputError(config.path if name != config.get("profile") else None, str(err)) from None


def translate_options(
    lang: str,
    ratio: float | None,
    cpl: int | None,
    lines: int | None,
    cps: float | None,
    per_cue: bool = False,
    compare: bool = True,
    min_ratio: float | None = None,
    profile: Profile | None = None,
    default_ratio: float | None = None,
) -> TranslateOptions:
    """Options from flags over a profile over the language's defaults (flags always win).

    `default_ratio`: fitsub.toml's `ratio` (None: slot mode unless a flag or the profile sets
    one). `--min-ratio` alone asks for isometric mode at ratio 1.0."""
    for setting, value in (("ratio", ratio), ("min_ratio", min_ratio)):
        check_positive(setting, value)
    if profile is not None:
        try:
            check_profile_language(profile, lang)
        except ValueError as err:
            raise InputError(None, str(err), setting="profile") from None
        if ratio is not None and profile.min_ratio is not None and min_ratio is None:
            if profile.min_ratio > ratio:
                problem = (
                    f"{ratio} contradicts profile {profile.name}, whose lower bound is "
                    f"{profile.min_ratio} × source (give --min-ratio too, or drop --ratio)"
                )
                raise InputError(None, problem, setting="ratio")
        ratio = ratio if ratio is not None else profile.ratio
        min_ratio = min_ratio if min_ratio is not None else profile.min_ratio
    ratio = ratio if ratio is not None else default_ratio
    if ratio is None and min_ratio is not None:
        ratio = DEFAULT_RATIO  # a lower bound asks for isometric output: at the source's length
    numbers = (("ratio", ratio), ("min_ratio", min_ratio), ("cpl", cpl), ("lines", lines))
    for setting, value in (*numbers, ("cps", cps)):
        check_positive(setting, value)
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
        raise InputError(None, f"must be in (0, --ratio], got {min_ratio}", setting="min_ratio")
    return TranslateOptions(
        lang=lang, limits=limits, ratio=ratio, per_cue=per_cue, compare=compare, min_ratio=min_ratio
    )


def speech_options(
    opts: TranslateOptions,
    *,
    unit: str | None,
    profile: Profile | None,
    src_lang: str,
    isochrony: str,
    speech_rate: float | None,
    ratio_given: bool,
) -> TranslateOptions:
    """Dubbing budgets (`--unit syllables|seconds`; `seconds` by default under the dubbing
    profile): each cue's speaking window replaces the character ratio. A ratio given as well
    is an error (it would be silently ignored), as is a unit fitsub does not know."""
    if unit is None:
        unit = "seconds" if profile is not None and profile.name == "dubbing" else "char"
    if unit == "char":
        return opts
    if unit not in ("syllables", "seconds"):
        raise InputError(None, f"must be char, syllables or seconds, got {unit!r}", setting="unit")
    if ratio_given:
        problem = f"sets the budget from speaking time; drop --ratio / --min-ratio (got {unit})"
        raise InputError(None, problem, setting="unit")
    from fitsub.dubbing.budget import SpeechBudgeter

    speech = SpeechBudgeter(
        unit, lang=opts.lang, src_lang=src_lang, isochrony=isochrony, speech_rate=speech_rate
    )
    limits = dataclasses.replace(opts.limits, reading_speed=False)  # a voice sets the pace
    return dataclasses.replace(
        opts, speech=speech, limits=limits, ratio=None, min_ratio=None, per_cue=True
    )
