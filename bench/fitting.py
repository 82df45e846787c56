"""Does fitting ever make a good line worse? (issue 27: slot and isometric modes measured).

For each subtitle file and each mode this runs `fitsub translate` from a source tree (so the
current release and a branch are measured the same way, each with its own PYTHONPATH), reads
its JSON report and scores it:

* `changed_fitting`: of the sentences (sentence groups) whose unconstrained translation fitted
  the budget (every cue's share of it within that cue's budget), those whose fitted output
  differs from it; `changed_good`: the same over the sentences whose unconstrained translation
  also fits the cues' lines (42 × 2) and carries no quality flag, the issue's "fits in whole
  words and carries no flag" (target 0; judged with this checkout's `fitsub.quality.flags` and
  `fitsub.reflow` for every tree);
* `retranslated`: the share of segments the model was asked again under a length constraint
  (the current release asks for every segment; report field `refitted`);
* BLEU / chrF (sacrebleu) of the fitted and of the unconstrained output against a human
  reference;
* `fits`: the share of segments whose fitted output is within its budget.

With `--words` (issue 43: a line a subtitler can trust) each run also gets, judged with this
checkout's word rules (the tree's model lexicon beside `fitsub.quality.dictionary`'s lists):

* `changed_real`: sentences whose unconstrained translation fits its slot, holds no word
  outside the lexicon, the word list and the source, no English word and no flag but
  `low-quality`, and whose fitted output differs from it (target 0);
* `english_lines` / `english_unflagged`: cues whose fitted output holds English
  (`english_left`), and of them those without `untranslated`; `english_words` lists them;
* `nonword_lines`: cues whose fitted output holds a word no list knows (`unknown_words`);
* `mid_phrase` / `mid_phrase_unflagged`: sentences whose fitted output ends on a dangling
  word (`dangling_end`), and of them those without `cut-sentence`;
* `names`: each recurring source name (`fitsub.pipeline.names`) and its fitted renderings;
* `ref_words` / `ref_unknown`: words of the human reference and those that neither the
  lexicon nor the word list (nor the cue's source) knows: false `unknown-word`.

Modes: `slot` runs `--profile netflix-LANG` alone (the budget that counts is the cue's slot:
min(layout, speed), read from the report's limits); `iso` adds `--ratio 1.0` (the budget is the
report's own). The current release has no modes: its `--profile` run is measured against both.

The MuST-C file is built at run time from the first N lines of a dev set (never committed):
each sentence is cut at word boundaries into cues of at most 80 characters, each on screen
len/14 s (clamped to 1-7 s), 200 ms between the cues of a sentence, 600 ms between sentences.

    python bench/fitting.py --tree /tmp/base --name release --out /tmp/fit
    python bench/fitting.py --tree . --name branch --out /tmp/fit --table
    python bench/fitting.py --tree . --name branch --out /tmp/fit --files film,bees --modes slot
    python bench/fitting.py --tree . --name final --out /tmp/fit --files film,bees --modes slot \
        --lang de --words

Uses one thread (`--threads 1`); a run of 300 MuST-C lines takes a few minutes on a shared core.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

DATA = Path("/work/shared/data")
CPS_SOURCE = 14.0  # English speech shown at about 14 characters a second
MAX_CUE = 80


def _ms(t: int) -> str:
    h, rest = divmod(t, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return f"{h:02d}:{m:02d}:{s:02d},{ms:03d}"


def chunks(sentence: str, limit: int = MAX_CUE) -> list[str]:
    """`sentence` cut at word boundaries into the fewest near-equal parts of <= limit chars."""
    words = sentence.split()
    n = max(1, -(-len(sentence) // limit))
    while True:
        target = len(sentence) / n
        parts: list[list[str]] = [[]]
        for w in words:
            cur = " ".join(parts[-1])
            if parts[-1] and len(cur) + 1 + len(w) > target + 8 and len(parts) < n:
                parts.append([])
            parts[-1].append(w)
        texts = [" ".join(p) for p in parts if p]
        if all(len(t) <= limit for t in texts) or n > len(words):
            return texts
        n += 1


def make_srt(src: Path, ref: Path, lines: int, out: Path) -> tuple[Path, list[str], list[int]]:
    """An SRT of the first `lines` sentences, the references, and each cue's sentence."""
    sources = src.read_text(encoding="utf-8").splitlines()[:lines]
    refs = ref.read_text(encoding="utf-8").splitlines()[:lines]
    blocks: list[str] = []
    owner: list[int] = []
    t = 1000
    for k, sentence in enumerate(sources):
        for part in chunks(sentence.strip()):
            dur = int(1000 * min(7.0, max(1.0, len(part) / CPS_SOURCE)))
            blocks.append(f"{len(blocks) + 1}\n{_ms(t)} --> {_ms(t + dur)}\n{part}\n")
            owner.append(k)
            t += dur + 200
        t += 400
    out.write_text("\n".join(blocks), encoding="utf-8")
    return out, refs, owner


