"""Pauses in the speaking-time estimate (issue 60, item 2): do commas, dashes and sentence ends
inside a line take time, and how much, per language?

For each language (en and the four targets), lines of `ud-pud` (read text) and of the first half
of `dev/opensubtitles` (dialogue; the second half is the dialogue issue's report half, untouched)
are counted in syllables and synthesized one by one by espeak-ng at the calibrated speed (edge
silence trimmed, as `fitsub dub-check` measures a line). Lines 1-100 of ud-pud and 1-300 of
opensubtitles fit

    seconds = syllables / articulation_rate + Σ_kind pauses(kind) × seconds(kind)

by least squares (the kinds of `fitsub.budget.speech.pause_counts`); the next 100 lines of each
set measure, against the synthesized duration, the plain estimate (syllables / the published rate)
and the estimate with pauses: Pearson r, the mean absolute error and the share within ±10 %.

    OMP_NUM_THREADS=1 taskset -c 1 .venv/bin/python experiments/dubbing/pauses.py ../shared/data

Nothing derived from ../shared/data is written: the script prints its figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from fitsub.budget.speech import PAUSE_KINDS, SPEECH_RATES, pause_counts
from fitsub.dubbing.speech import SyllableCounter, synthesize_seconds

LANGS = ("en", "it", "de", "fr", "es")


def lines_of(data: Path, lang: str, name: str) -> list[str]:
    pair = "en-it" if lang == "en" else f"en-{lang}"
    lines = (data / pair / "dev" / f"{name}.{lang}").read_text(encoding="utf-8").splitlines()
    if name == "opensubtitles":
        lines = lines[: len(lines) // 2][:400]  # the selection half only: 1-300 fit, 301-400 test
    else:
        lines = lines[:200]  # 1-100 fit, 101-200 test
    return [line for line in lines if line.strip()]


def measure(lang: str, texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Syllables, pause counts (one column per kind) and synthesized seconds per line."""
    syllables = np.array(SyllableCounter(lang).count_many(texts), dtype=float)
    pauses = np.array([[pause_counts(t)[k] for k in PAUSE_KINDS] for t in texts], dtype=float)
    seconds = np.array([synthesize_seconds(t, lang) for t in texts])
    return syllables, pauses, seconds


def scores(estimate: np.ndarray, seconds: np.ndarray) -> str:
    r = float(np.corrcoef(estimate, seconds)[0, 1])
    err = np.abs(estimate / seconds - 1)
    return f"r {r:.3f}, mean |error| {100 * err.mean():.1f} %, within ±10 % {100 * (err <= 0.1).mean():.1f} %"


def main() -> None:
    data = Path(sys.argv[1])
    for lang in LANGS:
        fit_rows, test_rows = [], []
        for name in ("ud-pud", "opensubtitles"):
            texts = lines_of(data, lang, name)
            syl, pau, sec = measure(lang, texts)
            n = len(texts) - 100
            fit_rows.append((syl[:n], pau[:n], sec[:n]))
            test_rows.append((name, syl[n:], pau[n:], sec[n:]))
        syl = np.concatenate([r[0] for r in fit_rows])
        pau = np.concatenate([r[1] for r in fit_rows])
        sec = np.concatenate([r[2] for r in fit_rows])
        design = np.column_stack([syl, pau])
        coef, *_ = np.linalg.lstsq(design, sec, rcond=None)
        rate = 1 / coef[0]
        shares = pau.sum(axis=0)
        print(
            f"{lang}: articulation {rate:.2f} syll/s (published {SPEECH_RATES[lang]}); pauses "
            + ", ".join(
                f"{k} {c:.3f} s (n={int(n)})"
                for k, c, n in zip(PAUSE_KINDS, coef[1:], shares, strict=True)
            )
        )
        for name, s, p, t in test_rows:
            plain = s / SPEECH_RATES[lang]
            paused = s * coef[0] + p @ coef[1:]
            print(f"  held out {name} ({len(t)} lines): plain {scores(plain, t)}")
            print(f"  {' ' * (len(name) + 21)}pauses {scores(paused, t)}")


if __name__ == "__main__":
    main()
