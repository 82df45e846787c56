"""The flag registry: every flag a translated segment can carry, defined once.

A flag is a `FlagKind`: its `name` (what reports, tables and the review page show), its
`severity`, its `meaning` (the one line a user reads: the review page's tooltip, the docs' table)
and `check`, where its check runs (`module:function`). `fitsub dub-check` flags a dubbed line
with `DUB_FLAGS` (not `translate`). The pipeline, the report (its counts in
`FLAG_NAMES` order), the review page (as JSON: `fitsub.review.page.live.page_checks`) and
docs/quality.md's flag table read this module; tests/unit/test_flag_registry.py holds the table
to it and fails when a flag's name, severity or meaning is written anywhere else in fitsub/.

Severity (`severity_of`): a flag is an *error* (the translation is wrong or suspect), *over
budget* (the text is too long, not wrong), *timing* (the cue's slot, whatever its text) or a
*note* (something the user asked for was done to the line: `TERM_FLAGS`, `fitsub translate
--terms dictionary`); a flag this module does not know is an error. A segment's severity is that
of its worst flag.

`live` names the review page's recount of a flag as the reviewer types (`checks.js`: `numbers`,
the number check; `lost`, the names and numbers the unconstrained translation kept; `length`,
the budget against the page's counters), `live_part` the part of its detail that recount covers
(the rest stays as translated); tests/fixtures/live_flags.json holds cases both the Python
checks and `checks.js` are run on. `rechecked`: `fitsub apply --source` checks an edited line
for it again (`fitsub.quality.recheck`).
"""

from __future__ import annotations

from dataclasses import dataclass

ERROR, BUDGET, TIMING, NOTE = "error", "budget", "timing", "note"
SEVERITIES: tuple[str, ...] = (ERROR, BUDGET, TIMING, NOTE)  # worst first
LEGEND = {
    ERROR: "errors: a wrong or suspect translation (number, reversed meaning, dropped content, "
    "untranslated, cut or unknown word, low quality score)",
    BUDGET: "over budget: the text is longer than its budget",
    TIMING: "timing only: the cue is too short on screen or its budget too small, whatever "
    "its text (merge or retime it)",
    NOTE: "note: a dictionary term was forced into the line (--terms dictionary): check its "
    "sense, number and article",
}


@dataclass(frozen=True)
class FlagKind:
    """One flag: its name, severity, meaning and where its check runs (module docstring)."""

    name: str
    severity: str  # one of `SEVERITIES`
    meaning: str  # one line shown to users
    check: str  # `module:function` that decides it
    live: str | None = None  # the review page's recount (`numbers`, `lost`, `length`)
    live_part: str = ""  # the detail's part the recount covers ("": all of it)
    rechecked: bool = False  # `fitsub apply --source` checks an edited line for it again


CUT_WORD = "cut-word"
CUT_SENTENCE = "cut-sentence"
NUMBER_CHANGED = "number-changed"
MEANING_REVERSED = "meaning-reversed"
UNTRANSLATED = "untranslated"
DROPPED_CONTENT = "dropped-content"
OVER_BUDGET = "over-budget"
REPEATED_TOKEN = "repeated-token"
UNKNOWN_WORD = "unknown-word"
LOW_QUALITY = "low-quality"
TOO_SMALL = "too-small"
TOO_SHORT = "too-short"
TOO_LONG_TO_SPEAK = "too-long-to-speak"
TOO_SHORT_TO_SPEAK = "too-short-to-speak"
DICTIONARY_TERM = "dictionary-term"

