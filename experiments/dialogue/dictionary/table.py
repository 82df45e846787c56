"""The README's tables from `build/dictexp/summary-VARIANT.json` (run.py) and analyse.py.

.venv/bin/python experiments/dialogue/dictionary/table.py --variant n [--json results-n.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from analyse import BUILD, analyse  # noqa: E402


def arrow(pair: list[int]) -> str:
    return f"{pair[0]} → {pair[1]}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--variant", default="n")
    p.add_argument("--lang", nargs="+", default=["it", "de", "fr", "es"])
    p.add_argument("--json", type=Path, help="write the figures (no rows of text) here")
    args = p.parse_args(argv)
    summary = json.loads((BUILD / f"summary-{args.variant}.json").read_text(encoding="utf-8"))
    langs = [lg for lg in args.lang if lg in summary]
    kinds = analyse(args.variant, langs)
    out: dict[str, Any] = {}
    print(f"### {args.variant}\n")
    print(
        "| lang | glossary entries (terms / bees / subs) | 200 terms U | 200 terms F | "
        "bees core cue-words U | bees core F | bees all occurrences U | subs BLEU U (p) | "
        "subs BLEU F (p) | subs chrF U |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for lg in langs:
        r = summary[lg]
        t, b, o = r["terms"], r["bees"], r["os"]
        g = r["glossary"]
        print(
            f"| {lg} | {g['terms']} / {g['bees']} / {g['os']} "
            f"| {arrow(t['unconstrained']['right'])} | {arrow(t['fitted']['right'])} "
            f"| {arrow(b['unconstrained']['core_cue_words_right'])} of {b['total']['core_cue_words']} "
            f"| {arrow(b['fitted']['core_cue_words_right'])} "
            f"| {arrow(b['unconstrained']['right'])} of {b['total']['total']} "
            f"| {o['unconstrained']['bleu_base']} → {o['unconstrained']['bleu']} ({o['unconstrained']['p']:.2f}) "
            f"| {o['fitted']['bleu_base']} → {o['fitted']['bleu']} ({o['fitted']['p']:.2f}) "
            f"| {o['unconstrained']['chrf_base']} → {o['unconstrained']['chrf']} |"
        )
    print(
        "\nWorse and better (U unconstrained / F fitted); subtitle lines a term touched: "
        "sentence chrF down / up, inserted targets the reference holds (a form of)\n"
    )
    print(
        "| lang | terms right→wrong U / F | terms wrong→right U / F | bees right→wrong U / F "
        "| subs lines touched | chrF down / up | target in reference |"
    )
    print("|---|---|---|---|---|---|---|")
    for lg in langs:
        r = summary[lg]
        tc, bc, ol = r["terms"]["changes"], r["bees"]["changes"], r["os_lines"]
        print(
            f"| {lg} | {len(tc['unconstrained']['worse'])} / {len(tc['fitted']['worse'])} "
            f"| {len(tc['unconstrained']['better'])} / {len(tc['fitted']['better'])} "
            f"| {len(bc['unconstrained']['worse'])} / {len(bc['fitted']['worse'])} "
            f"| {ol['lines']} | {ol['chrf_down']} / {ol['chrf_up']} "
            f"| {ol['target_in_ref']} of {ol['terms']} |"
        )
    print("\nForm of every inserted term in the unconstrained output (analyse.py)\n")
    print(
        "| lang | input | insertions | lost | number (singular lemma for a plural) "
        "| agreement (determiner, elision) | well-formed at this level |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for lg in langs:
        for name, k in kinds[lg].items():
            c = k["counts"]
            print(
                f"| {lg} | {name} | {c['insertions']} | {c['lost']} | {c['number']} "
                f"| {c['agreement']} | {c['ok']} |"
            )
        r = summary[lg]
        out[lg] = {
            "glossary": r["glossary"],
            "terms": {n: r["terms"][n] for n in ("unconstrained", "fitted")},
            "bees": {n: r["bees"][n] for n in ("unconstrained", "fitted")},
            "bees_total": r["bees"]["total"],
            "subs": r["os"],
            "worse": {
                "terms": {
                    n: len(r["terms"]["changes"][n]["worse"]) for n in ("unconstrained", "fitted")
                },
                "bees": {
                    n: len(r["bees"]["changes"][n]["worse"]) for n in ("unconstrained", "fitted")
                },
                "subs_lines": {
                    k: r["os_lines"][k]
                    for k in ("lines", "terms", "target_in_ref", "chrf_down", "chrf_up")
                },
            },
            "forms": {name: k["counts"] for name, k in kinds[lg].items()},
        }
    if args.json:
        args.json.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
