"""Measure decoding-time terms from the Wiktionary dictionary (issue 54, item 3), per language.

For each language and each of three inputs, the 200-term sentences (`terms/terms.tsv`, a
`.txt` file as `term_check.py` writes it), `samples/bees.srt` and the first 200 lines of the
report half of `dev/opensubtitles` (the half `compare.py` reports on):

1. `base`: `fitsub translate` with the shipped default (`--model models/en-LL`, exactly the
   command of `term_check.py`: `--threads 1 --report ... -q`, the CLI's default beam and budget);
2. a glossary per input from the plain run's unconstrained output
   (`terms_from_dictionary.py`: untranslated content words, Wiktionary's first translation);
3. `VARIANT`: the same command with `--glossary`;
4. scores: the term list and the bees words (`term_check.py --terms-report/--bees-report`),
   BLEU and chrF (sacrebleu, 13a) of the 200 subtitle lines with a paired bootstrap, and every
   term that was right before and wrong after ("worse") or the reverse ("better").

Runs are cached: a report that exists is not made again. Writes `build/dictexp/LL/VARIANT/`
and `build/dictexp/summary-VARIANT.json`.

    OMP_NUM_THREADS=1 taskset -c 1 .venv/bin/python experiments/dialogue/dictionary/run.py \\
        --lang it de fr es [--variant n --pos n] [--no-links] [--plural]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
DIALOGUE = HERE.parent
DATA = ROOT.parent / "shared" / "data"
BUILD = ROOT / "build" / "dictexp"
PY = str(ROOT / ".venv" / "bin" / "python")
FITSUB = str(ROOT / ".venv" / "bin" / "fitsub")
N_SUBS = 200


def sh(cmd: list[str], log: Path | None = None) -> str:
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if log is not None:
        log.write_text(done.stdout + done.stderr, encoding="utf-8")
    if done.returncode != 0:
        sys.stderr.write(done.stderr[-3000:])
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return done.stdout + done.stderr


def inputs(lang: str) -> dict[str, Path]:
    """The three inputs of one language (written once under build/dictexp)."""
    BUILD.mkdir(parents=True, exist_ok=True)
    terms = BUILD / "terms.en.txt"
    if not terms.exists():
        rows = (DIALOGUE / "terms" / "terms.tsv").read_text(encoding="utf-8").splitlines()[1:]
        terms.write_text("".join(r.split("\t")[3] + "\n" for r in rows), encoding="utf-8")
    subs = BUILD / f"os.{lang}.en.txt"
    ref = BUILD / f"os.{lang}.ref"
    if not subs.exists() or not ref.exists():
        dev = DATA / f"en-{lang}" / "dev"
        src = (dev / "opensubtitles.en").read_text(encoding="utf-8").splitlines()
        tgt = (dev / f"opensubtitles.{lang}").read_text(encoding="utf-8").splitlines()
        half = (len(src) + 1) // 2  # as compare.py: select on the first half, report on the second
        subs.write_text("\n".join(src[half : half + N_SUBS]) + "\n", encoding="utf-8")
        ref.write_text("\n".join(tgt[half : half + N_SUBS]) + "\n", encoding="utf-8")
    return {"terms": terms, "bees": ROOT / "samples" / "bees.srt", "os": subs}


def translate(lang: str, src: Path, out_dir: Path, name: str, glossary: Path | None) -> Path:
    """`fitsub translate` as term_check.py runs it; the report's path (cached)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    suffix = ".srt" if src.suffix == ".srt" else ".txt"
    report = out_dir / f"{name}.{lang}.json"
    if report.exists():
        return report
    cmd = [FITSUB, "translate", str(src), "--lang", lang, "--model", f"models/en-{lang}"]
    cmd += [
        "--threads",
        "1",
        "--report",
        str(report),
        "-o",
        str(out_dir / f"{name}.{lang}{suffix}"),
        "-q",
    ]
    if glossary is not None:
        cmd += ["--glossary", str(glossary)]
    start = time.perf_counter()
    log = sh(cmd)
    (out_dir / f"{name}.log").write_text(
        log + f"\n# {time.perf_counter() - start:.1f} s\n", encoding="utf-8"
    )
    return report


def segments(report: Path) -> list[dict[str, Any]]:
    data = json.loads(report.read_text(encoding="utf-8"))
    if "files" in data:
        data = data["files"][0]
    return data["segments"]


