"""Decoding-time terms from the Wiktionary dictionary: a glossary for the content words a
translation left untranslated (issue 54, item 3).

Input: the `fitsub translate --report` JSON of a first, plain run over a file (its `source`
and `unconstrained` text per segment), the dictionary TSV of `build.py`, and the model's word
links (`models/en-LL/links.txt.gz`, read with `fitsub.quality.links.read_links`). Output: a
glossary file for `fitsub translate --glossary` (`source<TAB>target`), and beside it a JSON
of every candidate word and why it was or was not taken.

The choice itself lives in fitsub, where `fitsub translate --terms dictionary` uses it:
`fitsub.quality.dictionary_terms` (which words are candidates, when one is untranslated, which
translation is forced; its docstring has every rule) reading the dictionary with
`fitsub.quality.bilingual`. This script only reads a report and writes the glossary.

    .venv/bin/python experiments/dialogue/dictionary/terms_from_dictionary.py \\
        --report build/dictexp/it/base/terms.it.json --lang it \\
        --dictionary build/dictionary/en-it.tsv --links models/en-it/links.txt.gz \\
        --out build/dictexp/it/terms.glossary.tsv
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fitsub.quality.bilingual import read_bilingual
from fitsub.quality.dictionary_terms import choose_terms
from fitsub.quality.links import read_links


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--report", type=Path, required=True, help="fitsub translate --report JSON")
    p.add_argument("--lang", required=True, choices=("it", "de", "fr", "es"))
    p.add_argument("--dictionary", type=Path, required=True, help="en-LL.tsv[.gz] of build.py")
    p.add_argument("--links", type=Path, required=True, help="the model's links.txt.gz")
    p.add_argument(
        "--dict-only",
        action="store_true",
        help="the links give only the function words, not evidence of a translation",
    )
    p.add_argument("--pos", default="n", help="parts of speech, comma-separated (default: n)")
    p.add_argument("--plural", action="store_true", help="plural targets by simple rules")
    p.add_argument("--out", type=Path, required=True, help="the glossary file to write")
    args = p.parse_args(argv)
    data = json.loads(args.report.read_text(encoding="utf-8"))
    if "files" in data:
        data = data["files"][0]
    segments = [(s.get("source") or "", s.get("unconstrained") or "") for s in data["segments"]]
    dic = read_bilingual(args.dictionary, args.lang)
    wl = read_links(args.links)
    links = None if args.dict_only else wl.links
    terms, words = choose_terms(
        segments, dic, links, wl.function, pos=set(args.pos.split(",")), plural=args.plural
    )
    entries = [(t.source, t.target) for t in terms]
    records = [{**vars(w), "forms": dict(w.forms)} for w in words]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    head = (
        f"# decoding-time terms from the Wiktionary dictionary ({args.dictionary.name}) for "
        f"{args.report.name}: {len(entries)} entries\n"
    )
    args.out.write_text(head + "".join(f"{s}\t{t}\n" for s, t in entries), encoding="utf-8")
    side = args.out.with_suffix(".json")
    side.write_text(json.dumps(records, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    taken = sum(r["taken"] for r in records)
    print(
        f"{args.report.name}: {len(records)} candidate words, {taken} untranslated -> "
        f"{len(entries)} glossary entries ({args.out}); "
        f"{sum(r['by_links'] > 0 for r in records)} found only through the word links",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
