"""espeak-ng, run as a program: syllables from its phonemes and durations from its speech.

espeak-ng is GPL-3.0: fitsub never links it, it runs the `espeak-ng` executable (a Debian
package, `apt-get install espeak-ng`; `make espeak` installs it where it can) and reads its
output. Syllables are the vowel nuclei of its IPA phonemes (`count_nuclei`), counted per word
and cached; a duration is the length of the WAV file it writes (`-w`).

The synthesis speed is set per language so that espeak-ng speaks at the published rate of
`fitsub.budget.speech.SPEECH_RATES` (`ESPEAK_WPM`, calibrated in docs/results/dubbing.md).
"""

from __future__ import annotations

import array
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata
import wave
from pathlib import Path

from fitsub.errors import InputError

ESPEAK = "espeak-ng"
HOW_TO_GET = (
    "espeak-ng is not installed: install it with `apt-get install espeak-ng` (Debian / Ubuntu), "
    "`brew install espeak-ng` (macOS) or `make espeak`"
)

VOICES: dict[str, str] = {"en": "en-us", "it": "it", "de": "de", "fr": "fr-fr", "es": "es"}
"""The espeak-ng voice of each language fitsub counts syllables in."""

ESPEAK_WPM: dict[str, int] = {"en": 215, "it": 192, "de": 198, "fr": 209, "es": 221}
"""espeak-ng's `-s` (words per minute) at which each voice speaks the syllables per second of
`SPEECH_RATES`, measured on dev sentences (experiments/dubbing/calibrate.py)."""


def scaled_wpm(lang: str, rate: float | None = None, published: float | None = None) -> int:
    """espeak-ng's `-s` for `lang` spoken at `rate` syllables per second: `ESPEAK_WPM` scaled by
    `rate` ÷ `published` (the language's published rate); `ESPEAK_WPM` itself without them."""
    base = ESPEAK_WPM.get(lang, 175)
    if rate is None or not published:
        return base
    return round(base * rate / published)


_WORD = re.compile(r"[^\W_]+(?:['’\-][^\W_]+)*|\d+(?:[.,]\d+)*")
_TIMEOUT_S = 60

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


def espeak_available() -> bool:
    """Whether the `espeak-ng` program is on the PATH."""
    return shutil.which(ESPEAK) is not None


def require_espeak(path: str | Path | None = None) -> str:
    """The path of `espeak-ng`, or an `InputError` (exit 2) saying how to get it."""
    found = shutil.which(ESPEAK)
    if found is None:
        raise InputError(path, HOW_TO_GET)
    return found


def voice_for(lang: str, path: str | Path | None = None) -> str:
    """The espeak-ng voice of `lang`; a language without one is an input error (no silent
    fallback to characters)."""
    voice = VOICES.get(lang)
    if voice is None:
        known = ", ".join(sorted(VOICES))
        raise InputError(path, f"no syllable counter for language {lang!r} (known: {known})")
    return voice


def words_of(text: str) -> list[str]:
    """The spoken words of a text: letter runs (with inner apostrophes and hyphens) and
    numbers, NFC; punctuation and markup symbols are not spoken."""
    return _WORD.findall(unicodedata.normalize("NFC", text))


def _run(args: list[str], text: str, what: str) -> str:
    try:
        done = subprocess.run(
            args, input=text, capture_output=True, text=True, timeout=_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InputError(None, f"espeak-ng failed on {what}: {exc}") from exc
    if done.returncode != 0:
        detail = done.stderr.strip().splitlines()[:1]
        raise InputError(None, f"espeak-ng failed on {what}: {' '.join(detail) or done.returncode}")
    return done.stdout


class SyllableCounter:
    """Syllables of a language's words from espeak-ng's phonemes, each word counted once.

    Words go to espeak-ng one a line (`-q --ipa --sep=' '`); each output line is one word's
    phonemes, counted by `count_nuclei`. Numbers count as spoken ("1999": 6 in English)."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.voice = voice_for(lang)
        self.program = require_espeak()
        self._cache: dict[str, int] = {}

    def phonemes(self, words: list[str]) -> list[str]:
        """espeak-ng's IPA phonemes of each word, one string per word."""
        if not words:
            return []
        args = [self.program, "-q", "--ipa", "--sep= ", "-v", self.voice]
        out = _run(args, "\n".join(words) + "\n", f"{len(words)} words ({self.lang})")
        lines = [line for line in out.splitlines() if line.strip()]
        if len(lines) == len(words):
            return lines
        # A word espeak-ng split into clauses: ask again one word at a time.
        return [" ".join(_run(args, w + "\n", repr(w)).split("\n")) for w in words]

    def count_words(self, words: list[str]) -> list[int]:
        """Syllables of each word (cached per lower-cased word)."""
        keys = [w.lower() for w in words]
        missing = sorted({k for k in keys if k not in self._cache})
        for key, phon in zip(missing, self.phonemes(missing), strict=True):
            self._cache[key] = count_nuclei(phon, self.lang)
        return [self._cache[k] for k in keys]

    def count(self, text: str) -> int:
        """Syllables of a text: the sum over its spoken words."""
        return sum(self.count_words(words_of(text)))

    def count_many(self, texts: list[str]) -> list[int]:
        """Syllables of each text, with one espeak-ng run for all their new words."""
        per_text = [words_of(t) for t in texts]
        self.count_words([w for words in per_text for w in words])
        return [sum(self._cache[w.lower()] for w in words) for words in per_text]


SILENCE = 200
"""Samples of magnitude at most this (16-bit) at a WAV's edges are silence, not speech."""


def wav_seconds(path: Path) -> float:
    """The spoken duration of a 16-bit mono WAV file in seconds: from its first to its last
    sample above `SILENCE` (espeak-ng pads every line with silence; a ratio of two lines
    must not count the padding)."""
    with wave.open(str(path), "rb") as wav:
        rate = wav.getframerate()
        if wav.getsampwidth() != 2 or wav.getnchannels() != 1:
            return wav.getnframes() / rate
        samples = array.array("h", wav.readframes(wav.getnframes()))
    if sys.byteorder == "big":
        samples.byteswap()
    first = next((i for i, v in enumerate(samples) if abs(v) > SILENCE), None)
    if first is None:
        return 0.0
    last = next(i for i in range(len(samples) - 1, -1, -1) if abs(samples[i]) > SILENCE)
    return (last - first + 1) / rate


def synthesize_seconds(text: str, lang: str, wpm: int | None = None) -> float:
    """The duration in seconds of `text` spoken by espeak-ng in `lang`'s voice at `wpm` words per
    minute (default `ESPEAK_WPM[lang]`, the published syllable rate), from the WAV it writes.
    Leading and trailing silence espeak-ng adds is part of every line alike."""
    voice = voice_for(lang)
    program = require_espeak()
    speed = ESPEAK_WPM.get(lang, 175) if wpm is None else wpm
    with tempfile.TemporaryDirectory(prefix="fitsub-tts-") as tmp:
        out = Path(tmp) / "line.wav"
        args = [program, "--stdin", "-v", voice, "-s", str(speed), "-w", str(out)]
        _run(args, text, repr(text[:40]))
        if not out.is_file():
            raise InputError(None, f"espeak-ng wrote no audio for {text[:40]!r}")
        return wav_seconds(out)