QUALITY_FLAGS: tuple[FlagKind, ...] = (  # one kind a line: the order of a segment's flags
    FlagKind(
        CUT_WORD,
        ERROR,
        "the fitted line holds a cut or mangled form of a word",
        "fitsub.quality.flags:cut_words",
    ),
    FlagKind(
        CUT_SENTENCE,
        ERROR,
        "the fitted line ends its sentence mid-phrase, on an article or a preposition",
        "fitsub.quality.sentence_end:dangling_end",
    ),
    FlagKind(
        NUMBER_CHANGED,
        ERROR,
        "the fitted line has other numbers than the source (digits, times, number words)",
        "fitsub.quality.flags:number_changes",
        live="numbers",
        rechecked=True,
    ),
    FlagKind(
        MEANING_REVERSED,
        ERROR,
        "the fitted line adds or loses a negation (named)",
        "fitsub.quality.polarity:reversed_words",
        rechecked=True,
    ),
    FlagKind(
        UNTRANSLATED,
        ERROR,
        "the fitted line copies the source or keeps English words (named; names and loanwords "
        "exempt)",
        "fitsub.quality.flags:is_untranslated",
        rechecked=True,
    ),
    FlagKind(
        DROPPED_CONTENT,
        ERROR,
        "the fitted line lost a name, a number or a word the unconstrained line translates",
        "fitsub.quality.flags:dropped_content",
        live="lost",
        live_part="lost ",
    ),
    FlagKind(
        OVER_BUDGET,
        BUDGET,
        "the fitted line is longer than its budget: no whole translation fit",
        "fitsub.quality.flags:segment_flags",
        live="length",
    ),
    FlagKind(
        REPEATED_TOKEN,
        ERROR,
        "the fitted line repeats a word or a phrase back to back",
        "fitsub.quality.flags:repetitions",
    ),
    FlagKind(
        UNKNOWN_WORD,
        ERROR,
        "the fitted line holds a word of no dictionary, lexicon, source or glossary",
        "fitsub.quality.flags:unknown_word_flag",
    ),
    FlagKind(
        LOW_QUALITY,
        ERROR,
        "the fitted line scores under the threshold: its meaning is likely wrong or lost",
        "fitsub.quality.score:low_quality_flag",
    ),
)
BUDGET_FLAGS: tuple[FlagKind, ...] = (  # the budget's own warnings (`fitsub.budget.Budget`)
    FlagKind(
        TOO_SMALL,
        TIMING,
        "the budget is below any plausible translation of the source (budget warning)",
        "fitsub.budget.segment:min_plausible_chars",
    ),
    FlagKind(
        TOO_SHORT,
        TIMING,
        "the cue is on screen too briefly to be read, whatever its text (timing warning)",
        "fitsub.budget.slot:is_too_short",
    ),
)
DUB_FLAGS: tuple[FlagKind, ...] = (  # `fitsub dub-check`, per dubbed line (`fitsub.dubbing.check`)
    FlagKind(
        TOO_LONG_TO_SPEAK,
        BUDGET,
        "the dubbed line, spoken, takes more than 15 % longer than the source line (dub-check)",
        "fitsub.dubbing.check:flag_for",
    ),
    FlagKind(
        TOO_SHORT_TO_SPEAK,
        BUDGET,
        "the dubbed line, spoken, takes more than 15 % less time than the source line (dub-check)",
        "fitsub.dubbing.check:flag_for",
    ),
)
TERM_FLAGS: tuple[
    FlagKind, ...
] = (  # `translate --terms dictionary` (`fitsub.pipeline.forced_terms`)
    FlagKind(
        DICTIONARY_TERM,
        NOTE,
        "the line holds a dictionary term forced by --terms dictionary (named, with its sense): "
        "check its sense, number and article",
        "fitsub.pipeline.forced_terms:term_flag",
    ),
)
FLAGS: dict[str, FlagKind] = {
    k.name: k for k in (*QUALITY_FLAGS, *BUDGET_FLAGS, *DUB_FLAGS, *TERM_FLAGS)
}
FLAG_NAMES: tuple[str, ...] = tuple(k.name for k in QUALITY_FLAGS)
RECHECKED: tuple[str, ...] = tuple(k.name for k in QUALITY_FLAGS if k.rechecked)


def severity_of(name: str) -> str:
    """The severity of the flag called `name` (`ERROR` for a flag this module does not know)."""
    kind = FLAGS.get(name)
    return ERROR if kind is None else kind.severity
