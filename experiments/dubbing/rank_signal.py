"""Which signal should pick a dubbed line from the n-best (issue 60, item 1)?

For each held-out dialogue line (`dev/opensubtitles` 401-560 of the first half: the selection
half, never the report half), the shipped model is asked, as `fitsub translate --profile dubbing`
asks it, for the characters of the line's speaking window (`SpeechBudgeter.window`, hard cap and
lower bound), with a wide n-best (`--nbest`, default 8). Each candidate inside the character
cap is then scored three ways, and the one closest to the target picked by each:

* `syllables`: |syllables − the window's target syllables| (what the pipeline ranks by today);
* `chars`: |characters − the window's characters| (the beam's own unit);
* `synth`: |espeak-ng's duration of the candidate − the source's synthesized duration| (the
  measure dub-check judges by: an upper bound of what a synthesizer-based ranking can reach,
  and its cost per line).

Reported per signal: the share of lines whose pick is within ±15 % of the synthesized source
(dub-check's band), the mean |log ratio|, and the seconds per line the signal cost.

    OMP_NUM_THREADS=1 taskset -c 1 .venv/bin/python experiments/dubbing/rank_signal.py \\
        ../shared/data --lang de [--lines 160] [--nbest 8]

Nothing derived from ../shared/data is written: the script prints its figures.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

from fitsub.backend import Request
from fitsub.budget import SpeechBudgeter
from fitsub.cli.registry import open_model
from fitsub.dubbing.speech import synthesize_seconds
from fitsub.units import char_length

BAND = 0.15


def lines_of(data: Path, lang: str, n: int) -> list[str]:
    path = data / f"en-{lang}" / "dev" / "opensubtitles.en"
    lines = path.read_text(encoding="utf-8").splitlines()
    half = lines[: len(lines) // 2]
    return [line for line in half[400 : 400 + n] if line.strip()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", type=Path)
    ap.add_argument("--lang", default="de")
    ap.add_argument("--lines", type=int, default=160)
    ap.add_argument("--nbest", type=int, default=8)
    args = ap.parse_args()
    sources = lines_of(args.data, args.lang, args.lines)
    speech = SpeechBudgeter("seconds", lang=args.lang)
    backend = open_model(
        None, src_lang="en", lang=args.lang, beam=args.nbest, threads=1, device="cpu"
    )
    windows = [speech.window(s, None) for s in sources]
    requests = [
        Request(s, w.max_chars, w.max_chars, min(w.min_chars, w.max_chars), lexicon=True)
        for s, w in zip(sources, windows, strict=True)
    ]
    started = time.perf_counter()
    nbests = backend.translate(requests, n_best=args.nbest)
    decode_s = time.perf_counter() - started
    picks: dict[str, list[float]] = {"syllables": [], "chars": [], "synth": []}
    cost = dict.fromkeys(picks, 0.0)
    sizes = []
    for source, window, cands in zip(sources, windows, nbests, strict=True):
        texts = list(
            dict.fromkeys(c.text for c in cands if char_length(c.text) <= window.max_chars)
        )
        texts = texts or [cands[0].text]
        sizes.append(len(texts))
        source_s = synthesize_seconds(source, "en")
        t = time.perf_counter()
        by_syl = min(texts, key=lambda x: abs(speech.syllables(x) - window.target_syllables))
        cost["syllables"] += time.perf_counter() - t
        t = time.perf_counter()
        by_chars = min(texts, key=lambda x: abs(char_length(x) - window.max_chars))
        cost["chars"] += time.perf_counter() - t
        t = time.perf_counter()
        spoken = {x: synthesize_seconds(x, args.lang) for x in texts}
        by_synth = min(texts, key=lambda x: abs(spoken[x] - source_s))
        cost["synth"] += time.perf_counter() - t
        for name, pick in (("syllables", by_syl), ("chars", by_chars), ("synth", by_synth)):
            ratio = spoken[pick] / source_s if source_s > 0 else 1.0
            picks[name].append(ratio)
    n = len(sources)
    print(
        f"{args.lang}: {n} lines, n-best {args.nbest} (distinct fitting candidates per line: "
        f"mean {sum(sizes) / n:.1f}); decoding {decode_s / n:.3f} s/line"
    )
    for name, ratios in picks.items():
        within = sum(abs(r - 1) <= BAND for r in ratios) / n
        log_err = sum(abs(math.log(r)) for r in ratios if r > 0) / n
        print(
            f"  {name:9s} within ±15 % {100 * within:5.1f} %, mean |log ratio| {log_err:.3f}, "
            f"signal cost {cost[name] / n:.3f} s/line"
        )


if __name__ == "__main__":
    main()
