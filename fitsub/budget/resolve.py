"""Which setting wins: flags over a profile over fitsub.toml over the language's defaults.

The result is `BudgetSettings`, what every segment's budget is computed from. The fitting mode
follows from the ratio (docs/fitting.md): no `--ratio`, `--min-ratio`, config `ratio` or
profile ratio (dubbing) means *slot* mode for subtitles (the budget is the cue's slot) and the
isometric ratio 1.0 for slides without a box; any of them means *isometric* mode. A speech unit
(`--unit syllables|seconds`, `seconds` by default under the dubbing profile) replaces the
character ratio by each cue's speaking window (`fitsub.budget.speech`).

Settings are named by their Python names in errors (`min_ratio`); the CLI renders them as its
flags (`fitsub.errors.InputError`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from fitsub.budget.profiles import Profile, check_positive, check_profile_language
from fitsub.budget.ratio import DEFAULT_RATIO
from fitsub.budget.slot import Limits, limits_for
from fitsub.budget.speech import SpeechBudgeter
from fitsub.dubbing.timing import RANK_BY
from fitsub.errors import InputError


@dataclass(frozen=True)
class BudgetSettings:
    """The budget settings the user asked for, resolved: the target language, the slot's limits,
    the ratio and its lower bound (None: slot mode) and, for dubbing, the speaking windows."""

    lang: str
    limits: Limits
    ratio: float | None = None
    min_ratio: float | None = None  # lower bound: min_ratio × source characters (dubbing)
    speech: SpeechBudgeter | None = None  # speaking windows (`--unit syllables|seconds`)


def resolve_settings(
    lang: str,
    *,
    ratio: float | None,
    cpl: int | None,
    lines: int | None,
    cps: float | None,
    min_ratio: float | None = None,
    profile: Profile | None = None,
    default_ratio: float | None = None,
) -> BudgetSettings:
    """Settings from flags over a profile over the language's defaults (flags always win).

    `default_ratio`: fitsub.toml's `ratio` (None: slot mode unless a flag or the profile sets
    one). `min_ratio` alone asks for isometric mode at ratio 1.0."""
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
    return BudgetSettings(lang=lang, limits=limits, ratio=ratio, min_ratio=min_ratio)


def with_speech(
    settings: BudgetSettings,
    *,
    unit: str | None,
    profile: Profile | None,
    src_lang: str,
    isochrony: str,
    speech_rate: float | None,
    ratio_given: bool,
    rank_by: str | None = None,
) -> BudgetSettings:
    """`settings` budgeting speaking time when `unit` is `syllables` or `seconds` (`seconds` by
    default under the dubbing profile): each cue's speaking window replaces the character ratio
    and a voice, not a reader, sets the pace. A ratio given as well is an error (it would be
    silently ignored), as is a unit fitsub does not know, or a ranking (`rank_by`, what orders a
    cue's candidates against its window) other than the estimate without a window. Under a
    speech unit the ranking is `speech` unless given (its window is the band, judged by
    espeak-ng: `fitsub.budget.speech`)."""
    if unit is None:
        unit = "seconds" if profile is not None and profile.name == "dubbing" else "char"
    if rank_by is None:
        rank_by = "speech" if unit in ("syllables", "seconds") else "estimate"
    if rank_by not in RANK_BY:
        choices = " or ".join(RANK_BY)
        raise InputError(None, f"must be {choices}, got {rank_by!r}", setting="rank_by")
    if unit == "char" and rank_by != "estimate":
        problem = (
            f"{rank_by} ranks candidates against a speaking window: add --unit seconds (or "
            "syllables) or --profile dubbing"
        )
        raise InputError(None, problem, setting="rank_by")
    if unit == "char":
        return settings
    if unit not in ("syllables", "seconds"):
        raise InputError(None, f"must be char, syllables or seconds, got {unit!r}", setting="unit")
    if ratio_given:
        problem = f"sets the budget from speaking time; drop --ratio / --min-ratio (got {unit})"
        raise InputError(None, problem, setting="unit")
    speech = SpeechBudgeter(
        unit,
        lang=settings.lang,
        src_lang=src_lang,
        isochrony=isochrony,
        speech_rate=speech_rate,
        rank_by=rank_by,
    )
    limits = dataclasses.replace(settings.limits, reading_speed=False)  # a voice sets the pace
    return dataclasses.replace(settings, speech=speech, limits=limits, ratio=None, min_ratio=None)