def srt_texts(path: Path) -> list[str]:
    """The text of each cue of a (well-formed) SRT file, lines joined by spaces."""
    blocks = path.read_text(encoding="utf-8-sig").replace("\r\n", "\n").strip().split("\n\n")
    return [" ".join(b.split("\n")[2:]) for b in blocks]


def run_tree(
    tree: Path, srt: Path, lang: str, iso: bool, out: Path, policy: str | None = None
) -> dict[str, Any]:
    """`fitsub translate` from `tree` on `srt` (`policy`: its --length-policy); its report."""
    report = out.with_suffix(".json")
    cmd = [
        sys.executable, "-m", "fitsub", "translate", str(srt), "--lang", lang,
        "--profile", f"netflix-{lang}", "--threads", "1", "-q", "-o", str(out),
        "--report", str(report), "--model", str(tree / "models" / f"en-{lang}"),
    ]  # fmt: skip
    if iso:
        cmd += ["--ratio", "1.0"]
    if policy is not None:
        cmd += ["--length-policy", policy]
    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1", "FITSUB_CONFIG": ""}
    subprocess.run(cmd, check=True, env=env, cwd=tree)
    data: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return data


def slot_of(budget: dict[str, Any]) -> int:
    """The cue's slot: the tighter of its layout and speed limits."""
    limits = [budget[k] for k in ("layout_limit", "speed_limit") if budget.get(k) is not None]
    return min(limits) if limits else int(budget["chars"])


def score(
    report: dict[str, Any], refs: list[str], owner: list[int] | None, slot: bool, lang: str
) -> dict[str, Any]:
    """The figures of one run (module docstring)."""
    import sacrebleu

    segs = [s for s in report["segments"] if s["translated"]]
    by_group: dict[int, list[dict[str, Any]]] = {}
    for s in segs:
        key = s["group"] if s["group"] >= 0 else -1 - s["index"]
        by_group.setdefault(key, []).append(s)
    from fitsub.quality.flags import segment_flags
    from fitsub.reflow import fits_layout, reflow

    fitting = changed = good = changed_good = 0
    for cues in by_group.values():
        ok = all(
            s["unconstrained_chars"] <= (slot_of(s["budget"]) if slot else s["budget"]["chars"])
            for s in cues
        )
        if ok:
            fitting += 1
            fitted = " ".join(" ".join(s["fitted"].split()) for s in cues)
            free = " ".join(" ".join(s["unconstrained"].split()) for s in cues)
            changed += fitted != free
            source = " ".join(s["source"] for s in cues)
            clean = not segment_flags(source, free, free, None, True, ())
            laid = all(
                fits_layout(reflow(s["unconstrained"], 42, 2, lang), 42, 2)
                for s in cues
                if "\n" not in s["unconstrained"]
            )
            if clean and laid:
                good += 1
                changed_good += fitted != free
    index = {s["index"]: s for s in segs}
    n_cues = len(report["segments"])

    def texts(field: str) -> list[str]:
        per_cue = [" ".join(index[i][field].split()) if i in index else "" for i in range(n_cues)]
        if owner is None:
            return per_cue
        joined = [""] * len(refs)
        for i, k in enumerate(owner):
            joined[k] = (joined[k] + " " + per_cue[i]).strip()
        return joined

    out: dict[str, Any] = {"segments": len(segs), "sentences": len(by_group)}
    for field in ("fitted", "unconstrained"):
        hyp = texts(field)
        out[f"bleu_{field}"] = round(sacrebleu.corpus_bleu(hyp, [refs]).score, 2)
        out[f"chrf_{field}"] = round(sacrebleu.corpus_chrf(hyp, [refs]).score, 2)
    out["unconstrained_fitting"] = fitting
    out["changed_fitting"] = changed
    out["changed_fitting_share"] = round(changed / fitting, 4) if fitting else 0.0
    out["fitting_good"] = good
    out["changed_good"] = changed_good
    out["changed_good_share"] = round(changed_good / good, 4) if good else 0.0
    out["retranslated"] = round(sum(s.get("refitted", True) for s in segs) / len(segs), 4)
    out["fits"] = round(
        sum(
            s["fitted_chars"] <= (slot_of(s["budget"]) if slot else s["budget"]["chars"])
            for s in segs
        )
        / len(segs),
        4,
    )
    out["flagged"] = sum(1 for s in segs if s["flags"])
    return out


