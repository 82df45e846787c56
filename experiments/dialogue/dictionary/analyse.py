"""What the decoding-time terms did to the grammar around them: every glossary insertion of a
run classified (issue 54, item 3: "inflection and sense are the hard part — measure them").

Reads `build/dictexp/summary-VARIANT.json` (written by `run.py`: the segments a glossary term
touched, with the outputs after) and the glossary records (`*.glossary.json`: lemma, plural,
gender). For each insertion of a target term into an unconstrained output:

* **lost**: the target is not in the output (the model dropped the placeholder);
* **number**: the English word was plural and the target is the dictionary's singular lemma
  (with `--plural` runs: the rule-made plural), and the language's plural differs (it, es, fr:
  the lemma is not invariant by `pluralise`; de: always, but for a lemma marked plural);
* **agreement**: the word right before the target is a determiner (article, demonstrative,
  possessive, article+preposition) of the other gender or number (it, es, fr), or, in German,
  an article that no case of the target's gender and number allows ("der Biene" is a genitive
  or dative, allowed; "das Biene" is not);
* otherwise counted as well-formed at this level (a human reading may still find it wrong).

Prints a table per language and input, and the examples; `--json` writes the rows.

    .venv/bin/python experiments/dialogue/dictionary/analyse.py --variant n
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from fitsub.quality.word_forms import pluralise

HERE = Path(__file__).resolve().parent
BUILD = HERE.parents[2] / "build" / "dictexp"

# determiners that show gender and number (lower case), per language: sets of (gender, number)
DET: dict[str, dict[str, set[tuple[str, str]]]] = {
    "it": {
        **{
            w: {("m", "s")}
            for w in "il lo un uno del dello al allo nel nello sul sullo dal dallo "
            "questo quello mio tuo suo nostro vostro primo ogni".split()[:-1]
        },
        **{
            w: {("f", "s")}
            for w in "la una della alla nella sulla dalla questa quella mia tua "
            "sua nostra vostra prima".split()
        },
        **{
            w: {("m", "p")}
            for w in "i gli dei degli ai agli nei negli sui sugli dai dagli questi "
            "quei quegli miei tuoi suoi nostri vostri".split()
        },
        **{
            w: {("f", "p")}
            for w in "le delle alle nelle sulle dalle queste quelle mie tue sue "
            "nostre vostre".split()
        },
    },
    "es": {
        **{w: {("m", "s")} for w in "el un del al este ese aquel nuestro vuestro".split()},
        **{w: {("f", "s")} for w in "la una esta esa aquella nuestra vuestra".split()},
        **{w: {("m", "p")} for w in "los unos estos esos aquellos nuestros vuestros".split()},
        **{w: {("f", "p")} for w in "las unas estas esas aquellas nuestras vuestras".split()},
        **{w: {("m", "s"), ("f", "s")} for w in "mi tu su".split()},
        **{w: {("m", "p"), ("f", "p")} for w in "mis tus sus".split()},
    },
    "fr": {
        **{w: {("m", "s")} for w in "le un du au ce cet mon ton son".split()},
        **{w: {("f", "s")} for w in "la une cette ma ta sa".split()},
        **{
            w: {("m", "p"), ("f", "p")} for w in "les des aux ces mes tes ses nos vos leurs".split()
        },
        **{w: {("m", "s"), ("f", "s")} for w in "notre votre leur".split()},
    },
}
# German: article -> the (gender, number) it can go with in some case
DE_ART: dict[str, set[tuple[str, str]]] = {
    "der": {("m", "s"), ("f", "s"), ("m", "p"), ("f", "p"), ("n", "p")},
    "die": {("f", "s"), ("m", "p"), ("f", "p"), ("n", "p")},
    "das": {("n", "s")},
    "den": {("m", "s"), ("m", "p"), ("f", "p"), ("n", "p")},
    "dem": {("m", "s"), ("n", "s")},
    "des": {("m", "s"), ("n", "s")},
    "ein": {("m", "s"), ("n", "s")},
    "eine": {("f", "s")},
    "einen": {("m", "s")},
    "einem": {("m", "s"), ("n", "s")},
    "einer": {("f", "s")},
    "eines": {("m", "s"), ("n", "s")},
}


def gender_number(mark: str, plural: bool) -> tuple[str, str] | None:
    """The target's (gender, number) from the dictionary's mark ("f", "m-p"); None if unknown."""
    g = mark.split("-")[0] if mark else ""
    if g not in ("m", "f", "n"):
        return None
    return g, ("p" if plural or mark.endswith("-p") else "s")


def classify(lang: str, output: str, target: str, rec: dict[str, Any], plural_run: bool) -> str:
    """lost / number / agreement / ok for one insertion (module docstring)."""
    m = re.search(r"(?<!\w)" + re.escape(target) + r"(?!\w)", output)
    if m is None:
        return "lost"
    plural = bool(rec.get("plural"))
    lemma_plural = rec.get("gender", "").endswith("-p") or rec.get("gender") == "p"
    if plural and not plural_run and not lemma_plural:
        if lang == "de" or pluralise(target, rec.get("gender", ""), lang) != target:
            return "number"
    gn = gender_number(rec.get("gender", ""), plural and (plural_run or lang != "de"))
    before = re.findall(r"[^\W\d_]+", output[: m.start()].replace("'", " ").replace("’", " "))
    prev = before[-1].lower() if before else ""
    if gn is not None and prev:
        table = DE_ART if lang == "de" else DET.get(lang, {})
        if lang == "de" and plural and not plural_run:
            gn = (gn[0], "s")  # the singular lemma: judge the article against it
        allowed = table.get(prev)
        if allowed is not None and gn not in allowed:
            return "agreement"
    # Italian elision: "il alveare", "sul asino" before a vowel should be l', sull'
    elide = "il lo la del dello della al allo alla nel nello nella sul sullo sulla dal dallo dalla"
    if lang == "it" and prev in elide.split() and target[:1].lower() in "aeiouàèéìòù":
        if re.search(r"(?<!\w)" + prev + r" " + re.escape(target), output):
            return "agreement"
    return "ok"


def analyse(variant: str, langs: list[str]) -> dict[str, Any]:
    summary = json.loads((BUILD / f"summary-{variant}.json").read_text(encoding="utf-8"))
    plural_run = "plural" in variant
    out: dict[str, Any] = {}
    for lang in langs:
        if lang not in summary:
            continue
        res = summary[lang]
        per: dict[str, Any] = {}
        for name in ("terms", "bees", "os"):
            gpath = BUILD / lang / variant / f"{name}.glossary.json"
            if not gpath.exists():
                continue
            recs = json.loads(gpath.read_text(encoding="utf-8"))
            by_target: dict[tuple[str, str], dict[str, Any]] = {}
            for r in recs:
                if r.get("taken"):
                    for form in r["forms"]:
                        by_target[(form, r["word"])] = r
            by_form = {form: r for (form, _), r in by_target.items()}
            counts = {"insertions": 0, "lost": 0, "number": 0, "agreement": 0, "ok": 0}
            rows = []
            for h in res.get("hits", {}).get(name, []):
                for src_term, target in h["terms"]:
                    rec = by_form.get(src_term, {})
                    kind = classify(lang, h["unconstrained"], target, rec, plural_run)
                    counts["insertions"] += 1
                    counts[kind] += 1
                    rows.append(
                        {
                            "source": h["source"],
                            "term": src_term,
                            "target": target,
                            "kind": kind,
                            "output": h["unconstrained"],
                        }
                    )
            per[name] = {"counts": counts, "rows": rows}
        out[lang] = per
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--variant", default="n")
    p.add_argument("--lang", nargs="+", default=["it", "de", "fr", "es"])
    p.add_argument("--examples", type=int, default=4, help="examples per kind and input")
    p.add_argument("--json", type=Path, help="write every row here")
    args = p.parse_args(argv)
    result = analyse(args.variant, args.lang)
    print("| lang | input | insertions | lost | number | agreement | well-formed |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for lang, per in result.items():
        for name, r in per.items():
            c = r["counts"]
            print(
                f"| {lang} | {name} | {c['insertions']} | {c['lost']} | {c['number']} | "
                f"{c['agreement']} | {c['ok']} |"
            )
    for lang, per in result.items():
        for name, r in per.items():
            for kind in ("lost", "number", "agreement"):
                ex = [x for x in r["rows"] if x["kind"] == kind][: args.examples]
                for x in ex:
                    print(f"{lang} {name} {kind}: {x['term']} -> {x['target']}: {x['output']}")
    if args.json:
        args.json.write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
