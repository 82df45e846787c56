"""The speaking window of dubbing (`SpeechWindow`): a segment's budget in speaking time.

A dubbed line must be speakable in the time the actor on screen speaks (isochrony). The window
of a segment is, with `isochrony="source"` (the default), the source's estimated speaking time,
its syllables ÷ the source language's rate; with `isochrony="cue"`, the cue's duration. A
dialogue cue has one window per speaker turn (`turn_windows`), the cue's their sum. Brannon,
Virkar & Thompson 2023 find human dubs often break strict isochrony, so a window, not an exact
length. With `rank_by="speech"` (`WINDOW_SHAPE`) the window is the `band`: two-sided and as
wide as the band dub-check judges by, ±`BAND` (15 %) around that time, a line judged by
espeak-ng's duration against the source spoken (`SpeechBudgeter.accepts`); the model is asked
for the target's characters, at most the band's upper end, and an accepted line's characters
are no cap. With the estimate it is the `narrow` window of before: 0.9-1.0 × the time, judged
by syllables, its characters a hard cap too (the band judged by syllables put fewer lines in a
second voice's band). The gap study found the narrow window keeping out lines a second voice
times within the band (docs/results/dubbing.md, "Whose gap" and "The window as wide as the
judge's band").

In the target language the window holds rate × seconds syllables (`SPEECH_RATES`, Pellegrino,
Coupé & Marsico 2011; `speech_rate` overrides), and — what the search asks the model for and
enforces in the beam — that many syllables × the language's characters per syllable
(`CHARS_PER_SYLLABLE`): characters predict espeak-ng's durations better than syllables once
scaled per language (docs/results/dubbing.md). The window's characters are the segment's ratio
limit (`fitsub.budget.segment.budget_for`). The exact syllable count (espeak-ng,
`fitsub.dubbing.speech`) is then checked on the n-best (`fitsub.pipeline.run`), which is
re-ranked by closeness to the target (`SpeechBudgeter.off_target`: its syllables, or with
`rank_by="speech"` espeak-ng's duration of each candidate, `fitsub.dubbing.timing`).

Pauses: `speaking_seconds` estimates a line's time as its syllables at the language's
articulation rate plus the pauses inside it (`pause_counts`, `PAUSE_SECONDS`), fitted to
espeak-ng (experiments/dubbing/pauses.py); it predicts synthesized time better than syllables ÷
rate, and `fitsub eval --unit seconds` and `fitsub dub-check` measure with it. The windows keep
the published rates, whose average holds the pauses: windows built from the pause estimate
(the source's pauses taken off the target's syllables) fitted fewer dev lines
(docs/results/dubbing.md, "Pauses").
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from fitsub.dubbing.speech import SyllableCounter, require_espeak, scaled_wpm
from fitsub.dubbing.timing import RANK_BY, RankBy, SpokenTimer
from fitsub.errors import InputError

SpeechUnit = Literal["syllables", "seconds"]
"""The units of a dubbing budget: syllables counted from espeak-ng's phonemes
(`fitsub.dubbing.speech`), and the estimated speaking time, syllables ÷ the language's rate."""
SPEECH_UNITS: tuple[SpeechUnit, ...] = ("syllables", "seconds")

SPEECH_RATES: dict[str, float] = {"en": 6.19, "it": 6.99, "de": 5.97, "fr": 7.18, "es": 7.82}
"""Syllables per second of read speech, the mean over each language's speakers in Pellegrino,
Coupé & Marsico 2011, "A cross-language perspective on speech information rate", *Language*
87(3), table 1 (docs/results/dubbing.md says which figures were checked against the paper)."""

CHARS_PER_SYLLABLE: dict[str, float] = {"en": 3.63, "it": 2.75, "de": 3.40, "fr": 3.66, "es": 2.82}
"""Characters (`char_length`, spaces and punctuation included) per espeak-ng syllable of each
language's text, measured on 100 dev sentences (ud-pud lines 1-100; docs/results/dubbing.md):
the character length a syllable budget asks of a character-controlled model."""

