"""False alarms of `meaning-reversed` on human reference lines (issue 58).

    python experiments/quality-estimation/polarity_check.py [--data ../shared/data] [--show N]

Runs `fitsub.quality.polarity.reversed_words` on every source / reference pair of the dev sets
`ud-pud` (it, de, fr, es) and `mustc-tst-common-a` (it, de, es) and prints, per language and set,
the share of reference lines flagged: a human translation keeps its source's polarity, so every
flag there is a false alarm (target: at most 3 %). The data is read where it lies, never copied.
`--show N` prints N flagged lines per set, to read.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from fitsub.quality.polarity import reversed_words

SETS = {"ud-pud": ("it", "de", "fr", "es"), "mustc-tst-common-a": ("it", "de", "es")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--show", type=int, default=0)
    args = ap.parse_args()
    for name, langs in SETS.items():
        for lang in langs:
            stem = args.data / f"en-{lang}" / "dev" / name
            src = stem.with_suffix(".en").read_text(encoding="utf-8").splitlines()
            ref = stem.with_suffix(f".{lang}").read_text(encoding="utf-8").splitlines()
            flagged = [
                (s, r, d)
                for s, r in zip(src, ref, strict=True)
                if (d := reversed_words(s, r, lang)) is not None
            ]
            share = 100 * len(flagged) / len(src)
            print(f"{name:20} {lang}  {len(flagged):4d} / {len(src)} flagged = {share:.1f} %")
            for s, r, d in flagged[: args.show]:
                print(f"    [{d}] {s}\n        {r}")


if __name__ == "__main__":
    main()
