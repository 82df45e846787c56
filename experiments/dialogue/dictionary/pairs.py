"""Dictionary entries as extra training pairs (issue 54, item 3, the second use).

Writes one parallel corpus, `wiktionary-pairs.en` / `.LANG`, from a `dictionaries/en-LANG.tsv.gz`
list: for every English headword of the chosen parts of speech, the first translation of its
first sense (the sense Wiktionary's list marks first, else sense 1). Nothing is chosen by the
term list or the bees words: every headword that passes the filters below is written.

    python experiments/dialogue/dictionary/pairs.py it build/dict/data/en-it
"""

from __future__ import annotations

import argparse
import gzip
import re
from pathlib import Path

WORD = re.compile(r"^[a-z][a-z' -]*[a-z]$")
TARGET = re.compile(r"^[^\W\d_][\w' -]*[^\W\d_]$")


def pairs(tsv: Path, pos: set[str]) -> list[tuple[str, str]]:
    """(English headword, first target) per headword and part of speech, in file order."""
    best: dict[tuple[str, str], tuple[int, str]] = {}
    with gzip.open(tsv, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#") or line.startswith("en\tpos"):
                continue
            en, p, sense, first, _gloss, targets, *_ = line.rstrip("\n").split("\t")
            if p not in pos or not WORD.match(en) or not targets:
                continue
            target = targets.split("|")[0].strip()
            if not TARGET.match(target) or len(target) > 40:
                continue
            rank = 0 if first == "1" else int(sense)
            key = (en, p)
            if key not in best or rank < best[key][0]:
                best[key] = (rank, target)
    return [(en, target) for (en, _p), (_r, target) in best.items()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lang")
    ap.add_argument("out", type=Path)
    ap.add_argument("--pos", default="n,adj,v", help="parts of speech (comma-separated)")
    ap.add_argument(
        "--min-zipf",
        type=float,
        default=0.0,
        help="keep headwords at least this frequent in English (wordfreq's Zipf scale; 0: all)",
    )
    args = ap.parse_args()
    rows = pairs(Path(f"dictionaries/en-{args.lang}.tsv.gz"), set(args.pos.split(",")))
    if args.min_zipf > 0:
        from wordfreq import zipf_frequency

        rows = [(en, t) for en, t in rows if zipf_frequency(en, "en") >= args.min_zipf]
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / "wiktionary-pairs"
    Path(f"{stem}.en").write_text("".join(f"{en}\n" for en, _ in rows), encoding="utf-8")
    Path(f"{stem}.{args.lang}").write_text("".join(f"{t}\n" for _, t in rows), encoding="utf-8")
    print(f"{len(rows)} pairs -> {stem}.en / .{args.lang}")


if __name__ == "__main__":
    main()
