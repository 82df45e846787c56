"""Named style profiles: the subtitle limits a broadcaster's or platform's style guide sets.

A profile fixes characters per line, lines, reading speed (characters per second), the minimum
duration of a cue and the minimum gap between cues; some also fix the length ratio (dubbing).
Sources, with what each figure means and which are fitsub's own conversions: docs/profiles.md.

* ``netflix-<lang>``: Netflix Timed Text Style Guides (General Requirements and the per-language
  guides): 42 characters × 2 lines; adult reading speed 20 cps in English, 17 cps in Italian,
  German, French and Spanish; minimum duration 5/6 s (833 ms); 2 frames between cues (83 ms
  at 24 fps).
* ``bbc``: BBC Subtitle Guidelines: 37 characters (68 % of a 16:9 picture's width) × 2 lines;
  160-180 words per minute, 15 cps here (180 wpm at 5 characters a word, fitsub's conversion).
* ``ted``: TED Translators / Amara subtitling cheat-sheet: 42 characters × 2 lines, at most
  21 cps, each subtitle 1-7 s on screen.
* ``dubbing``: a translation as long as its source, ±10 % (ratio 1.1, lower bound 0.9) and no
  reading-speed limit: a voice, not a reader, sets the pace. Lines and CPL lay the text out.
  `fitsub translate --profile dubbing` budgets speaking time instead (`--unit seconds`, each
  cue's speaking window: `fitsub.budget.speech`); `--unit char` keeps these character bounds.

A ``fitsub.toml`` may define more under ``[profiles.NAME]`` (`fitsub.cli.config_file`), each field
optional over ``based_on`` (a built-in profile) or the language's defaults.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace

from fitsub.budget.slot import MIN_WORD_CUE_MS, Limits
from fitsub.errors import InputError

NETFLIX_GAP_MS = 83  # 2 frames at 24 fps


@dataclass(frozen=True, kw_only=True)
class Profile:
    """A named set of subtitle limits, with the length ratio when the profile sets one."""

    name: str
    cpl: int
    lines: int
    cps: float
    min_duration_ms: int
    min_gap_ms: int
    source: str  # the style guide (or config file) the values come from
    ratio: float | None = None  # None: the command's --ratio
    min_ratio: float | None = None
    reading_speed: bool = True  # False: no reading-speed limit (dubbing)
    lang: str | None = None  # the language the profile is for (None: any)

    def limits(self) -> Limits:
        """The budget limits this profile sets."""
        return Limits(
            cpl=self.cpl,
            lines=self.lines,
            cps=self.cps,
            min_duration_ms=self.min_duration_ms,
            min_gap_ms=self.min_gap_ms,
            reading_speed=self.reading_speed,
        )

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


_NETFLIX = "Netflix Timed Text Style Guide: General Requirements + {} guide"
_NETFLIX_CPS = {"en": 20.0, "it": 17.0, "de": 17.0, "fr": 17.0, "es": 17.0}
_LANGUAGE = {
    "en": "English (USA)",
    "it": "Italian",
    "de": "German",
    "fr": "French",
    "es": "Castilian Spanish",
}

BUILTIN: dict[str, Profile] = {
    **{
        f"netflix-{lang}": Profile(
            name=f"netflix-{lang}",
            cpl=42,
            lines=2,
            cps=cps,
            min_duration_ms=MIN_WORD_CUE_MS,
            min_gap_ms=NETFLIX_GAP_MS,
            source=_NETFLIX.format(_LANGUAGE[lang]),
            lang=lang,
        )
        for lang, cps in _NETFLIX_CPS.items()
    },
    "bbc": Profile(
        name="bbc",
        cpl=37,
        lines=2,
        cps=15.0,
        min_duration_ms=MIN_WORD_CUE_MS,
        min_gap_ms=0,
        source="BBC Subtitle Guidelines (bbc.github.io/subtitle-guidelines): 3.1 line length, "
        "4.1 timing; cps converted from 180 wpm",
    ),
    "ted": Profile(
        name="ted",
        cpl=42,
        lines=2,
        cps=21.0,
        min_duration_ms=1000,
        min_gap_ms=0,
        source="TED Translators subtitling cheat-sheet (translations.ted.com), used on Amara",
    ),
    "dubbing": Profile(
        name="dubbing",
        cpl=42,
        lines=2,
        cps=17.0,
        min_duration_ms=0,
        min_gap_ms=0,
        source="fitsub: the source's length ±10 % (lip-sync and voice-over timing)",
        ratio=1.1,
        min_ratio=0.9,
        reading_speed=False,
    ),
}


def netflix_for(lang: str) -> str | None:
    """The Netflix profile of a language code (`it-IT` → ``netflix-it``), if there is one."""
    name = f"netflix-{lang.strip().lower().replace('_', '-').split('-')[0]}"
    return name if name in BUILTIN else None


PROFILE_FIELDS = ("cpl", "lines", "cps", "min_duration_ms", "min_gap_ms", "ratio", "min_ratio")
# The largest value each numeric setting takes, in a profile, fitsub.toml or on the command line
# (far above any real use: a subtitle line of 1,000,000 characters; one hour between cues).
MOST: dict[str, float] = {"ratio": 1000, "min_ratio": 1000, "cpl": 1_000_000, "lines": 10_000,
                          "cps": 1_000_000, "min_duration_ms": 3_600_000,
                          "min_gap_ms": 3_600_000}  # fmt: skip
# The smallest length ratio taken: a translation a twentieth of its source's length is already
# no translation (at ratio 1e-300 every budget is one character and cues became "È").
LEAST: dict[str, float] = {"ratio": 0.05, "min_ratio": 0.05}


def check_positive(setting: str, value: float | None) -> None:
    """An `InputError` about `setting` when `value` is given and not a finite number above zero
    (nor above `MOST`, nor below `LEAST`)."""
    if value is None:
        return
    if not math.isfinite(value) or value <= 0:
        raise InputError(None, f"must be positive, got {value}", setting=setting)
    if setting in MOST and value > MOST[setting]:
        raise InputError(None, f"must be at most {MOST[setting]:g}, got {value:g}", setting=setting)
    if value < LEAST.get(setting, 0):
        raise InputError(
            None, f"must be at least {LEAST[setting]:g}, got {value:g}", setting=setting
        )


def custom_profile(
    name: str, values: Mapping[str, object], source: str, known: Mapping[str, Profile]
) -> Profile:
    """A profile from a config table: its fields over `based_on` (a profile in `known`).

    Raises ValueError naming the first bad key or value.
    """
    base_name = values.get("based_on", "netflix-en")
    if not isinstance(base_name, str) or base_name not in known:
        raise ValueError(f"profile {name!r}: based_on must name a profile, got {base_name!r}")
    base = replace(known[base_name], name=name, source=source)
    changes: dict[str, object] = {}
    for key, value in values.items():
        if key == "based_on":
            continue
        if key == "reading_speed":
            if not isinstance(value, bool):
                raise ValueError(f"profile {name!r}: reading_speed must be true or false")
            changes[key] = value
            continue
        if key not in PROFILE_FIELDS:
            raise ValueError(f"profile {name!r}: unknown key {key!r}")
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            if not (key.startswith("min_") and key != "min_ratio" and value == 0):
                raise ValueError(
                    f"profile {name!r}: {key} must be a positive number, got {value!r}"
                )
        if key in ("cpl", "lines", "min_duration_ms", "min_gap_ms") and not isinstance(value, int):
            raise ValueError(f"profile {name!r}: {key} must be a whole number, got {value!r}")
        if value > MOST[key]:
            raise ValueError(
                f"profile {name!r}: {key} must be at most {int(MOST[key]):,}, got {value!r}"
            )
        if value < LEAST.get(key, 0):
            raise ValueError(
                f"profile {name!r}: {key} must be at least {LEAST[key]:g}, got {value!r}"
            )
        changes[key] = value
    return replace(base, **changes)  # type: ignore[arg-type]


def resolve_profile(name: str, known: Mapping[str, Profile]) -> Profile:
    """The profile called `name`; ValueError listing the known names otherwise (and naming the
    profile meant when only the case differs: names are matched exactly)."""
    if name not in known:
        same = [k for k in known if k.lower() == name.strip().lower()]
        if same:
            raise ValueError(f"unknown profile {name!r}; profile names are lower case: {same[0]}")
        raise ValueError(f"unknown profile {name!r}; known profiles: {', '.join(sorted(known))}")
    return known[name]


def check_profile_language(profile: Profile, lang: str) -> None:
    """ValueError naming both when `profile` is for another language than `lang`."""
    code = lang.strip().lower().replace("_", "-").split("-")[0]
    if profile.lang is not None and profile.lang != code:
        raise ValueError(
            f"{profile.name} is for {_LANGUAGE.get(profile.lang, profile.lang)} "
            f"({profile.lang}), not --lang {lang}; use "
            + (netflix_for(code) or "a profile for that language")
        )


def tight_gaps(times: Sequence[tuple[int | None, int | None]], min_gap_ms: int) -> list[int]:
    """Indices of cues that start less than `min_gap_ms` after the previous one ends.

    Overlapping cues (a negative gap) count too; fitsub reports these and never moves a timing.
    """
    out: list[int] = []
    previous_end: int | None = None
    for i, (start, end) in enumerate(times):
        if start is not None and previous_end is not None and start - previous_end < min_gap_ms:
            out.append(i)
        if end is not None:
            previous_end = end
    return out