PAUSE_KINDS: tuple[str, ...] = ("comma", "break")
"""The marks inside a line that a speaker pauses at: `comma` (a comma, semicolon or colon) and
`break` (a dash, an ellipsis, or a sentence end with more text after it: each rarer than a
comma, and pooled so that one weight is fitted on enough of them). A line's last mark is not
counted: the time after the last word is not the line's (dub-check trims it, an actor stops)."""

_ELLIPSIS = re.compile(r"(?:\.\.+|…)(?=\s+\S)")
_COMMA = re.compile(r"[,;:](?=\s+\S)")
_BREAK = re.compile(r"\s(?:--|[-–—])(?=\s+\S)|[–—](?=\S)|[.!?]+(?=\s+\S)")


def pause_counts(text: str) -> dict[str, int]:
    """How many of each `PAUSE_KINDS` mark `text` holds inside it (followed by more words):
    "Well, I — I don't know... Wait. Go!" holds a comma and three breaks."""
    ellipses = len(_ELLIPSIS.findall(text))
    rest = _ELLIPSIS.sub(" ", text)
    return {"comma": len(_COMMA.findall(rest)), "break": ellipses + len(_BREAK.findall(rest))}


ARTICULATION_RATES: dict[str, float] = {"en": 6.40, "it": 7.28, "de": 6.35, "fr": 7.56, "es": 8.05}
"""Syllables per second between pauses: fitted with `PAUSE_SECONDS` to espeak-ng's durations
(spoken at the published `SPEECH_RATES`) of 400 dev lines a language, read text and film
dialogue (experiments/dubbing/pauses.py; docs/results/dubbing.md). Faster than the published
rates, which spread the pauses over the syllables."""

PAUSE_SECONDS: dict[str, dict[str, float]] = {
    "en": {"comma": 0.208, "break": 0.226},
    "it": {"comma": 0.263, "break": 0.276},
    "de": {"comma": 0.229, "break": 0.338},
    "fr": {"comma": 0.214, "break": 0.172},
    "es": {"comma": 0.162, "break": 0.169},
}
"""Seconds a pause mark (`PAUSE_KINDS`) inside a line takes, per language, fitted with
`ARTICULATION_RATES`."""


def articulation_rate(lang: str, override: float | None = None) -> float:
    """`lang`'s syllables per second between pauses; a `--speech-rate` override (an overall
    rate, as `SPEECH_RATES`) scales it by override ÷ the published rate."""
    base = ARTICULATION_RATES.get(lang)
    if base is None:
        return speech_rate_for(lang, override)
    return base if override is None else base * override / SPEECH_RATES[lang]


def pause_seconds(text: str, lang: str) -> float:
    """The time the pause marks inside `text` take when spoken in `lang` (0: no table)."""
    weights = PAUSE_SECONDS.get(lang, {})
    return sum(weights.get(kind, 0.0) * n for kind, n in pause_counts(text).items())


def speaking_seconds(text: str, syllables: int, lang: str, override: float | None = None) -> float:
    """The estimated speaking time of `text` (of `syllables`) in `lang`: its syllables at the
    articulation rate plus its pauses."""
    return syllables / articulation_rate(lang, override) + pause_seconds(text, lang)


MAX_SPEECH_RATE = 20.0
"""Above this many syllables per second no one speaks: a rate over it is an input error."""


def speech_rate_problem(rate: float) -> str | None:
    """Why a speech rate (syllables per second) cannot be used, or None when it can:
    it must be above 0 and at most `MAX_SPEECH_RATE`."""
    if math.isnan(rate) or rate <= 0:
        return f"speech rate must be above 0 syllables/s, got {rate:g}"
    if rate > MAX_SPEECH_RATE:
        return f"speech rate must be at most {MAX_SPEECH_RATE:g} syllables/s, got {rate:g}"
    return None


