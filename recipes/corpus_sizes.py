"""Per-corpus pair counts of one pair's training data, for a model card's data table (issue 12).

For each corpus of `recipes/corpora.sh` (or those named): raw pairs, pairs after `fitsub train
--dedupe` (repeats and same-length retranslations dropped, `fitsub.train.corpus.dedupe`), the
weight, and the pairs the weight gives (before the run's length / ratio filters, which drop a few
dozen pairs in all). Reads ../shared/data/en-LANG/train; prints a Markdown table.

    .venv/bin/python recipes/corpus_sizes.py de
    .venv/bin/python recipes/corpus_sizes.py de tatoeba:0.5 wmt-news:2
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

from fitsub.train.corpus import dedupe, find_corpora, parse_corpus_spec, read_parallel

ROOT = Path(__file__).resolve().parent.parent


def specs_of(lang: str) -> list[str]:
    """The corpus specs `corpora_of LANG` prints (recipes/corpora.sh)."""
    out = subprocess.run(
        ["bash", "-c", f"source recipes/corpora.sh && corpora_of {lang}"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.split()


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    lang, specs = argv[0], argv[1:] or specs_of(argv[0])
    found = find_corpora(ROOT.parent / "shared" / "data" / f"en-{lang}" / "train", "en", lang)
    print("| corpus | raw | after dedupe | weight | pairs used |")
    print("|---|---|---|---|---|")
    total = 0
    for spec in specs:
        name, weight = parse_corpus_spec(spec)
        part = read_parallel(*found[name])
        kept, _ = dedupe(part)
        # as fitsub.train.corpus.upsample: floor(weight) copies plus a rounded share
        used = int(math.floor(weight)) * len(kept) + round((weight % 1) * len(kept))
        total += used
        print(f"| {name} | {len(part):,} | {len(kept):,} | {weight:g} | {used:,} |")
    print(f"| total | | | | {total:,} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
