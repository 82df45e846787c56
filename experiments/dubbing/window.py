"""The window as wide as the judge's band (issue 60): the dubbing path under each window, measured.

The gap study (experiments/dubbing/gap.py) found the model already offers a line of the right
spoken length for nearly every line, and the window (syllables 0.9-1.0 × the target, one-sided,
the characters a hard cap) keeping those lines out. This script runs `fitsub translate
--profile dubbing --unit seconds` under a chosen window (`fitsub.budget.speech`: `--shape band`
or `narrow`, judged `--by estimate` or `speech`) and sums up what each run reaches:

    python experiments/dubbing/window.py lines DATA --lang it --first 561 --last 760 --out build/win60
    python experiments/dubbing/window.py translate --shape band --by speech -- \\
        build/win60/fresh.en.txt --lang it --profile dubbing --rank-by speech ... -o OUT --report R
    fitsub dub-check OUT --source SRC --lang it --voice festival --json CHECK
    python experiments/dubbing/window.py summary --source SRC --report R --check CHECK \\
        [--ref build/win60/fresh.it.txt] --lang it --name NAME

`lines` writes `dev/opensubtitles` lines FIRST-LAST of the first half (1-based, as the earlier
sections count them; empty English lines left out) to `OUT/fresh.en.txt` and the references to
`OUT/fresh.LANG.txt` (build/, never committed: ../shared/data's text); where the first half ends
before LAST (German 562 lines, French 746), `--extra 251-400` fills up to LAST-FIRST+1 lines from
the first half's lines no dubbing study used (1-250 are the training run's dev, 401-560 the
selection lines of "Pauses" and after). `summary` prints one JSON row: over-budget flags, lines
with a timing flag, espeak-ng and festival within ±15 %, the estimated speaking time within ±10 %
(syllables ÷ rate against the source's, what the window targets; and the pause-aware
`speaking_seconds`), lines with a flag on the words (`QUALITY`), and BLEU of the fitted and the
unconstrained lines against the references. `paired` tests the BLEU differences (paired
bootstrap). experiments/dubbing/window.sh runs every row of docs/results/dubbing.md's sections
"The window as wide as the judge's band" and "German, French, Spanish under the new window".
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any


def write_lines(
    data: Path, lang: str, first: int, last: int, out: Path, extra: tuple[int, int] | None = None
) -> None:
    """Lines FIRST-LAST of the first half; where the half ends before LAST (German, French), lines
    of EXTRA (1-based, both ends in) fill up to LAST-FIRST+1, in file order (EXTRA's first)."""
    base = data / f"en-{lang}" / "dev" / "opensubtitles"
    en = base.with_suffix(".en").read_text(encoding="utf-8").splitlines()
    tgt = base.with_suffix(f".{lang}").read_text(encoding="utf-8").splitlines()
    half = len(en) // 2
    numbers = list(range(first, min(last, half) + 1))
    if extra is not None and len(numbers) < last - first + 1:
        more = range(extra[0], min(extra[1], half) + 1)
        numbers = [k for k in more if k not in numbers][: last - first + 1 - len(numbers)] + numbers
    pairs = [(en[k - 1], tgt[k - 1]) for k in numbers if en[k - 1].strip()]
    out.mkdir(parents=True, exist_ok=True)
    (out / "fresh.en.txt").write_text("\n".join(e for e, _ in pairs) + "\n", encoding="utf-8")
    (out / f"fresh.{lang}.txt").write_text("\n".join(t for _, t in pairs) + "\n", encoding="utf-8")
    spans = _spans(numbers)
    print(f"{len(pairs)} lines ({spans} of the first half of {half})")


def _spans(numbers: list[int]) -> str:
    runs: list[list[int]] = []
    for k in numbers:
        if runs and k == runs[-1][1] + 1:
            runs[-1][1] = k
        else:
            runs.append([k, k])
    return ", ".join(f"{a}-{b}" for a, b in runs)


def translate(shape: str, by: str, argv: list[str]) -> None:
    """`fitsub translate argv` with the window's shape and judge set (`fitsub.budget.speech`)."""
    import fitsub.budget.speech as speech
    from fitsub.cli import main

    speech.WINDOW_SHAPE = {
        k: "narrow" if shape == "narrow" else "band" for k in speech.WINDOW_SHAPE
    }
    speech.WINDOW_BY["speech"] = "speech" if by == "speech" else "estimate"
    main(["translate", *argv])


QUALITY = ("low-quality", "dropped-content", "repeated-token")  # flags of the words, not the time


def _within(ratios: list[float | None], band: float) -> float:
    return 100 * sum(1 for r in ratios if r is not None and abs(r - 1) <= band + 1e-9) / len(ratios)


def summary(source: Path, report: Path, check: Path, ref: Path | None, lang: str) -> dict[str, Any]:
    import sacrebleu

    from fitsub.budget import SPEECH_RATES, speaking_seconds
    from fitsub.dubbing.speech import SyllableCounter
    from fitsub.quality.sentence_end import degenerate

    rows = [
        s for s in json.loads(report.read_text(encoding="utf-8"))["segments"] if s["translated"]
    ]
    dub = json.loads(check.read_text(encoding="utf-8"))
    lines = dub["segments"]
    n = len(rows)
    assert len(lines) == n, (len(lines), n)
    over = sum(any(f["name"] == "over-budget" for f in r["flags"]) for r in rows)
    timing = sum(
        any(f["name"] == "over-budget" for f in r["flags"]) or bool(x["flag"])
        for r, x in zip(rows, lines, strict=True)
    )
    en, tg = SyllableCounter("en"), SyllableCounter(lang)
    est, est_p = [], []
    for r in rows:
        s_syl, t_syl = en.count(r["source"]), tg.count(r["fitted"])
        s_time = s_syl / SPEECH_RATES["en"]
        est.append((t_syl / SPEECH_RATES[lang]) / s_time if s_time > 0 else None)
        s_p = speaking_seconds(r["source"], s_syl, "en")
        est_p.append(speaking_seconds(r["fitted"], t_syl, lang) / s_p if s_p > 0 else None)
    second = [x.get("second") for x in lines]
    out: dict[str, Any] = {
        "lines": n,
        "over_budget_pct": round(100 * over / n, 1),
        "timing_flag_pct": round(100 * timing / n, 1),
        "espeak_within_pct": round(_within([x["ratio"] for x in lines], 0.15), 1),
        "espeak_long_short": [
            sum(x["flag"] == "too-long-to-speak" for x in lines),
            sum(x["flag"] == "too-short-to-speak" for x in lines),
        ],
        "est_within10_pct": round(_within(est, 0.10), 1),
        "est_pauses_within10_pct": round(_within(est_p, 0.10), 1),
        "quality_flag_pct": round(
            100 * sum(any(f["name"] in QUALITY for f in r["flags"]) for r in rows) / n, 1
        ),
        # lines no one can say: a phrase, a mark or the line left open, a repeat
        # (`fitsub.quality.sentence_end.degenerate`, as dubbing's fitting step judges them)
        "degenerate": [
            r["fitted"]
            for r in rows
            if degenerate(r["source"], r["fitted"].replace("\n", " "), lang, speech=True)
        ],
        "mean_abs_log_espeak": round(
            sum(abs(math.log(x["ratio"])) for x in lines if x["ratio"]) / n, 3
        ),
    }
    if all(s is not None for s in second):
        out["festival_within_pct"] = round(_within([s["ratio"] for s in second], 0.15), 1)
        out["festival_long_short"] = [
            sum(s["flag"] == "too-long-to-speak" for s in second),
            sum(s["flag"] == "too-short-to-speak" for s in second),
        ]
        out["festival_unmeasured"] = sum(s["ratio"] is None for s in second)
    if ref is not None:
        refs = ref.read_text(encoding="utf-8").splitlines()
        assert len(refs) == n, (len(refs), n)
        out["bleu"] = round(sacrebleu.corpus_bleu([r["fitted"] for r in rows], [refs]).score, 2)
        free = [r["unconstrained"] or r["fitted"] for r in rows]
        out["bleu_unconstrained"] = round(sacrebleu.corpus_bleu(free, [refs]).score, 2)
    del source
    return out


def paired(ref: Path, reports: list[Path]) -> dict[str, Any]:
    """Paired bootstrap (sacrebleu `PairedTest`, 1,000 samples) of each run's fitted lines against
    the first's (the baseline), and of the unconstrained lines (the first report's) against it."""
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest

    refs = ref.read_text(encoding="utf-8").splitlines()
    segs = [
        [s for s in json.loads(r.read_text(encoding="utf-8"))["segments"] if s["translated"]]
        for r in reports
    ]
    named = [
        (r.stem.split(".")[1], [s["fitted"] for s in g]) for r, g in zip(reports, segs, strict=True)
    ]
    named.append(("unconstrained", [s["unconstrained"] or s["fitted"] for s in segs[0]]))
    test = PairedTest(named, {"BLEU": BLEU()}, [refs], test_type="bs", n_samples=1000)
    _, sigs = test()
    out: dict[str, Any] = {"baseline": named[0][0]}
    for (name, _), res in zip(named[1:], sigs["BLEU"][1:], strict=True):
        out[name] = {"bleu": round(res.score, 2), "p": res.p_value, "ci": round(float(res.ci), 2)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("lines")
    a.add_argument("data", type=Path)
    a.add_argument("--lang", default="it")
    a.add_argument("--first", type=int, default=561)
    a.add_argument("--last", type=int, default=760)
    a.add_argument("--out", type=Path, default=Path("build/win60"))
    a.add_argument(
        "--extra", default=None, help="A-B: lines that fill up where the first half is shorter"
    )
    b = sub.add_parser("translate")
    b.add_argument("--shape", choices=("band", "narrow"), default="band")
    b.add_argument("--by", choices=("estimate", "speech"), default="speech")
    b.add_argument("rest", nargs=argparse.REMAINDER)
    c = sub.add_parser("summary")
    c.add_argument("--source", type=Path, required=True)
    c.add_argument("--report", type=Path, required=True)
    c.add_argument("--check", type=Path, required=True)
    c.add_argument("--ref", type=Path, default=None)
    c.add_argument("--lang", default="it")
    c.add_argument("--name", default="")
    d = sub.add_parser("paired")
    d.add_argument("--ref", type=Path, required=True)
    d.add_argument("reports", type=Path, nargs="+", help="the baseline's report first")
    args = ap.parse_args()
    if args.cmd == "lines":
        extra = None
        if args.extra:
            a_, b_ = args.extra.split("-")
            extra = (int(a_), int(b_))
        write_lines(args.data, args.lang, args.first, args.last, args.out, extra)
    elif args.cmd == "translate":
        rest = args.rest[1:] if args.rest[:1] == ["--"] else args.rest
        translate(args.shape, args.by, rest)
    elif args.cmd == "paired":
        print(json.dumps(paired(args.ref, args.reports)))
    else:
        row = {"name": args.name, "lang": args.lang}
        row |= summary(args.source, args.report, args.check, args.ref, args.lang)
        print(json.dumps(row, ensure_ascii=False))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