def texts(report: Path, key: str) -> list[str]:
    return [(s.get(key) or "") for s in segments(report) if (s.get("source") or "").strip()]


def bleu(report: Path, base: Path, ref: Path) -> dict[str, Any]:
    """BLEU and chrF of both outputs, and the paired bootstrap of `report` against `base`."""
    from sacrebleu.compat import corpus_bleu, corpus_chrf
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest

    refs = ref.read_text(encoding="utf-8").splitlines()
    out: dict[str, Any] = {}
    for key in ("unconstrained", "fitted"):
        hyp, hyp0 = texts(report, key), texts(base, key)
        if len(hyp) != len(refs) or len(hyp0) != len(refs):
            raise SystemExit(f"{report}: {len(hyp)} outputs for {len(refs)} references")
        named = [("base", hyp0), ("glossary", hyp)]
        test = PairedTest(named, {"BLEU": BLEU()}, [refs], test_type="bs", n_samples=1000)
        _, sigs = test()  # the baseline first
        g = sigs["BLEU"][1]
        out[key] = {
            "bleu_base": round(corpus_bleu(hyp0, [refs]).score, 2),
            "bleu": round(corpus_bleu(hyp, [refs]).score, 2),
            "chrf_base": round(corpus_chrf(hyp0, [refs]).score, 2),
            "chrf": round(corpus_chrf(hyp, [refs]).score, 2),
            "p": g.p_value,
            "changed": sum(a != b for a, b in zip(hyp, hyp0, strict=True)),
        }
    return out


def compare_rows(base: dict[str, Any], after: dict[str, Any], key: str) -> dict[str, Any]:
    """Rows right before and wrong after (worse) and the reverse (better), per output."""
    out: dict[str, Any] = {}
    for name in ("unconstrained", "fitted"):
        worse, better = [], []
        for b, a in zip(base["rows"], after["rows"], strict=True):
            rb, ra = b["right"][name], a["right"][name]
            item = {k: b[k] for k in key.split(",") if k in b}
            item.update(before=b[name], after=a[name])
            if rb and not ra:
                worse.append(item)
            elif ra and not rb:
                better.append(item)
        out[name] = {"worse": worse, "better": better}
    return out


def glossary_hits(gloss: Path, report: Path) -> list[dict[str, Any]]:
    """Per segment whose source holds a glossary term: the terms and both outputs."""
    from fitsub.glossary import load_glossary

    try:
        g = load_glossary(gloss)
    except Exception:  # an empty glossary (no entries): nothing applied
        return []
    out = []
    for s in segments(report):
        src = s.get("source") or ""
        sh_ = g.shield(src)
        if sh_.slots:
            out.append(
                {
                    "id": s.get("id"),
                    "source": src,
                    "terms": [[t.source, t.target] for _, t in sh_.slots],
                    "unconstrained": s.get("unconstrained") or "",
                    "fitted": s.get("fitted") or "",
                }
            )
    return out


