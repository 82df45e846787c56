"""Issue 54's term checks: are everyday domain words and the talk's subject words translated right?

1. The 200-term list (`terms/terms.tsv`: 8 categories x 25, each term in a short sentence of
   our own; `terms/accept.LL.tsv`: the accepted target forms). The sentences go to the fitsub
   CLI as one `.txt` file, one sentence a line (slides: one segment per line, never grouped;
   budget: 1.0 x the source's characters, the CLI default for slides), with `--threads 1`;
   its `--report` JSON gives the unconstrained and the fitted text of every sentence. A term is
   right when an accepted form occurs in the output (`fitsub/eval/terms.py`: whole word,
   case-insensitive, `*` a stem).
2. With `--bees`, the held-out check: `samples/bees.srt` translated with the CLI defaults (slot
   mode), every subject word of the talk listed in `terms/bees_words.tsv` per cue. A cue with
   the same word twice needs two matches for both rows. Nothing of this list may go into a
   glossary or a dictionary. `--check-refs` scores the reference translation
   `samples/bees.LL-ref.srt` against the same list (a check of the list; no model needed).

Prints the counts (overall, per category; bees: all rows and the core words bee / hive / honey
/ beekeeper) and the misses, and writes a JSON summary to `--out`:

    taskset -c 1 .venv/bin/python experiments/dialogue/term_check.py --model models/en-it \
        --lang it --bees --out build/terms/en-it.json [--glossary FILE]
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fitsub.eval.terms import count_matches, parse_forms

ROOT = Path(__file__).resolve().parents[2]
TERMS = Path(__file__).resolve().parent / "terms"
BEES_SRT = ROOT / "samples" / "bees.srt"
LANGS = ("it", "de", "fr", "es")
OUTPUTS = ("unconstrained", "fitted")
CORE = ("bee", "bees", "hive", "honey", "beekeeper", "beekeepers")


@dataclass(frozen=True)
class Term:
    """One of the 200 terms: its sentence and the accepted forms in the target language."""

    id: str
    category: str
    term: str
    sentence: str
    forms: tuple[str, ...]


@dataclass(frozen=True)
class BeeWord:
    """One occurrence of a subject word of the talk in one cue."""

    cue: str
    word: str
    forms: tuple[str, ...]


def read_tsv(path: Path) -> list[dict[str, str]]:
    """The rows of a TSV file with a header line (no quoting)."""
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def load_terms(lang: str) -> list[Term]:
    """The 200 terms with their accepted forms in `lang`."""
    accept = {r["id"]: parse_forms(r["forms"]) for r in read_tsv(TERMS / f"accept.{lang}.tsv")}
    terms = []
    for r in read_tsv(TERMS / "terms.tsv"):
        forms = accept.get(r["id"], ())
        if not forms:
            raise SystemExit(f"accept.{lang}.tsv: no accepted forms for {r['id']}")
        terms.append(Term(r["id"], r["category"], r["term"], r["sentence"], forms))
    return terms


def load_bees(lang: str) -> list[BeeWord]:
    """The subject words of samples/bees.srt with their accepted forms in `lang`."""
    return [
        BeeWord(r["cue"], r["word"], parse_forms(r[lang]))
        for r in read_tsv(TERMS / "bees_words.tsv")
    ]


def fitsub_command(explicit: str | None) -> list[str]:
    """How to run the fitsub CLI: --fitsub, else the project's venv, else the one on PATH."""
    if explicit:
        return [explicit]
    venv = ROOT / ".venv" / "bin" / "fitsub"
    if venv.exists():
        return [str(venv)]
    found = shutil.which("fitsub")
    return [found] if found else [sys.executable, "-m", "fitsub"]


def translate(
    fitsub: list[str],
    src: Path,
    out: Path,
    report: Path,
    args: argparse.Namespace,
) -> float:
    """Run `fitsub translate` on one file with --threads 1 and a --report; the seconds it took."""
    cmd = [*fitsub, "translate", str(src), "--lang", args.lang, "--model", str(args.model)]
    cmd += ["--threads", "1", "--report", str(report), "-o", str(out), "-q"]
    if args.glossary is not None:
        cmd += ["--glossary", str(args.glossary)]
    if args.beam is not None:
        cmd += ["--beam", str(args.beam)]
    print("$ " + " ".join(cmd), file=sys.stderr)
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"fitsub translate {src.name} failed (exit {done.returncode})")
    if done.stderr.strip():  # warnings (a glossary term lost…) are shown even with -q
        sys.stderr.write(done.stderr)
    return seconds


def segment_texts(segment: dict[str, Any]) -> dict[str, str]:
    """The unconstrained and the fitted text of one report segment ('' when missing)."""
    return {name: segment.get(name) or "" for name in OUTPUTS}


