"""The one definition of length in fitsub.

Every API that takes or returns a length names its unit: `chars` (Unicode code points of the
visible text, spaces included, markup excluded: what a subtitle line's CPL counts) or
`subwords` (SentencePiece pieces). The IWSLT 2022 isometric length compliance counts
characters *without* spaces: `chars_no_space`.
"""

from __future__ import annotations

import math
import unicodedata
from fractions import Fraction
from typing import Literal

LengthUnit = Literal["char", "subword"]
LENGTH_UNITS: tuple[LengthUnit, ...] = ("char", "subword")


def char_length(text: str) -> int:
    """Visible length in characters of plain text (NFC code points, newlines not counted)."""
    return len(unicodedata.normalize("NFC", text).replace("\n", "").replace("\r", ""))


def chars_no_space(text: str) -> int:
    """Length in characters without whitespace, as the IWSLT 2022 isometric task counts it."""
    return sum(1 for ch in unicodedata.normalize("NFC", text) if not ch.isspace())


# --- Conversions between units. Each one lives here, named with its unit and its rounding. ---

BoundUnit = Literal["char", "char_no_space"]
"""The unit of a request's hard bounds (`fitsub.backend.Request.bound_unit`): `char` counts
`char_length`, `char_no_space` counts `chars_no_space` (IWSLT 2022's length compliance)."""


def _decimal(ratio: float) -> Fraction:
    """The ratio as the decimal the user typed: 0.29 is 29/100, not 0.28999999999999998."""
    return Fraction(repr(float(ratio)))


def ratio_chars_floor(ratio: float, chars: int) -> int:
    """A length limit from a ratio of a source length: floor(ratio × chars), exact.

    Budgets, requested lengths and `fit` use this: the limit never exceeds the ratio."""
    return math.floor(_decimal(ratio) * chars)


def ratio_chars_ceil(ratio: float, chars: int) -> int:
    """A lower bound from a ratio of a source length: ceil(ratio × chars), exact.

    `--min-ratio` uses this: an output of this length is never shorter than the ratio."""
    return math.ceil(_decimal(ratio) * chars)


def ratio_band(ratio: float, chars: int, low: float, high: float) -> tuple[int, int]:
    """The lengths within `low`..`high` times ratio × chars: (ceil(low × ratio × chars),
    floor(high × ratio × chars)), exact (IWSLT 2022's ±10 % band is `low` 0.9, `high` 1.1)."""
    target = _decimal(ratio) * chars
    return math.ceil(_decimal(low) * target), math.floor(_decimal(high) * target)


def chars_in_time(cps: float, duration_ms: int) -> int:
    """The characters read in `duration_ms` at `cps` characters per second:
    floor(cps × duration_ms / 1000), exact (a reading-speed limit)."""
    return math.floor(_decimal(cps) * duration_ms / 1000)


def subword_target(chars: int, chars_per_subword: float) -> int:
    """The length in subwords asked of a model trained on subword lengths, for a requested
    length in characters: round(chars / chars_per_subword), at least 1 (a request, not a cap:
    the hard budget stays in characters)."""
    return max(1, round(chars / chars_per_subword))


def subword_budget(chars: int, chars_per_subword: float) -> int:
    """The subword cap of a character budget: floor(chars / chars_per_subword) (never more
    pieces than the characters allow at the average piece length)."""
    if chars < 0:
        raise ValueError(f"character budget must be >= 0, got {chars}")
    if not chars_per_subword > 0 or math.isinf(chars_per_subword):
        raise ValueError(f"characters per subword must be positive, got {chars_per_subword}")
    return math.floor(Fraction(chars) / Fraction(chars_per_subword))


def chars_to_no_space(chars: int, text: str) -> int:
    """A length in characters (with spaces) rescaled to characters without spaces by `text`'s
    own proportion: round(chars × chars_no_space(text) / char_length(text))."""
    return round(chars * chars_no_space(text) / max(char_length(text), 1))


SPACE_MARK = "\u2581"  # SentencePiece's word-boundary marker `▁`; a byte-level BPE uses "Ġ"


