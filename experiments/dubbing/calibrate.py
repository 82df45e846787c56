"""espeak-ng's speed per language for the published syllable rates (fitsub.dubbing.speech.ESPEAK_WPM).

For each language, 100 dev sentences (ud-pud lines 1-100; the evidence uses other lines) are
counted in syllables (fitsub.dubbing.speech.SyllableCounter) and synthesized one by one at a trial
speed (the spoken duration, edge silence trimmed, as `fitsub dub-check` measures a line); the
speed is scaled by target rate ÷ measured rate until the two agree within 1 %.

    .venv/bin/python experiments/dubbing/calibrate.py /work/shared/data
"""

from __future__ import annotations

import sys
from pathlib import Path

from fitsub.budget import SPEECH_RATES
from fitsub.dubbing.speech import SyllableCounter, synthesize_seconds


def sentences(data: Path, lang: str) -> list[str]:
    pair = "en-it" if lang == "en" else f"en-{lang}"
    lines = (data / pair / "dev" / f"ud-pud.{lang}").read_text(encoding="utf-8").splitlines()
    return lines[:100]


def calibrate(data: Path, lang: str) -> tuple[int, float]:
    texts = sentences(data, lang)
    syllables = sum(SyllableCounter(lang).count_many(texts))
    wpm = 175
    for _ in range(6):
        seconds = sum(synthesize_seconds(t, lang, wpm=wpm) for t in texts)
        measured = syllables / seconds
        if abs(measured / SPEECH_RATES[lang] - 1) < 0.01:
            break
        wpm = round(wpm * SPEECH_RATES[lang] / measured)
    return wpm, measured


def main() -> None:
    data = Path(sys.argv[1])
    for lang in ("en", "it", "de", "fr", "es"):
        wpm, measured = calibrate(data, lang)
        print(f"{lang}: -s {wpm} -> {measured:.2f} syllables/s (target {SPEECH_RATES[lang]})")


if __name__ == "__main__":
    main()
