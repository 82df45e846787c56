"""Filter film/TV subtitle pairs into a build directory (never into the repository).

OpenSubtitles pairs are loosely aligned: a line may pair with its neighbour's translation, hold
OCR slips or be left in English. Kept: pairs whose character ratio (target / source) lies in
[MIN, MAX] when both sides exceed 10 characters, whose target is not the source copied, and
whose sides agree on whether they hold a digit. The counts dropped per rule are printed.

    python recipes/dialogue/filter_subtitles.py ../shared/data/en-it/train/opensubtitles it \
        build/dialogue/data/en-it/opensubtitles-f
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

_DIGIT = re.compile(r"\d")
_WORD = re.compile(r"\w+")


def keep_reason(src: str, tgt: str, lo: float, hi: float) -> str | None:
    """None when the pair is kept, else the rule that drops it."""
    s, t = src.strip(), tgt.strip()
    if not s or not t:
        return "empty"
    if min(len(s), len(t)) > 10 and not lo <= len(t) / len(s) <= hi:
        return "ratio"
    if len(s) > 15 and s.casefold() == t.casefold():
        return "copied"
    if bool(_DIGIT.search(s)) != bool(_DIGIT.search(t)):
        return "digits"
    if not _WORD.search(t):
        return "no-words"
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("prefix", help="PREFIX of PREFIX.en / PREFIX.LANG")
    ap.add_argument("lang")
    ap.add_argument("out", help="output PREFIX")
    ap.add_argument("--min-ratio", type=float, default=0.6)
    ap.add_argument("--max-ratio", type=float, default=1.9)
    a = ap.parse_args()
    src = Path(f"{a.prefix}.en").read_text(encoding="utf-8").splitlines()
    tgt = Path(f"{a.prefix}.{a.lang}").read_text(encoding="utf-8").splitlines()
    if len(src) != len(tgt):
        raise SystemExit(f"{a.prefix}: {len(src)} English lines, {len(tgt)} {a.lang} lines")
    dropped: dict[str, int] = {}
    kept_s: list[str] = []
    kept_t: list[str] = []
    for s, t in zip(src, tgt, strict=True):
        why = keep_reason(s, t, a.min_ratio, a.max_ratio)
        if why is None:
            kept_s.append(s.strip())
            kept_t.append(t.strip())
        else:
            dropped[why] = dropped.get(why, 0) + 1
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(f"{a.out}.en").write_text("\n".join(kept_s) + "\n", encoding="utf-8")
    Path(f"{a.out}.{a.lang}").write_text("\n".join(kept_t) + "\n", encoding="utf-8")
    print(f"{a.prefix}: kept {len(kept_s):,} of {len(src):,}; dropped {dropped}")


if __name__ == "__main__":
    main()
