"""Synthesized timing for ranking a dubbing n-best (`fitsub translate --rank-by speech`).

Under a dubbing budget the n-best of a refitted cue is re-ranked by closeness to its window
(`fitsub.pipeline.run.choose`). By default the closeness is the syllable estimate's; with
`--rank-by speech` it is espeak-ng's: each candidate is spoken (`synthesize_seconds`, at the
speed that puts the voice on the dub's rate, as dub-check speaks it) and compared with the
window's time as dub-check measures it: the source line spoken by espeak-ng (`isochrony` source)
or the cue's time (`isochrony` cue). On 160 held-out dialogue lines the synthesized duration
picked a line within ±15 % of the synthesized source for 69.4 % (de) / 75.0 % (it) against 50.0 /
59.4 % for syllables, at about 0.3 s a line (docs/results/dubbing.md, "Which signal picks from a
wider n-best"; judged by the same synthesizer, an upper bound). Each text is spoken once
(cached per run).
"""

from __future__ import annotations

from typing import Literal

from fitsub.dubbing.speech import require_espeak, synthesize_seconds

RankBy = Literal["estimate", "speech"]
RANK_BY: tuple[RankBy, ...] = ("estimate", "speech")
"""What ranks a dubbing n-best: the estimate (syllables against the window's target) or speech
(espeak-ng's duration against the window's time)."""


class SpokenTimer:
    """espeak-ng's durations of dubbed lines in `lang` (at `wpm`) and of their sources in
    `src_lang` (at its own calibrated speed), each text spoken once."""

    def __init__(self, lang: str, src_lang: str, wpm: int) -> None:
        require_espeak()
        self.lang, self.src_lang, self.wpm = lang, src_lang, wpm
        self._target: dict[str, float] = {}
        self._source: dict[str, float] = {}

    def seconds(self, text: str) -> float:
        """A dubbed line's synthesized duration (edge silence trimmed); 0 for a text with
        nothing to speak (no letter or digit: a model's empty candidate)."""
        if not any(ch.isalnum() for ch in text):
            return 0.0
        if text not in self._target:
            self._target[text] = synthesize_seconds(text, self.lang, wpm=self.wpm)
        return self._target[text]

    def source_seconds(self, text: str) -> float:
        """A source line's synthesized duration, as dub-check speaks it (0: nothing to speak)."""
        if not any(ch.isalnum() for ch in text):
            return 0.0
        if text not in self._source:
            self._source[text] = synthesize_seconds(text, self.src_lang)
        return self._source[text]

    def off(self, text: str, goal: float) -> float:
        """How far `text`, spoken, is from `goal` seconds (the band dub-check judges by is a
        ratio to one goal, so the seconds' difference orders candidates as it does)."""
        return abs(self.seconds(text) - goal)