def report_segments(report: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The meta block and the segments of a `fitsub translate --report` JSON (one file)."""
    data = json.loads(report.read_text(encoding="utf-8"))
    if "files" in data:  # a batch report
        data = data["files"][0]
    return data.get("meta", {}), data["segments"]


def score_terms(terms: list[Term], segments: list[dict[str, Any]]) -> dict[str, Any]:
    """Per output: right of 200, per category; and every row with its texts."""
    translatable = [s for s in segments if s.get("source", "").strip()]
    if len(translatable) != len(terms):
        raise SystemExit(f"the report holds {len(translatable)} sentences, not {len(terms)}")
    rows: list[dict[str, Any]] = []
    for term, seg in zip(terms, translatable, strict=True):
        if seg["source"].strip() != term.sentence:
            raise SystemExit(
                f"{term.id}: the report's source {seg['source']!r} is not the sentence"
            )
        texts = segment_texts(seg)
        right = {name: count_matches(texts[name], term.forms) > 0 for name in OUTPUTS}
        rows.append(
            {
                "id": term.id,
                "category": term.category,
                "term": term.term,
                "sentence": term.sentence,
                **texts,
                "right": right,
            }
        )
    categories = list(dict.fromkeys(t.category for t in terms))
    result: dict[str, Any] = {"total": len(terms), "rows": rows}
    for name in OUTPUTS:
        per = Counter(r["category"] for r in rows if r["right"][name])
        result[name] = {
            "right": sum(per.values()),
            "per_category": {c: per[c] for c in categories},
        }
    result["category_sizes"] = dict(Counter(t.category for t in terms))
    return result


def score_bees(words: list[BeeWord], cue_texts: dict[str, dict[str, str]]) -> dict[str, Any]:
    """Per output: right of all occurrences and of the core words, two ways.

    Occurrences: the k-th row of a word in one cue needs k matches in that cue. Cue words (a
    word counted once per cue, as the issue's "17"): right when the cue holds one match; the
    references elide the second "hive" of cue 17 ("Un alveare calmo ronza. Uno arrabbiato…").
    """
    rows: list[dict[str, Any]] = []
    seen: Counter[tuple[str, str]] = Counter()
    for w in words:
        seen[(w.cue, w.word)] += 1
        nth = seen[(w.cue, w.word)]
        texts = cue_texts.get(w.cue, {name: "" for name in OUTPUTS})
        right = {name: count_matches(texts[name], w.forms) >= nth for name in OUTPUTS}
        row = {"cue": w.cue, "word": w.word, "nth": nth, "core": w.word in CORE}
        rows.append({**row, **texts, "right": right})
    firsts = [r for r in rows if r["nth"] == 1]
    result: dict[str, Any] = {
        "total": len(rows),
        "core_total": sum(1 for r in rows if r["core"]),
        "cue_words": len(firsts),
        "core_cue_words": sum(1 for r in firsts if r["core"]),
        "rows": rows,
    }
    for name in OUTPUTS:
        result[name] = {
            "right": sum(1 for r in rows if r["right"][name]),
            "core_right": sum(1 for r in rows if r["right"][name] and r["core"]),
            "cue_words_right": sum(1 for r in firsts if r["right"][name]),
            "core_cue_words_right": sum(1 for r in firsts if r["right"][name] and r["core"]),
        }
    return result


def srt_texts(path: Path) -> dict[str, str]:
    """Cue id -> its text lines joined by a space (a plain SRT reader for the references)."""
    texts = {}
    for block in path.read_text(encoding="utf-8-sig").replace("\r\n", "\n").split("\n\n"):
        lines = [ln for ln in block.strip().split("\n") if ln.strip()]
        if len(lines) >= 2 and "-->" in lines[1]:
            texts[lines[0].strip()] = " ".join(lines[2:])
    return texts


def pct(right: int, total: int) -> str:
    """`right/total (p %)`."""
    return f"{right}/{total} ({100 * right / total:.1f} %)" if total else "0/0"


def print_terms(result: dict[str, Any]) -> None:
    """The 200-term counts, per category, and the misses."""
    total = result["total"]
    print("200-term list: " + ", ".join(f"{n} {pct(result[n]['right'], total)}" for n in OUTPUTS))
    print(f"  {'category':<10} {'unconstrained':>14} {'fitted':>8}")
    for cat, size in result["category_sizes"].items():
        u = result["unconstrained"]["per_category"][cat]
        f = result["fitted"]["per_category"][cat]
        print(f"  {cat:<10} {f'{u}/{size}':>14} {f'{f}/{size}':>8}")
    misses = [r for r in result["rows"] if not all(r["right"].values())]
    print(f"misses ({len(misses)} terms wrong in at least one output; U unconstrained, F fitted):")
    for r in misses:
        where = "".join(
            k for k, n in (("U", "unconstrained"), ("F", "fitted")) if not r["right"][n]
        )
        print(f"  {r['id']} {r['term']:<14} {where:<2} {r['sentence']}")
        print(f"       U: {r['unconstrained']}")
        if r["fitted"] != r["unconstrained"]:
            print(f"       F: {r['fitted']}")


def print_bees(result: dict[str, Any], title: str, outputs: tuple[str, ...] = OUTPUTS) -> None:
    """The bees counts (occurrences and cue words; all and core) and the misses."""
    for name in outputs:
        r = result[name]
        print(
            f"{title}{'' if len(outputs) == 1 else ' ' + name}: occurrences {pct(r['right'], result['total'])}, "
            f"core {pct(r['core_right'], result['core_total'])}; "
            f"cue words {pct(r['cue_words_right'], result['cue_words'])}, "
            f"core {pct(r['core_cue_words_right'], result['core_cue_words'])}"
        )
    for r in result["rows"]:
        if not all(r["right"][n] for n in outputs):
            where = "".join(
                k
                for k, n in (("U", "unconstrained"), ("F", "fitted"))
                if n in outputs and not r["right"][n]
            )
            print(f"  cue {r['cue']:>2} {r['word']:<12} {where:<2} U: {r['unconstrained']}")
            if "fitted" in outputs and r["fitted"] != r["unconstrained"]:
                print(f"  {'':>19}    F: {r['fitted']}")


def run_terms(
    args: argparse.Namespace, fitsub: list[str], work: Path, meta: dict[str, Any]
) -> dict[str, Any]:
    """Translate the 200 sentences (or read --terms-report) and score them; `meta` gets notes."""
    terms = load_terms(args.lang)
    report = args.terms_report
    if report is None:
        src = work / "terms.en.txt"
        src.write_text("".join(t.sentence + "\n" for t in terms), encoding="utf-8")
        report = work / f"terms.{args.lang}.json"
        out = work / f"terms.{args.lang}.txt"
        meta["terms_seconds"] = round(translate(fitsub, src, out, report, args), 1)
    report_meta, segments = report_segments(report)
    meta["terms_budget"] = {"mode": report_meta.get("mode"), "ratio": report_meta.get("ratio")}
    meta["fitsub_model"] = report_meta.get("model")
    return score_terms(terms, segments)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, help="model directory given to fitsub --model")
    parser.add_argument("--lang", required=True, choices=LANGS)
    parser.add_argument("--glossary", type=Path, help="passed to fitsub --glossary")
    parser.add_argument("--beam", type=int, help="passed to fitsub --beam (default: fitsub's)")
    parser.add_argument("--bees", action="store_true", help="also the subject words of bees.srt")
    parser.add_argument(
        "--check-refs",
        action="store_true",
        help="also score samples/bees.LL-ref.srt against bees_words.tsv",
    )
    parser.add_argument("--terms-report", type=Path, help="score this report; do not translate")
    parser.add_argument("--bees-report", type=Path, help="score this bees report; do not translate")
    parser.add_argument("--work", type=Path, help="keep the inputs, outputs and reports here")
    parser.add_argument("--fitsub", help="the fitsub executable (default: .venv/bin/fitsub)")
    parser.add_argument("--out", type=Path, required=True, help="JSON summary")
    args = parser.parse_args(argv)
    # Without --model only what needs no translation: the reports given, the references.
    do_terms = args.model is not None or args.terms_report is not None
    if args.model is None and args.bees and args.bees_report is None:
        parser.error("--bees needs --model (or --bees-report)")
    if not (do_terms or args.bees or args.check_refs):
        parser.error("nothing to do: give --model (or a report, or --check-refs)")

    fitsub = fitsub_command(args.fitsub)
    summary: dict[str, Any] = {
        "meta": {
            "model": None if args.model is None else str(args.model),
            "lang": args.lang,
            "glossary": None if args.glossary is None else str(args.glossary),
            "beam": args.beam,
            "threads": 1,
        }
    }
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)

        if do_terms:
            summary["terms"] = run_terms(args, fitsub, work, summary["meta"])
            print_terms(summary["terms"])

        if args.bees:
            words = load_bees(args.lang)
            report = args.bees_report
            if report is None:
                report = work / f"bees.{args.lang}.json"
                summary["meta"]["bees_seconds"] = round(
                    translate(fitsub, BEES_SRT, work / f"bees.{args.lang}.srt", report, args), 1
                )
            meta, segments = report_segments(report)
            summary["meta"]["bees_budget"] = {"mode": meta.get("mode"), "ratio": meta.get("ratio")}
            cues = {str(s["id"]): segment_texts(s) for s in segments}
            summary["bees"] = score_bees(words, cues)
            print_bees(summary["bees"], "bees subject words")

        if args.check_refs:
            ref = srt_texts(ROOT / "samples" / f"bees.{args.lang}-ref.srt")
            cues = {cue: {name: text for name in OUTPUTS} for cue, text in ref.items()}
            result = score_bees(load_bees(args.lang), cues)
            result["reference"] = result.pop("unconstrained")
            del result["fitted"]
            for row in result["rows"]:
                row["reference"] = row.pop("unconstrained")
                row["right"] = row["right"]["unconstrained"]
                del row["fitted"]
            summary["bees_reference"] = result
            print_bees(
                score_bees(load_bees(args.lang), cues),
                f"bees.{args.lang}-ref.srt",
                ("unconstrained",),
            )

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
