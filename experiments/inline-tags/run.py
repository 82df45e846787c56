"""Inline tags through translation: how many are kept, and how many land on the right words.

Builds a tagged SRT at run time from dev sentences (ud-pud and MuST-C dev, never committed): one
cue per sentence, a tag (``<i> <b> <u> <font color="#ffff00">``) around a random span of one to
three words, and on a third of the cues a second tag around another span. It translates the
file with `fitsub.pipeline.translate_document` (a generous isometric budget, cue by cue: the
question is the markup, not the fit) and reads back where each tag went.

A tag is *kept* when both its opening and closing tags are in the output cue, *placed* when
kept and not around the whole line, and *right* when the words it covers overlap the
reference span by at least half (Jaccard of word sets >= 0.5). The reference span of a source
span is the hull of the translation's words aligned to it by eflomal (Östling & Tiedemann
2016; forward and reverse alignments intersected, their union where the intersection has
none), trained on these sentences with their outputs plus `ALIGN_LINES` lines of the pair's
training data. It is an automatic judge of the words the model itself wrote, independent of
the projection (which never sees it).

    PYTHONPATH=$PWD OMP_NUM_THREADS=1 python experiments/inline-tags/run.py it 100
    # before this work: the same script against the base commit's package
    PYTHONPATH=/tmp/base python experiments/inline-tags/run.py it 100 --tag before
    # the same sentences as Markdown emphasis and links, or as PowerPoint runs
    PYTHONPATH=$PWD OMP_NUM_THREADS=1 python experiments/inline-tags/run.py it 100 --format md

``--format md`` writes one paragraph per sentence with ``*…*``, ``**…**``, ``_…_`` or a link
``[…](https://example.org/)`` around the spans (`markdown_io`); ``--format pptx`` one paragraph
per sentence in a deck, each span a run that is bold, italic, underlined or coloured
(`deck_io`); the output is read back the same way (the words of the run / between the markers).

Needs `pip install eflomal` (measurement only). Writes build/inline-tags/<lang>-<tag>.json.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from formats_io import FORMATS

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
TAGS = [("<i>", "</i>"), ("<b>", "</b>"), ("<u>", "</u>"), ('<font color="#ffff00">', "</font>")]
ALIGN_LINES = 20_000
WORD = re.compile(r"\w+")


def sentences(lang: str, n: int, rng: random.Random) -> list[str]:
    """n English dev sentences of 5 to 30 words, half ud-pud, half MuST-C dev (where present)."""
    out: list[str] = []
    names = ["ud-pud", "mustc-tst-common-a"]
    present = [name for name in names if (DATA / f"en-{lang}/dev/{name}.en").exists()]
    for name in present:
        lines = (DATA / f"en-{lang}/dev/{name}.en").read_text(encoding="utf-8").splitlines()
        lines = [line.strip() for line in lines if 5 <= len(line.split()) <= 30]
        out += rng.sample(lines, n // len(present))
    return out


def references(lang: str, n: int) -> list[str]:
    """The reference translations of `sentences(lang, n, random.Random(29))`, in order (the
    same draws: the same seed over lists of the same lengths)."""
    rng = random.Random(29)
    out: list[str] = []
    names = ["ud-pud", "mustc-tst-common-a"]
    present = [name for name in names if (DATA / f"en-{lang}/dev/{name}.en").exists()]
    for name in present:
        src = (DATA / f"en-{lang}/dev/{name}.en").read_text(encoding="utf-8").splitlines()
        ref = (DATA / f"en-{lang}/dev/{name}.{lang}").read_text(encoding="utf-8").splitlines()
        pairs = [(a.strip(), b.strip()) for a, b in zip(src, ref, strict=True)]
        pairs = [p for p in pairs if 5 <= len(p[0].split()) <= 30]
        out += [b for _, b in rng.sample(pairs, n // len(present))]
    return out


def tag_sentence(text: str, rng: random.Random) -> tuple[str, list[tuple[str, str, int, int]]]:
    """`text` with one or two tags around random word spans; each tag and its word indices."""
    words = text.split()
    first = rng.randrange(len(words))
    size = rng.randint(1, 3)
    spans = [(first, min(len(words), first + size))]
    if rng.random() < 1 / 3:  # a second tag on words after or before the first span
        after = [k for k in range(len(words)) if k >= spans[0][1] + 1]
        before = [k for k in range(len(words)) if k + 1 < spans[0][0]]
        if after or before:
            k = rng.choice(after or before)
            spans.append((k, min(k + rng.randint(1, 2), len(words) if after else spans[0][0] - 1)))
    if any(b - a >= len(words) for a, b in spans):
        spans = [(a, min(b, len(words) - 1)) if a == 0 else (a, b) for a, b in spans]
    chosen = rng.sample(TAGS, len(spans))
    out = list(words)
    tags = []
    for (a, b), (open_, close) in zip(spans, chosen, strict=True):
        if b <= a:
            continue
        out[a] = open_ + out[a]
        out[b - 1] = out[b - 1] + close
        tags.append((open_, close, a, b))
    return " ".join(out), tags


def srt(texts: list[str]) -> str:
    cues = []
    for i, text in enumerate(texts):
        start = i * 20
        cues.append(f"{i + 1}\n{_t(start)} --> {_t(start + 12)}\n{text}\n")
    return "\n".join(cues)


def _t(sec: int) -> str:
    return f"{sec // 3600:02d}:{sec // 60 % 60:02d}:{sec % 60:02d},000"


def visible(
    text: str, tags: list[tuple[str, str, int, int]]
) -> tuple[str, list[tuple[int, int] | None]]:
    """An output cue's text without the measured tags (lines joined) and each tag's character
    span in it (None: not kept)."""
    flat = " ".join(text.split())
    marks = sorted({m for o, c, _, _ in tags for m in (o, c)}, key=len, reverse=True)
    plain: list[str] = []
    seen: dict[str, list[int]] = {}
    k = 0
    while k < len(flat):
        hit = next((m for m in marks if flat.startswith(m, k)), None)
        if hit:
            seen.setdefault(hit, []).append(len(plain))
            k += len(hit)
            continue
        plain.append(flat[k])
        k += 1
    spans: list[tuple[int, int] | None] = []
    for open_, close, _, _ in tags:
        opened, closed = seen.get(open_, []), seen.get(close, [])
        if open_ == close:  # Markdown's ``*…*``: the first two of its markers
            closed = opened[1:]
        ok = bool(opened and closed) and opened[0] <= closed[0]
        spans.append((opened[0], closed[0]) if ok else None)
    return "".join(plain), spans


def words_in(text: str, span: tuple[int, int]) -> set[int]:
    """Indices of the words of `text` (\\w+) inside the character span."""
    return {
        k for k, m in enumerate(WORD.finditer(text)) if m.start() < span[1] and m.end() > span[0]
    }


def align(src: list[str], tgt: list[str], lang: str) -> list[set[tuple[int, int]]]:
    """eflomal links (source word, target word) of each pair, over \\w+ words lower-cased."""
    import eflomal

    extra_src: list[str] = []
    extra_tgt: list[str] = []
    for path in sorted((DATA / f"en-{lang}/train").glob("*.en")):
        other = path.with_suffix(f".{lang}")
        a = path.read_text(encoding="utf-8").splitlines()[: ALIGN_LINES // 4]
        b = other.read_text(encoding="utf-8").splitlines()[: ALIGN_LINES // 4]
        extra_src += a
        extra_tgt += b
        if len(extra_src) >= ALIGN_LINES:
            break

    def tok(line: str) -> str:
        return " ".join(w.lower() for w in WORD.findall(line)) or "_"

    with tempfile.TemporaryDirectory() as tmp:
        fwd, rev = Path(tmp) / "fwd", Path(tmp) / "rev"
        s_lines = [tok(x) for x in src + extra_src]
        t_lines = [tok(x) for x in tgt + extra_tgt]
        with (
            open(Path(tmp) / "s", "w", encoding="utf-8") as fs,
            open(Path(tmp) / "t", "w", encoding="utf-8") as ft,
        ):
            fs.write("\n".join(s_lines) + "\n")
            ft.write("\n".join(t_lines) + "\n")
        with (
            open(Path(tmp) / "s", encoding="utf-8") as fs,
            open(Path(tmp) / "t", encoding="utf-8") as ft,
        ):
            eflomal.Aligner().align(
                fs, ft, links_filename_fwd=str(fwd), links_filename_rev=str(rev)
            )
        f_lines = fwd.read_text(encoding="utf-8").splitlines()
        r_lines = rev.read_text(encoding="utf-8").splitlines()
    links = []
    for f, r in zip(f_lines[: len(src)], r_lines[: len(src)], strict=True):
        fl = {tuple(map(int, p.split("-"))) for p in f.split()}
        rl = {tuple(map(int, p.split("-"))) for p in r.split()}
        links.append((fl & rl, fl | rl))
    return links  # type: ignore[return-value]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("lang")
    ap.add_argument("n", type=int)
    ap.add_argument("--tag", default="after")
    ap.add_argument("--model", default=None)
    ap.add_argument("--format", default="srt", choices=["srt", "md", "pptx"])
    ap.add_argument("--rescore", action="store_true", help="judge the outputs of an earlier run")
    args = ap.parse_args()
    from fitsub.formats import read_document

    rng = random.Random(29)
    src = sentences(args.lang, args.n, rng)
    tagged = [tag_sentence(s, rng) for s in src]
    io = FORMATS[args.format]
    tagged = [io.retag(s, tags) for s, (_, tags) in zip(src, tagged, strict=True)]
    tmp = Path(tempfile.mkdtemp())
    doc = read_document(io.write(tagged, tmp, srt))
    out_dir = ROOT / "build" / "inline-tags"
    suffix = "" if args.format == "srt" else f"-{args.format}"
    path = out_dir / f"{args.lang}-{args.tag}{suffix}.json"
    if args.rescore:
        rows = iter(json.loads(path.read_text(encoding="utf-8"))["rows"])
        outs = [[next(rows)["output"] for _ in tags][0] for _, tags in tagged]
    else:
        outs = _translate(doc, io, args)
    score(args, src, tagged, outs, path)


def _translate(doc: Any, io: Any, args: argparse.Namespace) -> list[str]:
    from fitsub.budget import limits_for
    from fitsub.cli.models import open_model
    from fitsub.pipeline import TranslateOptions, translate_document

    model = Path(args.model) if args.model else ROOT / "models" / f"en-{args.lang}"
    if not model.exists():
        model = ROOT.parent / "main" / "models" / f"en-{args.lang}"
    backend = open_model(model, src_lang="en", lang=args.lang, device="cpu", beam=5, threads=1)
    opts = TranslateOptions(
        lang=args.lang, limits=limits_for(args.lang, cpl=200, lines=3), ratio=4.0,
        per_cue=True, compare=False, quality=False,
    )  # fmt: skip
    result = translate_document(doc, backend, opts)
    return list(io.read(result.document))


def score(
    args: argparse.Namespace,
    src: list[str],
    tagged: list[tuple[str, list[tuple[str, str, int, int]]]],
    outs: list[str],
    path: Path,
) -> None:
    """Judge each tag of the outputs (module docstring) and write the counts and rows."""
    plains = [visible(o, tags) for o, (_, tags) in zip(outs, tagged, strict=True)]
    links = align([" ".join(s.split()) for s in src], [p for p, _ in plains], args.lang)
    rows = []
    counts: dict[str, float] = {"tags": 0, "kept": 0, "placed": 0, "right": 0, "exact": 0}
    for s, (text, tags), out, (plain, spans), (inter, union) in zip(
        src, tagged, outs, plains, links, strict=True
    ):
        n_tgt = len(WORD.findall(plain))
        src_words = s.split()
        for (open_, _close, a, b), span in zip(tags, spans, strict=True):
            counts["tags"] += 1
            # source word indices (\w+ tokens) of the tagged whitespace words
            before = len(WORD.findall(" ".join(src_words[:a])))
            inside = len(WORD.findall(" ".join(src_words[a:b])))
            src_idx = set(range(before, before + inside))
            ref = {j for i, j in inter if i in src_idx} or {j for i, j in union if i in src_idx}
            hull = set(range(min(ref), max(ref) + 1)) if ref else set()
            got = words_in(plain, span) if span is not None else set()
            kept = span is not None
            whole = kept and len(got) >= n_tgt and inside < len(WORD.findall(s))
            jac = len(got & hull) / len(got | hull) if got | hull else 0.0
            counts["kept"] += kept
            counts["placed"] += kept and not whole
            counts["right"] += kept and not whole and jac >= 0.5
            counts["exact"] += kept and not whole and got == hull
            rows.append({"source": text, "output": out, "tag": open_, "jaccard": round(jac, 3),
                         "kept": kept, "whole_line": whole})  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    from fitsub.metrics.reference import chrf

    # the translation itself: the output's words (markup off) against the references
    counts["chrf"] = round(chrf([p for p, _ in plains], references(args.lang, args.n)).score, 1)
    path.write_text(json.dumps({"counts": counts, "rows": rows}, ensure_ascii=False, indent=1))
    total = counts["tags"]
    print(
        f"{args.lang} {args.tag} {args.format}: {len(src)} sentences, {total} tags", file=sys.stderr
    )
    for key in ("kept", "placed", "right", "exact"):
        print(f"  {key}: {counts[key]} ({100 * counts[key] / max(1, total):.1f} %)")
    print(f"  chrF of the words against the references: {counts['chrf']}")


if __name__ == "__main__":
    main()
