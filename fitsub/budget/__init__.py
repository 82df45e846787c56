"""The budget: how long a translation may be, and which setting decides it.

Four things are called a budget in fitsub; each has its name and its module:

* `Budget` (`segment`): one segment's budget in characters, the minimum of the limits that
  apply to it, the binding one, and its warnings (`too_small`, `too_short`). `budget_for`
  computes it for a document's segment, `segment_budget` from plain numbers.
* `SpeechWindow` (`speech`): a dubbed segment's speaking window, in seconds, target syllables
  and the characters it implies (`SpeechBudgeter` makes them; `--unit syllables|seconds`).
* `BudgetSettings` (`resolve`): the settings every budget is computed from, once flags, a style
  profile and fitsub.toml are resolved (`resolve_settings`, `with_speech`).
* `BudgetSummary` (`summary`): a document's budgets counted (`fitsub budget`'s pre-flight).

The limits themselves: the cue's slot (`slot`: CPL × lines, CPS × duration, a slide box's room,
`Limits` and the per-language defaults), the length ratio and the fitting modes (`ratio`:
slot or isometric), and the named style profiles (`profiles`). The unit of every length here is
the character of `fitsub.units`.
"""

from __future__ import annotations

from fitsub.budget.profiles import (
    BUILTIN,
    LEAST,
    MOST,
    Profile,
    check_positive,
    check_profile_language,
    custom_profile,
    netflix_for,
    resolve_profile,
    tight_gaps,
)
from fitsub.budget.ratio import DEFAULT_RATIO, ISOMETRIC, MODES, SLOT, asked_mode, ratio_limit
from fitsub.budget.resolve import BudgetSettings, resolve_settings, with_speech
from fitsub.budget.segment import (
    BINDINGS,
    Budget,
    budget_for,
    min_plausible_chars,
    segment_budget,
)
from fitsub.budget.slot import (
    LANGUAGE_LIMITS,
    MIN_CUE_MS,
    MIN_WORD_CUE_MS,
    Limits,
    is_too_short,
    limits_for,
    line_room,
    visible_chars,
)
from fitsub.budget.speech import (
    CHARS_PER_SYLLABLE,
    SPEECH_RATES,
    SPEECH_UNITS,
    SpeechBudgeter,
    SpeechUnit,
    SpeechWindow,
    pause_seconds,
    seconds_of_syllables,
    speaking_seconds,
    speech_rate_for,
    speech_rate_problem,
)
from fitsub.budget.summary import BudgetSummary, fitting_mode, summarize_budgets

__all__ = [
    "BINDINGS",
    "BUILTIN",
    "CHARS_PER_SYLLABLE",
    "DEFAULT_RATIO",
    "ISOMETRIC",
    "LANGUAGE_LIMITS",
    "LEAST",
    "MIN_CUE_MS",
    "MIN_WORD_CUE_MS",
    "MODES",
    "MOST",
    "SLOT",
    "SPEECH_RATES",
    "SPEECH_UNITS",
    "Budget",
    "BudgetSettings",
    "BudgetSummary",
    "Limits",
    "Profile",
    "SpeechBudgeter",
    "SpeechUnit",
    "SpeechWindow",
    "asked_mode",
    "budget_for",
    "check_positive",
    "check_profile_language",
    "custom_profile",
    "fitting_mode",
    "is_too_short",
    "limits_for",
    "line_room",
    "min_plausible_chars",
    "netflix_for",
    "ratio_limit",
    "resolve_profile",
    "resolve_settings",
    "pause_seconds",
    "seconds_of_syllables",
    "segment_budget",
    "speaking_seconds",
    "speech_rate_for",
    "speech_rate_problem",
    "summarize_budgets",
    "tight_gaps",
    "visible_chars",
    "with_speech",
]