def piece_chars(piece: str, mark: str = SPACE_MARK) -> int:
    """Characters a vocabulary piece adds to detokenised text: its text with the word-boundary
    mark counted as one space (special pieces are the caller's to zero)."""
    return len(piece)


def piece_leading_space(piece: str, mark: str = SPACE_MARK) -> int:
    """1 when the piece starts with the word-boundary mark (the space detokenisation drops at
    the start of a text), else 0."""
    return 1 if piece.startswith(mark) else 0


# --- Speaking time: syllables and seconds (dubbing). ---

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

MAX_SPEECH_RATE = 20.0
"""Above this many syllables per second no one speaks: a rate over it is an input error."""

# The IPA vowel letters espeak-ng writes (`--ipa`); a phoneme holding one is a syllable's
# nucleus. The glides j, w, ɥ are consonants here; a syllabic consonant carries U+0329.
IPA_VOWELS = frozenset("aeiouyæɐɑɒɔəɘɚɛɜɝɞɤɨɪɯɵøœɶʉʊʌʏᵻ")
SYLLABIC_MARK = "\u0329"
STRESS_MARKS = "ˈˌ"
_LENGTH_MARKS = "ːˑ"
HIGH_VOWELS = frozenset("iuyɪʊʏ")
GLIDING_LANGS = frozenset({"it", "es", "fr"})
"""Languages whose espeak-ng voices write an unstressed i / u / y next to a vowel as a vowel
where the language has a glide (Italian *nuovo*, Spanish *ciudad*, French *nuit*)."""


def phoneme_is_nucleus(phoneme: str) -> bool:
    """Whether one espeak-ng IPA phoneme is a syllable's nucleus: it holds a vowel letter (a
    diphthong such as `aɪ` is one phoneme), the syllabic mark (`n̩`) or a stress mark (stress
    falls on nuclei; espeak-ng writes `??` for a vowel it has no IPA for)."""
    return (
        SYLLABIC_MARK in phoneme
        or any(ch in IPA_VOWELS for ch in phoneme)
        or any(ch in STRESS_MARKS for ch in phoneme)
    )


def _is_glide(phonemes: list[str], i: int, nuclei: list[bool]) -> bool:
    """An unstressed high vowel before a vowel, or after a counted nucleus, is a glide."""
    token = phonemes[i]
    if any(ch in STRESS_MARKS for ch in token) or token.strip(_LENGTH_MARKS) not in HIGH_VOWELS:
        return False
    after = i + 1 < len(phonemes) and phoneme_is_nucleus(phonemes[i + 1])
    return after or (i > 0 and nuclei[i - 1])


def count_nuclei(phonemes: str, lang: str = "") -> int:
    """Syllables of one word's espeak-ng IPA output written with one space between phonemes
    (`espeak-ng -q --ipa --sep=' '`): the phonemes that are nuclei. Length marks are not
    phonemes; language-switch marks such as `(en)` are skipped. In `GLIDING_LANGS` an unstressed
    high vowel next to a vowel is a glide (a rising diphthong takes the first: *ciu*-dad)."""
    tokens = [t for t in phonemes.split() if not (t.startswith("(") and t.endswith(")"))]
    nuclei: list[bool] = []
    for i, token in enumerate(tokens):
        nucleus = phoneme_is_nucleus(token)
        if nucleus and lang in GLIDING_LANGS and _is_glide(tokens, i, nuclei):
            nucleus = False
        nuclei.append(nucleus)
    return sum(nuclei)


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


def syllables_in_seconds(seconds: float, rate: float) -> int:
    """The syllables spoken in `seconds` at `rate` syllables per second, floor(rate × seconds)
    (a time budget in syllables: never more than the window holds)."""
    problem = speech_rate_problem(rate)
    if problem is not None:
        raise ValueError(problem)
    return math.floor(_decimal(rate) * _decimal(seconds))


def chars_for_syllables(syllables: int, chars_per_syllable: float) -> int:
    """The character length asked of a character-controlled model for a syllable target:
    round(syllables × chars_per_syllable), at least 1 (a request; the syllables are checked
    on the n-best)."""
    return max(1, round(syllables * chars_per_syllable))
