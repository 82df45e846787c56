"""The fitter: what decides whether a translation fits a unit (its cues' budgets and lines, the
lower bound, a speaking window) and whether it is clean (no flag of its own, no invented or
English word), for the steps of `fitsub.pipeline.run`."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from fitsub.budget import SpeechBudgeter
from fitsub.pipeline.share import SINGLE, CueFit
from fitsub.pipeline.work import Unit
from fitsub.quality.dictionary import Dictionary, english_left
from fitsub.quality.flags import segment_flags
from fitsub.quality.lexicon import Lexicon, unknown_words, words_of
from fitsub.units import char_length, ratio_chars_ceil


@dataclass(frozen=True)
class Fitter:
    """What decides whether a translation fits a unit: the cues' budgets and lines
    (`CueFit`), the lower bound (`min_ratio`) and the words the model knows."""

    fit: CueFit
    min_ratio: float | None
    known: Collection[str]
    lexicon: Lexicon | None = (
        None  # the model's (`fitsub.quality.lexicon`): None, no word is invented
    )
    terms: tuple[str, ...] = ()  # glossary targets: words that may be outside the lexicon
    speech: SpeechBudgeter | None = None  # counts syllables for units with a speaking window

    def parts(self, u: Unit, text: str) -> tuple[list[str] | None, str]:
        """The parts of `text` that fit every cue of `u` (None: it does not fit) and the path
        that found them (`share.WHOLE` / `RESPLIT` for a sentence across cues). Under a band
        speaking window its characters are no cap: the window's measure decides."""
        n = char_length(text)
        if u.window is not None and self.speech is not None:  # dubbing: inside the window
            if not self.speech.accepts(u.source, text, u.window):
                return None, ""
        elif self.min_ratio is not None and n < ratio_chars_ceil(
            self.min_ratio, char_length(u.source)
        ):
            return None, ""
        if len(u.cues) > 1:
            return self.fit.share(u, text)
        capped = u.window is None or u.window.capped
        if (capped and n > u.budget) or (u.line is not None and n > u.line):
            return None, ""
        prot = self.fit.planned[u.cues[0]].protected
        if prot is not None and prot.is_dialogue:  # a turn: its cue is laid out turn by turn
            return [text], SINGLE
        chars = None if u.window is None else u.budget if capped else max(u.budget, n)
        return ([text], SINGLE) if self.fit.part_fits(u.cues[0], text, chars) else (None, "")

    def english(self, u: Unit, text: str) -> int:
        """How many words of `text` (each time it occurs) read as English
        (`fitsub.quality.dictionary.english_left`; 0 without the lexicon's dictionary)."""
        d = self.lexicon.dictionary if self.lexicon is not None else None
        english = (
            set()
            if not isinstance(d, Dictionary)
            else set(english_left(u.source, text, d, self.terms))
        )
        return sum(w in english for w in words_of(text))

    def off_target(self, u: Unit, text: str) -> float:
        """How far `text` is from `u`'s window: its target syllables, or with `--rank-by
        speech` its time spoken (`SpeechBudgeter.off_target`; 0 without a window)."""
        if u.window is None or self.speech is None:
            return 0.0
        return self.speech.off_target(u.source, text, u.window)

    def clean(self, u: Unit, text: str) -> bool:
        """Whether a translation carries no quality flag of its own (`fitsub.quality.flags`)
        and invents no word (none outside the lexicon, the source and the glossary)."""
        if self.lexicon is not None and unknown_words(text, [u.source], self.lexicon, self.terms):
            return False
        if self.english(u, text):  # a word left in English: not in the target language
            return False
        return not segment_flags(
            source=u.source,
            fitted=text,
            unconstrained=text,
            budget_chars=None,
            model_fits=True,
            known=self.known,
        )