def subtitle_lines(hits: list[dict[str, Any]], base: Path, ref: Path, lang: str) -> dict[str, Any]:
    """The subtitle lines a glossary term touched: sentence chrF before and after (unconstrained
    output), and whether the reference holds the inserted target (a form of it)."""
    from sacrebleu.metrics import CHRF

    from fitsub.quality.lexicon import words_of
    from fitsub.quality.word_forms import same_stem

    chrf = CHRF()
    refs = ref.read_text(encoding="utf-8").splitlines()
    by_src = {}
    for i, s in enumerate(s for s in segments(base) if (s.get("source") or "").strip()):
        by_src.setdefault(s["source"], (i, s.get("unconstrained") or ""))
    rows = []
    for h in hits:
        i, before = by_src[h["source"]]
        r = refs[i]
        rw = set(words_of(r))
        in_ref = [
            any(same_stem(max(words_of(t), key=len), w, lang) for w in rw) for _, t in h["terms"]
        ]
        b = chrf.sentence_score(before, [r]).score
        a = chrf.sentence_score(h["unconstrained"], [r]).score
        rows.append(
            {
                **h,
                "line": i,
                "reference": r,
                "before": before,
                "target_in_ref": in_ref,
                "chrf_before": round(b, 1),
                "chrf_after": round(a, 1),
            }
        )
    return {
        "lines": len(rows),
        "terms": sum(len(r["terms"]) for r in rows),
        "target_in_ref": sum(sum(r["target_in_ref"]) for r in rows),
        "chrf_down": sum(r["chrf_after"] < r["chrf_before"] for r in rows),
        "chrf_up": sum(r["chrf_after"] > r["chrf_before"] for r in rows),
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--lang", nargs="+", default=["it", "de", "fr", "es"])
    p.add_argument("--variant", default="n", help="name of the glossary setting (a folder)")
    p.add_argument("--pos", default="n")
    p.add_argument("--no-links", action="store_true", help="ignore the model's word links")
    p.add_argument("--plural", action="store_true", help="plural targets by simple rules")
    p.add_argument("--only", nargs="+", default=["terms", "bees", "os"], help="inputs to run")
    p.add_argument("--dictionary", type=Path, default=ROOT / "build" / "dictionary")
    args = p.parse_args(argv)
    summary_path = BUILD / f"summary-{args.variant}.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    for lang in args.lang:
        ins = inputs(lang)
        base_dir, var_dir = BUILD / lang / "base", BUILD / lang / args.variant
        res: dict[str, Any] = summary.get(lang, {})
        reports: dict[str, tuple[Path, Path]] = {}
        for name in args.only:
            base = translate(lang, ins[name], base_dir, name, None)
            gl = var_dir / f"{name}.glossary.tsv"
            if not gl.exists():
                dic = args.dictionary / f"en-{lang}.tsv"
                if not dic.exists():
                    dic = args.dictionary / f"en-{lang}.tsv.gz"
                cmd = [
                    PY,
                    str(HERE / "terms_from_dictionary.py"),
                    "--report",
                    str(base),
                    "--lang",
                    lang,
                    "--dictionary",
                    str(dic),
                    "--pos",
                    args.pos,
                    "--out",
                    str(gl),
                ]
                cmd += ["--links", str(ROOT / "models" / f"en-{lang}" / "links.txt.gz")]
                if args.no_links:
                    cmd.append("--dict-only")
                if args.plural:
                    cmd.append("--plural")
                sh(cmd)
            n_entries = sum(
                1 for ln in gl.read_text().splitlines() if ln and not ln.startswith("#")
            )
            after = translate(lang, ins[name], var_dir, name, gl) if n_entries else base
            reports[name] = (base, after)
            res.setdefault("glossary", {})[name] = n_entries
            res.setdefault("hits", {})[name] = glossary_hits(gl, after) if n_entries else []
        if "terms" in reports or "bees" in reports:
            scored = {}
            for tag, idx in (("base", 0), ("after", 1)):
                cmd = [
                    PY,
                    str(DIALOGUE / "term_check.py"),
                    "--lang",
                    lang,
                    "--out",
                    str(var_dir / f"check-{tag}.json"),
                ]
                if "terms" in reports:
                    cmd += ["--terms-report", str(reports["terms"][idx])]
                if "bees" in reports:
                    cmd += ["--bees", "--bees-report", str(reports["bees"][idx])]
                sh(cmd, var_dir / f"check-{tag}.log")
                scored[tag] = json.loads((var_dir / f"check-{tag}.json").read_text())
            for part, key in (("terms", "id,term,sentence"), ("bees", "cue,word,core")):
                if part not in scored["base"]:
                    continue
                b, a = scored["base"][part], scored["after"][part]
                fields = ("right", "core_right", "cue_words_right", "core_cue_words_right")
                res[part] = {
                    name: {f: [b[name][f], a[name][f]] for f in fields if f in b[name]}
                    for name in ("unconstrained", "fitted")
                }
                res[part]["total"] = {
                    f: b[f]
                    for f in ("total", "core_total", "cue_words", "core_cue_words")
                    if f in b
                }
                res[part]["changes"] = compare_rows(b, a, key)
        if "os" in reports:
            res["os"] = bleu(reports["os"][1], reports["os"][0], BUILD / f"os.{lang}.ref")
            res["os_lines"] = subtitle_lines(
                res["hits"].get("os", []), reports["os"][0], BUILD / f"os.{lang}.ref", lang
            )
        summary[lang] = res
        summary_path.write_text(json.dumps(summary, ensure_ascii=False, indent=1) + "\n")
        short = {k: v for k, v in res.items() if k in ("glossary", "os")}
        for part in ("terms", "bees"):
            if part in res:
                short[part] = {n: res[part][n] for n in ("unconstrained", "fitted")}
                short[part + "_worse"] = {
                    n: len(res[part]["changes"][n]["worse"]) for n in ("unconstrained", "fitted")
                }
        print(lang, json.dumps(short, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
