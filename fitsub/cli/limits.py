"""Flags over a profile over fitsub.toml over the language's defaults → the core's options."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import typer

from fitsub.budget import limits_for
from fitsub.cli.options import check_positive
from fitsub.errors import InputError
from fitsub.pipeline import TranslateOptions
from fitsub.profiles import Profile, resolve
from fitsub.settings import Settings, load_settings


def settings() -> Settings:
    """The config file's settings (`fitsub.settings`): current folder up, then the user's."""
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
    default_ratio: float | None = 1.0,
) -> TranslateOptions:
    """Options from flags over a profile over the language's defaults (flags always win)."""
    if profile is not None:
        ratio = ratio if ratio is not None else profile.ratio
        min_ratio = min_ratio if min_ratio is not None else profile.min_ratio
    ratio = ratio if ratio is not None else default_ratio
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