def seconds_of_syllables(syllables: int, rate: float) -> float:
    """The estimated speaking time in seconds of `syllables` at `rate` syllables per second."""
    problem = speech_rate_problem(rate)
    if problem is not None:
        raise ValueError(problem)
    return syllables / rate


def speech_rate_for(lang: str, override: float | None = None) -> float:
    """The syllables per second of `lang`: `override` when given, else `SPEECH_RATES`."""
    if override is not None:
        return override
    rate = SPEECH_RATES.get(lang)
    if rate is None:
        known = ", ".join(sorted(SPEECH_RATES))
        raise InputError(
            None, f"no speech rate for language {lang!r} (known: {known})", setting="speech_rate"
        )
    return rate


ISOCHRONY = ("source", "cue")
LOW = 0.9  # the narrow window's lower end: not more than 10 % shorter than its upper end
BAND = 0.15  # the band window's half-width: dub-check's `TOLERANCE`, the judge's band

WindowShape = Literal["band", "narrow"]
WINDOW_SHAPES: dict[str, tuple[float, float]] = {"band": (1 - BAND, 1 + BAND), "narrow": (LOW, 1.0)}
"""Each window shape's ends as shares of the window's time: `band`, two-sided and as wide as
the judge's band (the default); `narrow`, 0.9-1.0 × the time with the characters a hard cap
(the window before issue 60)."""
WINDOW_SHAPE: dict[str, WindowShape] = {"estimate": "narrow", "speech": "band"}
WINDOW_BY: dict[str, RankBy] = {"estimate": "estimate", "speech": "speech"}
"""The window under each `rank_by`, and what judges a line inside the band: under `--rank-by
speech` the band, judged by espeak-ng's duration (already spoken for the ranking); under the
estimate the narrow window, judged by syllables: the band judged by syllables put fewer lines
within festival's band (docs/results/dubbing.md, "The window as wide as the judge's band")."""


@dataclass(frozen=True)
class SpeechWindow:
    """One segment's speaking window: its time, in target syllables and in characters."""

    seconds: float  # the window's time (the source's estimated time or the cue's duration)
    target_syllables: float  # rate × seconds: the syllables the target should have
    max_syllables: int  # high × target (at least 1): a candidate with more is over the window
    min_syllables: int  # ceil(low × target), at most max_syllables
    max_chars: int  # floor(high × target × characters per syllable): the beam's hard limit
    min_chars: int  # ceil(low × target × characters per syllable): the beam's lower bound
    low: float = LOW  # the window's ends as shares of `seconds` (`WINDOW_SHAPES`)
    high: float = 1.0
    target_chars: int = 0  # the characters asked of the model (0: `max_chars`)

    @property
    def capped(self) -> bool:
        """Whether the window's characters cap an accepted line too (the narrow window's),
        not only what the model is asked for."""
        return self.high <= 1.0

    @property
    def asked_chars(self) -> int:
        """The characters asked of the model: the target's (the narrow window: its cap)."""
        return self.target_chars or self.max_chars

    @classmethod
    def joined(cls, turns: Sequence[SpeechWindow]) -> SpeechWindow:
        """The window of a dialogue cue whose speaker turns have the windows `turns`: their
        times, syllables and characters added (and a space between two turns)."""
        return cls(
            seconds=sum(w.seconds for w in turns),
            target_syllables=sum(w.target_syllables for w in turns),
            max_syllables=sum(w.max_syllables for w in turns),
            min_syllables=sum(w.min_syllables for w in turns),
            max_chars=sum(w.max_chars for w in turns) + len(turns) - 1,
            min_chars=sum(w.min_chars for w in turns),
            low=turns[0].low,
            high=turns[0].high,
            target_chars=sum(w.asked_chars for w in turns) + len(turns) - 1,
        )

    def describe(self, unit: SpeechUnit) -> str:
        """The window as a person reads it, in `unit`: `1.5-2.0 s` (its ends, `low` and
        `high` × its time) or `9-12 syl`."""
        if unit == "syllables":
            low, high = self.min_syllables, self.max_syllables
            return f"{low}-{high} syl" if low < high else f"{high} syl"
        return f"{self.low * self.seconds:.1f}-{self.high * self.seconds:.1f} s"

    def to_dict(self) -> dict[str, Any]:
        return {
            "seconds": round(self.seconds, 3),
            "target_syllables": round(self.target_syllables, 2),
            "max_syllables": self.max_syllables,
            "min_syllables": self.min_syllables,
            "max_chars": self.max_chars,
            "min_chars": self.min_chars,
            "low": self.low,
            "high": self.high,
            "target_chars": self.asked_chars,
        }


