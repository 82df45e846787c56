"""Issue 58's Targets on a fresh held-out reading: ~40 dev lines per language, read as a
subtitler reads (source, fitted output, reference), none of them a calibration line
(`register_slices.py`: the `read` lines of the first half of dev/mustc-tst-common-a and
dev/opensubtitles).

    fitsub translate build/qe58/LANG.SET.read.txt --lang LANG --threads 1 --report build/qe58/LANG.SET.read.json
    # the reader's marks: build/qe58/LANG.SET.read.marks, one line per segment: "k ok|light|retranslate yes|no"
    python experiments/quality-estimation/register_reading.py build/qe58 [--write]

Prints, per language, under the flags as translated ("before": the raw score at the language's
threshold) and under the shipped per-register thresholds ("after": the same raw score held to
its length band, `QualityModel.threshold_at`): unflagged lines that must be retranslated as a
share of unflagged lines (target <= 20 %), any-flag precision (flagged lines needing work, light
fix or retranslation; target >= 90 %), reader-marked reversals flagged (`meaning-reversed`; any
flag). `--write`: marks/reading-58.tsv (line numbers, marks and our own output text; no source
or reference text of the shared data).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from fitsub.quality.registry import LOW_QUALITY, MEANING_REVERSED
from fitsub.quality.score import load_model, source_words

HERE = Path(__file__).resolve().parent
LANGS = ("it", "de", "fr", "es")
SETS = ("ted", "subs")


def rows(folder: Path, model_path: Path | None = None) -> list[dict]:
    model = load_model(model_path)
    out = []
    for lang in LANGS:
        for name in SETS:
            rep = folder / f"{lang}.{name}.read.json"
            if not rep.exists():
                continue
            segs = json.loads(rep.read_text("utf-8"))["segments"]
            ids = (folder / f"{lang}.{name}.read.ids").read_text("utf-8").splitlines()
            marks = (folder / f"{lang}.{name}.read.marks").read_text("utf-8").splitlines()
            assert len(segs) == len(ids) == len(marks), rep
            for seg, idl, mk in zip(segs, ids, marks, strict=True):
                k, mark, rev = mk.split()
                names = [f["name"] for f in seg["flags"]]
                other = [n for n in names if n != LOW_QUALITY]
                q = seg["quality"]
                low_after = q is not None and q < model.threshold_at(
                    lang, source_words(seg["source"])
                )
                out.append(
                    {
                        "lang": lang,
                        "set": name,
                        "line": int(idl.split("\t")[0]),
                        "mark": mark,
                        "reversed": rev == "yes",
                        "quality": q,
                        "before": names,
                        "after": other + ([LOW_QUALITY] if low_after else []),
                        "fitted": seg["fitted"],
                    }
                )
    return out


def figures(sel: list[dict], key: str) -> str:
    flagged = [r for r in sel if r[key]]
    clean = [r for r in sel if not r[key]]
    miss = sum(r["mark"] == "retranslate" for r in clean)
    work = sum(r["mark"] != "ok" for r in flagged)
    must = sum(r["mark"] == "retranslate" for r in flagged)
    rev = [r for r in sel if r["reversed"]]
    rev_mr = sum(MEANING_REVERSED in r[key] for r in rev)
    rev_any = sum(bool(r[key]) for r in rev)
    return (
        f"flagged {len(flagged)}/{len(sel)}; unflagged to retranslate {miss}/{len(clean)}"
        f" = {100 * miss / max(1, len(clean)):.0f} %; precision (needs work) {work}/{len(flagged)}"
        f" = {100 * work / max(1, len(flagged)):.0f} % (must retranslate {100 * must / max(1, len(flagged)):.0f} %);"
        f" reversals {len(rev)}: meaning-reversed {rev_mr}, any flag {rev_any}"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", type=Path)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--model", type=Path, default=None, help="quality model (default: shipped)")
    a = ap.parse_args()
    data = rows(a.folder, a.model)
    for lang in (*LANGS, "all"):
        sel = [r for r in data if lang in ("all", r["lang"])]
        marks = {m: sum(r["mark"] == m for r in sel) for m in ("ok", "light", "retranslate")}
        print(f"{lang}: {len(sel)} lines, marks {marks}")
        for key in ("before", "after"):
            print(f"  {key}: {figures(sel, key)}")
    print("per set: lines, reader-bad (must retranslate) %, flagged % before -> after, ratio after")
    for lang in LANGS:
        for name in SETS:
            sel = [r for r in data if r["lang"] == lang and r["set"] == name]
            if sel:
                bad = sum(r["mark"] == "retranslate" for r in sel) / len(sel)
                b, f = (sum(bool(r[k]) for r in sel) / len(sel) for k in ("before", "after"))
                print(
                    f"  {lang} {name}: {len(sel)}, {100 * bad:.0f} %, {100 * b:.0f} -> {100 * f:.0f} %,"
                    f" {f / max(bad, 1e-9):.2f}"
                )
    if a.write:
        head = "lang\tset\tline\tmark\treversed\tquality_raw\tflags_before\tflags_after\tfitted"
        lines = [head] + [
            "\t".join(
                [
                    r["lang"],
                    r["set"],
                    str(r["line"]),
                    r["mark"],
                    "yes" if r["reversed"] else "no",
                    "" if r["quality"] is None else f"{r['quality']:.4f}",
                    ",".join(r["before"]),
                    ",".join(r["after"]),
                    r["fitted"].replace("\t", " ").replace("\n", " "),
                ]
            )  # fmt: skip
            for r in data
        ]
        path = HERE / "marks" / "reading-58.tsv"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
