"""``fitsub.toml``: defaults for the commands and custom style profiles, read with `tomllib`.

Looked for, first found wins: ``$FITSUB_CONFIG`` (a file; set to an empty string: no config
file at all), ``fitsub.toml`` in the current folder or the nearest parent folder that has one,
then ``fitsub.toml`` in the user's config folder (the CLI passes it: ``~/.config/fitsub`` on
Linux, ``~/Library/Application Support/fitsub`` on macOS, ``%APPDATA%\\fitsub`` on Windows).
A flag given on the command line always wins over the file.

    [defaults]
    model = "models/en-it"        # paths are relative to the file's folder
    lang = "it"
    src_lang = "en"
    profile = "netflix-it"
    glossary = "terms.tsv"
    ratio = 0.9

    [profiles.festival]           # a profile of your own (`fitsub profiles` lists it)
    based_on = "netflix-it"
    cpl = 40
    cps = 15
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fitsub.budget import BUILTIN, LEAST, MOST, Profile, custom_profile, limits_for
from fitsub.errors import InputError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 has no tomllib; no config file is read there
    tomllib = None

CONFIG_NAME = "fitsub.toml"
CONFIG_ENV = "FITSUB_CONFIG"
DEFAULT_KEYS = {"model": str, "lang": str, "src_lang": str, "profile": str, "glossary": str}
NUMBER_KEYS = ("ratio",)
PATH_KEYS = ("model", "glossary")
_TOML_TYPES = {
    "list": "array",
    "int": "integer",
    "str": "string",
    "float": "float",
    "bool": "boolean",
}


@dataclass(frozen=True)
class Settings:
    """What a config file sets: command defaults and every profile it knows."""

    path: Path | None = None  # the file read (None: none found)
    defaults: dict[str, Any] = field(default_factory=dict)
    profiles: dict[str, Profile] = field(default_factory=lambda: dict(BUILTIN))

    def get(self, key: str, given: Any = None) -> Any:
        """`given` (a flag the user typed) if not None, else the file's default for `key`."""
        return given if given is not None else self.defaults.get(key)


def find_config(cwd: Path, user_dir: Path | None) -> Path | None:
    """The config file to read (module docstring), or None."""
    env = os.environ.get(CONFIG_ENV)
    if env is not None:
        return Path(env) if env else None
    for folder in (cwd, *cwd.parents):
        if (folder / CONFIG_NAME).is_file():
            return folder / CONFIG_NAME
    if user_dir is not None and (user_dir / CONFIG_NAME).is_file():
        return user_dir / CONFIG_NAME
    return None


def parse_settings(data: Mapping[str, Any], path: Path | None) -> Settings:
    """Check a parsed config (a TOML table) and build `Settings`; `InputError` naming the key."""
    for key in data:
        if key not in ("defaults", "profiles"):
            raise InputError(
                path, f"unknown table or key {key!r}; expected [defaults], [profiles.NAME]"
            )
    defaults: dict[str, Any] = {}
    base = path.parent if path is not None else Path(".")
    for table in ("defaults", "profiles"):
        if not isinstance(data.get(table, {}), dict):
            kind = type(data[table]).__name__
            raise InputError(path, f"[{table}] must be a table, got {_TOML_TYPES.get(kind, kind)}")
    for key, value in dict(data.get("defaults", {})).items():
        if key in DEFAULT_KEYS:
            if not isinstance(value, str) or not value:
                raise InputError(path, f"[defaults] {key} must be a non-empty string")
            defaults[key] = _resolve(base, value) if key in PATH_KEYS else value
            if key == "lang":
                try:
                    limits_for(value)
                except ValueError as err:
                    raise InputError(path, f"[defaults] lang: {err}") from None
        elif key in NUMBER_KEYS:
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
                or value <= 0
            ):
                raise InputError(path, f"[defaults] {key} must be a positive number, got {value!r}")
            if value > MOST[key]:
                raise InputError(
                    path, f"[defaults] {key} must be at most {int(MOST[key]):,}, got {value!r}"
                )
            if value < LEAST.get(key, 0):
                raise InputError(
                    path, f"[defaults] {key} must be at least {LEAST[key]:g}, got {value!r}"
                )
            defaults[key] = float(value)
        else:
            known = ", ".join([*DEFAULT_KEYS, *NUMBER_KEYS])
            raise InputError(path, f"[defaults] unknown key {key!r}; known keys: {known}")
    profiles = dict(BUILTIN)
    for name, values in dict(data.get("profiles", {})).items():
        if not isinstance(values, dict):
            raise InputError(path, f"[profiles.{name}] must be a table")
        if name in BUILTIN:
            raise InputError(path, f"[profiles.{name}]: a built-in profile has this name")
        for key, value in values.items():
            if isinstance(value, float) and not math.isfinite(value):
                raise InputError(path, f"[profiles.{name}] {key} must be a finite number")
        try:
            profiles[name] = custom_profile(name, values, str(path), profiles)
        except ValueError as err:
            raise InputError(path, str(err)) from None
    if "profile" in defaults and defaults["profile"] not in profiles:
        raise InputError(path, f"[defaults] profile {defaults['profile']!r} is not a known profile")
    return Settings(path, defaults, profiles)


def _resolve(base: Path, value: str) -> str:
    """A path relative to the config file's folder when it exists there; else as written (a
    model may be a hub id such as ``Helsinki-NLP/opus-mt-en-it``)."""
    there = base / value
    return str(there) if there.exists() else value


def load_settings(cwd: Path, user_dir: Path | None) -> Settings:
    """Find and read the config file; `Settings()` when there is none."""
    path = find_config(cwd, user_dir)
    if path is None:
        return Settings()
    if tomllib is None:
        raise InputError(path, "reading fitsub.toml needs Python 3.11 or later (tomllib)")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(path, "no such file (named by $FITSUB_CONFIG)") from None
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(path, f"cannot read: {err}") from None
    except tomllib.TOMLDecodeError as err:
        raise InputError(path, f"not valid TOML: {err}") from None
    except RecursionError:  # tables or arrays nested thousands deep
        raise InputError(path, "not valid TOML: nested too deep") from None
    return parse_settings(data, path)