class SpeechBudgeter:
    """Speaking windows for one language pair: the unit (`syllables` or `seconds`: the same
    window, reported in that unit), the isochrony and the target's rate; espeak-ng counts.
    `rank_by`: what orders a cue's candidates by closeness to its window (`off_target`);
    `shape`: the window's (`WINDOW_SHAPES`, default `WINDOW_SHAPE`); `window_by`: what judges a
    line inside the band window (`accepts`): the estimate, or with `rank_by="speech"` (its
    default there) espeak-ng's duration."""

    def __init__(
        self,
        unit: str,
        *,
        lang: str,
        src_lang: str = "en",
        isochrony: str = "source",
        speech_rate: float | None = None,
        rank_by: str = "estimate",
        shape: str | None = None,
        window_by: str | None = None,
    ) -> None:
        if unit not in SPEECH_UNITS:
            choices = ", ".join(SPEECH_UNITS)
            raise InputError(None, f"must be one of {choices}, got {unit!r}", setting="unit")
        if isochrony not in ISOCHRONY:
            choices = ", ".join(ISOCHRONY)
            raise InputError(None, f"must be {choices}, got {isochrony!r}", setting="isochrony")
        if speech_rate is not None and (problem := speech_rate_problem(speech_rate)) is not None:
            raise InputError(None, problem.replace("speech rate ", ""), setting="speech_rate")
        if lang not in CHARS_PER_SYLLABLE:
            known = ", ".join(sorted(CHARS_PER_SYLLABLE))
            raise InputError(
                None, f"no syllable counter for {lang!r} (known: {known})", setting="lang"
            )
        if rank_by not in RANK_BY:
            choices = " or ".join(RANK_BY)
            raise InputError(None, f"must be {choices}, got {rank_by!r}", setting="rank_by")
        require_espeak()
        self.unit: SpeechUnit = "syllables" if unit == "syllables" else "seconds"
        self.lang, self.src_lang, self.isochrony = lang, src_lang, isochrony
        self.rate = speech_rate_for(lang, speech_rate)
        self.src_rate = speech_rate_for(src_lang)
        self.chars_per_syllable = CHARS_PER_SYLLABLE[lang]
        self.source_counter = SyllableCounter(src_lang)
        self.counter = SyllableCounter(lang)
        self.rank_by: RankBy = "speech" if rank_by == "speech" else "estimate"
        self.timer: SpokenTimer | None = None
        if self.rank_by == "speech":  # espeak-ng at the dub's rate, as dub-check speaks it
            wpm = scaled_wpm(lang, self.rate, SPEECH_RATES[lang])
            self.timer = SpokenTimer(lang, src_lang, wpm)
        shape = WINDOW_SHAPE[self.rank_by] if shape is None else shape
        if shape not in WINDOW_SHAPES:
            raise ValueError(f"window shape must be band or narrow, got {shape!r}")
        self.low, self.high = WINDOW_SHAPES[shape]
        by = WINDOW_BY[self.rank_by] if window_by is None else window_by
        if by not in RANK_BY or (by == "speech" and self.timer is None):
            raise ValueError(f"a window judged by {by!r} needs rank_by speech")
        self.window_by: RankBy = "speech" if by == "speech" and shape == "band" else "estimate"

    def window(
        self,
        source: str,
        duration_ms: int | None,
        path: Path | None = None,
        line: int | None = None,
    ) -> SpeechWindow:
        """The window of a segment whose source text is `source` (a cue of `duration_ms`)."""
        if self.isochrony == "cue":
            return self.window_of(source, self._cue_seconds(duration_ms, path, line))
        return self.window_of(source, self.source_seconds(source))

    def turn_windows(
        self,
        turns: Sequence[str],
        duration_ms: int | None,
        path: Path | None = None,
        line: int | None = None,
    ) -> list[SpeechWindow]:
        """One window per speaker turn of a dialogue cue: each turn's own speaking time, or
        (`isochrony="cue"`) the cue's time split in proportion to the turns' speaking times."""
        own = [self.source_seconds(t) for t in turns]
        if self.isochrony == "cue":
            cue = self._cue_seconds(duration_ms, path, line)
            total = sum(own)
            own = [cue * s / total if total > 0 else cue / len(turns) for s in own]
        return [self.window_of(t, s) for t, s in zip(turns, own, strict=True)]

    def source_seconds(self, source: str) -> float:
        """The source text's estimated speaking time: its syllables ÷ the source's rate."""
        return seconds_of_syllables(self.source_counter.count(source), self.src_rate)

    @staticmethod
    def _cue_seconds(duration_ms: int | None, path: Path | None, line: int | None) -> float:
        if duration_ms is None:
            raise InputError(path, "--isochrony cue needs timed cues (SRT, VTT, ASS)", line)
        if duration_ms <= 0:
            raise InputError(path, f"cue of {duration_ms} ms: it has no time to speak", line)
        return duration_ms / 1000

    def window_of(self, source: str, seconds: float) -> SpeechWindow:
        """The window of `seconds` for a translation of `source` (the source's text is not
        used: its pauses are the published rate's average, see the module's docstring)."""
        target = self.rate * seconds
        low, high = self.low, self.high
        if high <= 1.0:  # the narrow window: syllables are whole, the nearest count its top
            most = max(1, math.floor(target + 0.5))
        else:
            most = max(1, math.floor(high * target + 1e-9))
        chars = target * self.chars_per_syllable
        return SpeechWindow(
            seconds=seconds,
            target_syllables=target,
            max_syllables=most,
            min_syllables=min(most, math.ceil(low * target - 1e-9)),
            max_chars=max(1, math.floor(high * chars + 1e-9)),
            min_chars=math.ceil(low * chars - 1e-9),
            low=low,
            high=high,
            target_chars=0 if high <= 1.0 else max(1, math.floor(chars + 0.5)),
        )

    def syllables(self, text: str) -> int:
        """The target text's syllables (espeak-ng, cached per word)."""
        return self.counter.count(text)

    def seconds(self, text: str) -> float:
        """The target text's estimated speaking time at the window's rate (syllables ÷ rate)."""
        return seconds_of_syllables(self.syllables(text), self.rate)

    def accepts(self, source: str, text: str, window: SpeechWindow) -> bool:
        """Whether `text`, a translation of `source`, is inside `window`: its syllables
        between the window's ends, or (`window_by` speech) espeak-ng's duration within the
        window's ends × the source spoken by espeak-ng (`isochrony="cue"`: × the window's time)."""
        if self.window_by == "speech" and self.timer is not None:
            goal = (
                self.timer.source_seconds(source) if self.isochrony == "source" else window.seconds
            )
            if goal <= 0:
                return False
            ratio = self.timer.seconds(text) / goal
            return window.low - 1e-9 <= ratio <= window.high + 1e-9
        return window.min_syllables <= self.syllables(text) <= window.max_syllables

    def off_target(self, source: str, text: str, window: SpeechWindow) -> float:
        """How far `text`, a translation of `source`, is from `window`: by the estimate, its
        syllables against the target syllables; by speech (`rank_by`), espeak-ng's duration
        against the source spoken by espeak-ng (or, `isochrony="cue"`, the window's time)."""
        if self.timer is None:
            return abs(self.syllables(text) - window.target_syllables)
        goal = self.timer.source_seconds(source) if self.isochrony == "source" else window.seconds
        return self.timer.off(text, goal)