def word_counts(
    report: dict[str, Any], refs: list[str], tree: Path, lang: str, slot: bool
) -> dict[str, Any]:
    """The issue-43 figures of one run (module docstring, `--words`)."""
    import re

    from fitsub.pipeline.names import recurring_names, renderings
    from fitsub.quality.dictionary import english_left, load_dictionary, with_dictionary
    from fitsub.quality.flags import segment_flags
    from fitsub.quality.lexicon import model_lexicon, unknown_words, words_of
    from fitsub.quality.sentence_end import dangling_end

    lexicon = model_lexicon(tree / "models" / f"en-{lang}")
    dictionary = load_dictionary(lang)
    assert lexicon is not None and dictionary is not None, f"no lexicon or word list for {lang}"
    lexicon = with_dictionary(lexicon, lang)
    segs = [s for s in report["segments"] if s["translated"]]
    out: dict[str, Any] = {}
    left = [(s, english_left(s["source"], s["fitted"], dictionary)) for s in segs]
    english = [(s, words) for s, words in left if words]

    def flagged(s: dict[str, Any], name: str) -> bool:
        return any(f["name"] == name for f in s["flags"])

    out["english_lines"] = len(english)
    out["english_unflagged"] = sum(not flagged(s, "untranslated") for s, _ in english)
    out["english_words"] = [" ".join(w) for _, w in english]
    nonword = [s for s in segs if unknown_words(s["fitted"], [s["source"]], lexicon)]
    out["nonword_lines"] = len(nonword)
    out["nonword_unflagged"] = sum(not flagged(s, "unknown-word") for s in nonword)
    by_group: dict[int, list[dict[str, Any]]] = {}
    for s in segs:
        by_group.setdefault(s["group"] if s["group"] >= 0 else -1 - s["index"], []).append(s)
    changed = mid = mid_unflagged = 0
    for cues in by_group.values():
        source = " ".join(s["source"] for s in cues)
        free = " ".join(" ".join(s["unconstrained"].split()) for s in cues)
        fitted = " ".join(" ".join(s["fitted"].split()) for s in cues)
        if dangling_end(source, fitted, lang):
            mid += 1
            mid_unflagged += not any(flagged(s, "cut-sentence") for s in cues)
        fits = all(
            s["unconstrained_chars"] <= (slot_of(s["budget"]) if slot else s["budget"]["chars"])
            for s in cues
        )
        flags = segment_flags(source, free, free, None, True, (), tgt_lang=lang)
        if (
            fits
            and not unknown_words(free, [source], lexicon)
            and not english_left(source, free, dictionary)
            and all(f.name == "low-quality" for f in flags)
        ):
            changed += fitted != free
    out["changed_real"] = changed
    out["mid_phrase"] = mid
    out["mid_phrase_unflagged"] = mid_unflagged
    recurring = recurring_names([s["source"] for s in report["segments"]])
    out["names"] = {
        n: sorted({r for s in segs for r in renderings(n, s["fitted"])}) for n in recurring
    }
    markup = re.compile(r"<[^>]+>|\{[^}]*\}")
    sources = [s["source"] for s in report["segments"]]
    ref_words = ref_unknown = 0
    unknown: list[str] = []
    for src, ref in zip(sources, refs, strict=True):
        clean = markup.sub("", ref)
        ref_words += len(words_of(clean))
        found = unknown_words(clean, [src], lexicon)
        ref_unknown += len(found)
        unknown += found
    out["ref_words"] = ref_words
    out["ref_unknown"] = ref_unknown
    out["ref_unknown_words"] = unknown
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", type=Path, required=True, help="source tree to run")
    parser.add_argument("--name", required=True, help="name of this run (release, branch)")
    parser.add_argument("--out", type=Path, required=True, help="work folder (not committed)")
    parser.add_argument("--lang", default="it")
    parser.add_argument("--lines", type=int, default=300, help="MuST-C lines")
    parser.add_argument(
        "--files", default="film,mustc", help="samples with a reference (film, bees) and/or mustc"
    )
    parser.add_argument("--modes", default="slot,iso")
    parser.add_argument("--policy", default=None, help="--length-policy (default: the tree's)")
    parser.add_argument("--table", action="store_true", help="print every run in --out")
    parser.add_argument(
        "--words", action="store_true", help="add issue 43's counts (module docstring)"
    )
    parser.add_argument(
        "--rescore", action="store_true", help="score the reports already in --out again"
    )
    parser.add_argument(
        "--one-run",
        action="store_true",
        help="a tree without modes (the release): one --profile run scored in every mode",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    here = Path(__file__).resolve().parent.parent
    sys.path.insert(
        0, str(here)
    )  # scoring uses this checkout's fitsub.quality.flags and fitsub.reflow
    results_path = args.out / "results.json"
    results: dict[str, Any] = json.loads(results_path.read_text()) if results_path.exists() else {}
    tree = args.tree.resolve()
    for name in args.files.split(","):
        if name != "mustc":  # a sample with its reference: samples/NAME.srt, NAME.LANG-ref.srt
            srt = here / "samples" / f"{name}.srt"
            refs = srt_texts(here / "samples" / f"{name}.{args.lang}-ref.srt")
            owner = None
        else:
            dev = DATA / f"en-{args.lang}" / "dev" / "mustc-tst-common-a"
            srt, refs, owner_list = make_srt(
                dev.with_suffix(".en"),
                dev.with_suffix(f".{args.lang}"),
                args.lines,
                args.out / f"mustc.{args.lang}.srt",
            )
            owner = owner_list
        report: dict[str, Any] | None = None
        for mode in args.modes.split(","):
            out = args.out / f"{args.name}.{name}.{args.lang}.{mode}.srt"
            if report is None or not args.one_run:
                iso = mode == "iso" and not args.one_run
                if args.rescore:
                    report = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
                else:
                    report = run_tree(tree, srt, args.lang, iso, out, args.policy)
            key = f"{args.name}/{name}/{args.lang}/{mode}"
            results[key] = score(report, refs, owner, mode == "slot", args.lang)
            if args.words and owner is None:
                results[key] |= word_counts(report, refs, tree, args.lang, mode == "slot")
            print(key, json.dumps(results[key]), flush=True)
            results_path.write_text(json.dumps(results, indent=2) + "\n")
    if args.table:
        for key, r in sorted(results.items()):
            print(key, json.dumps(r))


if __name__ == "__main__":
    main()
