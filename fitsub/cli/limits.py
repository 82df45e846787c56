"""fitsub.toml's settings and `--profile` for the commands, and the pipeline's options built
from the budget settings they resolve.

Which setting wins (flags over a profile over fitsub.toml over the language's defaults) is
decided in `fitsub.budget.resolve`; here the config file is found where the CLI keeps it.
"""

from __future__ import annotations

from pathlib import Path

import typer

from fitsub.budget import BudgetSettings, Profile, resolve_profile
from fitsub.cli.config_file import Settings, load_settings
from fitsub.errors import InputError
from fitsub.pipeline import TranslateOptions


def settings() -> Settings:
    """The config file's settings (`fitsub.cli.config_file`): current folder up, then the user's."""
    return load_settings(Path.cwd(), Path(typer.get_app_dir("fitsub")))


def pick_profile(config: Settings, name: str | None) -> Profile | None:
    """The profile `--profile` (or the config's default) names; None when neither does."""
    name = config.get("profile", name)
    if name is None:
        return None
    try:
        return resolve_profile(name, config.profiles)
    except ValueError as err:
        raise InputError(config.path if name != config.get("profile") else None, str(err)) from None


def translate_options(
    budget: BudgetSettings, *, per_cue: bool = False, compare: bool = True
) -> TranslateOptions:
    """The pipeline's options for the resolved `budget` settings (under speaking windows each
    cue is translated alone)."""
    return TranslateOptions(
        lang=budget.lang,
        limits=budget.limits,
        ratio=budget.ratio,
        per_cue=per_cue or budget.speech is not None,
        compare=compare,
        min_ratio=budget.min_ratio,
        speech=budget.speech,
    )
