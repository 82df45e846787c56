"""Speaking-time compliance (`fitsub eval --unit syllables|seconds`): the share of outputs whose
length in syllables, or in estimated speaking time (`fitsub.budget.speaking_seconds`: syllables
at the language's articulation rate plus its pauses), is within ±10 % of the source's, bounds
included: the IWSLT 2022 length-compliance band, in the unit of a dubbing budget. Syllables are
counted by espeak-ng (`fitsub.dubbing.speech`), so this needs the program.
"""

from __future__ import annotations

from collections.abc import Sequence

from fitsub.budget import (
    SPEECH_UNITS,
    SpeechUnit,
    speaking_seconds,
    speech_rate_for,
    speech_rate_problem,
)
from fitsub.dubbing.speech import SyllableCounter
from fitsub.errors import InputError
from fitsub.metrics.length import LC_HIGH, LC_LOW, RateResult, check_aligned, rate


class SpeechScoring:
    """How outputs are measured in a speech unit: the unit, both languages, the target's rate
    (None: the table's); one syllable counter per language, kept between test sets."""

    def __init__(
        self, unit: str, *, src_lang: str, lang: str, speech_rate: float | None = None
    ) -> None:
        if unit not in SPEECH_UNITS:
            raise InputError(
                None, f"must be one of {', '.join(SPEECH_UNITS)}, got {unit!r}", setting="unit"
            )
        if speech_rate is not None:
            problem = speech_rate_problem(speech_rate)
            if problem is not None:
                raise InputError(None, problem.replace("speech rate ", ""), setting="speech_rate")
        self.unit: SpeechUnit = "syllables" if unit == "syllables" else "seconds"
        self.src_lang, self.lang = src_lang, lang
        self.src_rate = speech_rate_for(src_lang)
        self.rate = speech_rate_for(lang, speech_rate)
        self.speech_rate = speech_rate
        self._counters = {src_lang: SyllableCounter(src_lang), lang: SyllableCounter(lang)}

    def lengths(self, texts: Sequence[str], *, source: bool) -> list[float]:
        """Each text's length in the unit (the source's language and rate when `source`)."""
        lang = self.src_lang if source else self.lang
        syllables = self._counters[lang].count_many(list(texts))
        if self.unit == "syllables":
            return [float(s) for s in syllables]
        override = None if source else self.speech_rate
        return [
            speaking_seconds(t, s, lang, override) for t, s in zip(texts, syllables, strict=True)
        ]

    def compliance(self, srcs: Sequence[str], outs: Sequence[str]) -> RateResult:
        """The share of outputs within ±10 % of their source in the unit (a silent source —
        no syllable — complies only with a silent output)."""
        check_aligned("outs", outs, "srcs", srcs)
        src_len = self.lengths(srcs, source=True)
        out_len = self.lengths(outs, source=False)
        eps = 1e-9
        return rate(
            [
                LC_LOW * s - eps <= o <= LC_HIGH * s + eps
                for s, o in zip(src_len, out_len, strict=True)
            ]
        )
