"""The dubbing evidence: do characters or syllables predict speaking time, and how far is each
system's output from the source's speaking time? (docs/results/dubbing.md)

    # which predicts the synthesized duration ratio of translation to source better?
    .venv/bin/python experiments/dubbing/measure.py predictors build/dub
    # systems: translate reports (fitsub translate --report) scored against the references
    .venv/bin/python experiments/dubbing/measure.py systems build/dub char.dev syl.dev

`build/dub/dev.LANG.src.txt` / `dev.LANG.ref` hold the dev sentences (never committed; see
docs/results/dubbing.md for the lines taken); `build/dub/NAME.LANG.json` a translate report
(experiments/dubbing/run.sh makes them all).
Every line is synthesized with espeak-ng at its language's calibrated speed
(fitsub.dubbing.speech.ESPEAK_WPM); durations are cached in build/dub/durations.json.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

from fitsub.budget import CHARS_PER_SYLLABLE, SPEECH_RATES
from fitsub.dubbing.speech import SyllableCounter, synthesize_seconds
from fitsub.metrics.reference import bleu, chrf
from fitsub.units import char_length

LANGS = ("it", "de", "fr", "es")


class Durations:
    """Synthesized durations, cached on disk by language and text."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.cache: dict[str, float] = json.loads(path.read_text()) if path.is_file() else {}

    def __call__(self, lang: str, text: str) -> float:
        key = f"{lang}\t{text}"
        if key not in self.cache:
            self.cache[key] = synthesize_seconds(text, lang)
        return self.cache[key]

    def save(self) -> None:
        self.path.write_text(json.dumps(self.cache, ensure_ascii=False))


def pearson(xs: list[float], ys: list[float]) -> float:
    return statistics.correlation(xs, ys)


def within(values: list[float], tol: float) -> float:
    return sum(1 for v in values if abs(v - 1) <= tol + 1e-9) / len(values)


def chars_per_second(lang: str) -> float:
    return CHARS_PER_SYLLABLE[lang] * SPEECH_RATES[lang]


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def predictors(folder: Path) -> None:
    durations = Durations(folder / "durations.json")
    en = SyllableCounter("en")
    print(
        "| lang | n | r chars | r syllables | r est. seconds | MAE chars"
        " | MAE chars at the language's chars/s | MAE est. seconds |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for lang in LANGS:
        src, ref = lines(folder / f"dev.{lang}.src.txt"), lines(folder / f"dev.{lang}.ref")
        counter = SyllableCounter(lang)
        s_syl, t_syl = en.count_many(src), counter.count_many(ref)
        dur = [durations(lang, t) / durations("en", s) for s, t in zip(src, ref, strict=True)]
        by_chars = [char_length(t) / char_length(s) for s, t in zip(src, ref, strict=True)]
        by_syl = [t / s for s, t in zip(s_syl, t_syl, strict=True)]
        by_time = [x * SPEECH_RATES["en"] / SPEECH_RATES[lang] for x in by_syl]
        mae_c = statistics.fmean(abs(c - d) for c, d in zip(by_chars, dur, strict=True))
        mae_t = statistics.fmean(abs(c - d) for c, d in zip(by_time, dur, strict=True))
        scale = chars_per_second("en") / chars_per_second(lang)
        mae_s = statistics.fmean(abs(c * scale - d) for c, d in zip(by_chars, dur, strict=True))
        print(
            f"| {lang} | {len(src)} | {pearson(by_chars, dur):.3f} | {pearson(by_syl, dur):.3f}"
            f" | {pearson(by_time, dur):.3f} | {mae_c:.3f} | {mae_s:.3f} | {mae_t:.3f} |"
        )
        durations.save()


def quality(hyps: list[str], refs: list[str], scored: bool) -> str:
    if not scored:
        return "– | –"
    return f"{bleu(hyps, refs).score:.1f} | {chrf(hyps, refs).score:.1f}"


def system_rows(folder: Path, name: str, lang: str, durations: Durations) -> list[str]:
    report = json.loads((folder / f"{name}.{lang}.json").read_text(encoding="utf-8"))
    segments = report["segments"]
    src = [s["source"] for s in segments]
    refs = lines(folder / f"dev.{lang}.ref")
    en, counter = SyllableCounter("en"), SyllableCounter(lang)
    s_syl = en.count_many(src)
    rows = []
    label_of = {
        "char": "char-isometric 1.0",
        "syl": "syllable-isometric",
        "cps": "char-isometric at the language's chars/s",
    }
    named = label_of.get(name.split(".")[0], name)
    scored = len(refs) == len(segments)  # the scene sample has no reference: no BLEU
    for label, field in (("unconstrained", "unconstrained"), (named, "fitted")):
        hyps = [s[field] or "" for s in segments]
        t_syl = counter.count_many(hyps)
        char_r = [char_length(h) / char_length(s) for s, h in zip(src, hyps, strict=True)]
        syl_r = [t / s for s, t in zip(s_syl, t_syl, strict=True)]
        time_r = [x * SPEECH_RATES["en"] / SPEECH_RATES[lang] for x in syl_r]
        synth = [durations(lang, h) / durations("en", s) for s, h in zip(src, hyps, strict=True)]
        rows.append(
            f"| {lang} | {label} | {quality(hyps, refs, scored)}"
            f" | {100 * within(char_r, 0.10):.1f} | {100 * within(syl_r, 0.10):.1f}"
            f" | {100 * within(time_r, 0.10):.1f} | {statistics.fmean(time_r):.2f}"
            f" | {100 * within(synth, 0.15):.1f} | {statistics.fmean(synth):.2f} |"
        )
        durations.save()
    return rows


def systems(folder: Path, names: list[str]) -> None:
    durations = Durations(folder / "durations.json")
    print(
        "| lang | output | BLEU | chrF | chars ±10 % | syllables ±10 % | est. seconds ±10 %"
        " | mean est. time ratio | synthesized ±15 % | mean synthesized ratio |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for lang in LANGS:
        seen = False
        for name in names:
            if not (folder / f"{name}.{lang}.json").is_file():
                continue
            rows = system_rows(folder, name, lang, durations)
            print("\n".join(rows if not seen else rows[1:]))
            seen = True


def main() -> None:
    what, folder = sys.argv[1], Path(sys.argv[2])
    if what == "predictors":
        predictors(folder)
    else:
        systems(folder, sys.argv[3:])


if __name__ == "__main__":
    main()
