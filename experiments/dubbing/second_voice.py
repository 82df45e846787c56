"""A second voice for Italian (issue 60, item 4): festival (Debian's `festival` with
`festvox-italp16k`, the diphone voice `lp_diphone`) times the dubbed lines as espeak-ng does.

1. Calibration: festival speaks ud-pud lines 1-100 (Italian references); its syllables per second
   (fitsub's syllable counter) against the published Italian rate (6.99) gives the factor that
   puts its durations on the rate espeak-ng was calibrated to (docs/results/dubbing.md).
2. Judgement: for the lines of a dubbed output and their English source, the ratio festival
   (scaled) ÷ espeak-ng's English source, beside dub-check's espeak-ng ratio; the share within
   ±15 % for each voice, and how often the two voices agree on a line (both inside or both
   outside the band).

    OMP_NUM_THREADS=1 taskset -c 1 .venv/bin/python experiments/dubbing/second_voice.py \\
        ../shared/data [OUT.it.txt SOURCE.en.txt DUBCHECK.json]

(the data folder alone: the calibration alone; `fitsub dub-check --voice festival` does step 2
on a subtitle file.)

Nothing derived from ../shared/data is written: the script prints its figures.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from fitsub.budget import SPEECH_RATES
from fitsub.dubbing.check import TOLERANCE as BAND
from fitsub.dubbing.festival import FESTIVAL_RATE, festival_raw_seconds
from fitsub.dubbing.speech import SyllableCounter


def festival_seconds(text: str) -> float:
    """festival's Italian duration of `text`, unscaled (`fitsub.dubbing.festival`)."""
    return festival_raw_seconds(text)


def main() -> None:
    data = Path(sys.argv[1])
    calib = (data / "en-it" / "dev" / "ud-pud.it").read_text(encoding="utf-8").splitlines()[:100]
    syllables = sum(SyllableCounter("it").count_many(calib))
    seconds = sum(festival_seconds(t) for t in calib)
    rate = syllables / seconds
    scale = rate / SPEECH_RATES["it"]
    print(
        f"festival lp_diphone: {rate:.3f} syllables/s on 100 ud-pud lines (fitsub's "
        f"FESTIVAL_RATE: {FESTIVAL_RATE}); durations x {scale:.3f}"
    )
    if len(sys.argv) < 5:  # the calibration alone
        return
    output, source, dub = (Path(a) for a in sys.argv[2:5])
    outs = output.read_text(encoding="utf-8").splitlines()
    report = json.loads(dub.read_text(encoding="utf-8"))
    segs = report["segments"]
    assert len(segs) == len(outs), (len(segs), len(outs))
    n = agree = in_espeak = in_festival = 0
    for seg, text in zip(segs, outs, strict=True):
        if not seg["source_s"] or not text.strip():
            continue
        spoken = festival_seconds(text)
        if spoken <= 0:
            continue
        fest = spoken * scale / seg["source_s"]
        a, b = abs(seg["ratio"] - 1) <= BAND, abs(fest - 1) <= BAND
        n += 1
        in_espeak += a
        in_festival += b
        agree += a == b
    print(
        f"{n} lines ({source.name}): within ±15 % of the synthesized source: espeak-ng "
        f"{100 * in_espeak / n:.1f} %, festival {100 * in_festival / n:.1f} %; the voices agree "
        f"on {100 * agree / n:.1f} % of lines"
    )


if __name__ == "__main__":
    main()
