"""festival, a second voice for Italian: a dubbed line's duration from another synthesizer.

`fitsub dub-check --voice festival` times each dubbed line with festival (Debian's `festival`
and `festvox-italp16k`, the diphone voice `lp_diphone`) beside espeak-ng, so that a line is not
judged by one synthesizer's phoneme durations alone (issue 60, item 4). Debian has no second
synthesizer for German, French or Spanish here (festival speaks Italian, flite English only),
hence Italian only. festival is run as a program (`text2wave`), never linked, as espeak-ng is.

festival speaks slower than the published Italian rate espeak-ng is set to (`ESPEAK_WPM`), so its
durations are scaled by `FESTIVAL_RATE` ÷ the dub's rate: the ratio against the source's
espeak-ng duration then compares the two voices at one rate (festival speaks no English here:
the source is always espeak-ng's, as in dub-check).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import wave
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fitsub.dubbing.speech import wav_seconds
from fitsub.errors import InputError

TEXT2WAVE = "text2wave"
FESTIVAL_VOICE = "voice_lp_diphone"
FESTIVAL_LANGS = ("it",)
HOW_TO_GET = (
    "festival is not installed: install it with `apt-get install festival festvox-italp16k` "
    "(Debian / Ubuntu; festival and its Italian voice)"
)
NO_VOICE = (
    "festival's Italian voice is not installed: install it with `apt-get install "
    "festvox-italp16k` (Debian / Ubuntu)"
)

FESTIVAL_RATE = 6.31
"""Syllables per second festival's `lp_diphone` speaks: fitsub's syllable count (espeak-ng's
phonemes) of ud-pud lines 1-100 (the Italian references of `en-it/dev/ud-pud.it`) over
festival's summed durations of the same lines, edge silence trimmed (6.31 against the published
6.99 of `SPEECH_RATES`: durations × 0.903). Measured with experiments/dubbing/second_voice.py
(session 21: 6.31; session 22, with the Latin-1 mapping below: 6.309), festival 2.5 on Debian;
docs/results/dubbing.md, "A second voice for Italian"."""

_TIMEOUT_S = 60
# festival reads Latin-1: the typographic marks outside it, as the ASCII it reads the same way
# festival reads Latin-1 and writes no audio at all for a line holding « or » (the French and
# Italian quotation marks): those become plain quotes first
_LATIN1 = str.maketrans(
    {"’": "'", "‘": "'", "“": '"', "”": '"', "…": "...", "–": "-", "—": "-", "«": '"', "»": '"',
     "‹": "'", "›": "'"}
)  # fmt: skip


def festival_available() -> bool:
    """Whether festival's `text2wave` is on the PATH."""
    return shutil.which(TEXT2WAVE) is not None


def require_festival(lang: str, path: str | Path | None = None) -> str:
    """The path of `text2wave` for a dub in `lang`; an `InputError` (exit 2) when `lang` is not
    one festival speaks here or festival is missing (saying what to install)."""
    if lang not in FESTIVAL_LANGS:
        raise InputError(
            path,
            f"festival speaks Italian only (festvox-italp16k); got --lang {lang} "
            "(leave out --voice: espeak-ng alone)",
            setting="voice",
        )
    found = shutil.which(TEXT2WAVE)
    if found is None:
        raise InputError(path, HOW_TO_GET)
    return found


def festival_raw_seconds(text: str, program: str | None = None) -> float:
    """festival's duration of `text` in seconds, unscaled (edge silence trimmed, as espeak-ng's
    in dub-check); 0.0 when it writes no audio for it (a line of punctuation)."""
    program = program or require_festival("it")
    with tempfile.TemporaryDirectory(prefix="fitsub-festival-") as tmp:
        out = Path(tmp) / "line.wav"
        try:
            done = subprocess.run(
                [program, "-eval", f"({FESTIVAL_VOICE})", "-o", str(out)],
                input=text.translate(_LATIN1).encode("iso-8859-1", errors="replace"),
                capture_output=True,
                timeout=_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise InputError(None, f"festival failed on {text[:40]!r}: {exc}") from exc
        err = done.stderr.decode("utf-8", errors="replace")
        if FESTIVAL_VOICE in err:  # festival runs, but without its Italian voice
            raise InputError(None, NO_VOICE)
        if done.returncode != 0 or not out.is_file():
            detail = err.strip().splitlines()[:1]
            raise InputError(None, f"festival failed on {text[:40]!r}: {' '.join(detail)}")
        try:
            return wav_seconds(out)
        except (EOFError, OSError, wave.Error):  # a header and no audio
            return 0.0


@dataclass(frozen=True)
class Voice:
    """A second voice: its name, how its durations are put on the dub's rate, and `speak`, a
    dubbed line's duration in seconds at that rate."""

    name: str
    note: str
    speak: Callable[[str], float]


def festival_voice(lang: str, rate: float, path: str | Path | None = None) -> Voice:
    """festival as the second voice of a dub in `lang` spoken at `rate` syllables per second:
    its durations × `FESTIVAL_RATE` ÷ `rate`."""
    program = require_festival(lang, path)
    scale = FESTIVAL_RATE / rate

    def speak(text: str) -> float:
        return festival_raw_seconds(text, program) * scale

    note = f"lp_diphone, durations × {scale:.3f} to {rate:g} syllables/s"
    return Voice(name="festival", note=note, speak=speak)
