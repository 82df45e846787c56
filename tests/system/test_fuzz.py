"""Fuzz: mutated SRT / WebVTT / ASS / slide files through the real CLI entry point, in-process.

Each file is a seed document with one to three seeded-random mutations (byte flips, truncation,
mixed line endings, BOMs, invalid UTF-8, huge numbers, odd ids, nested and broken tags, very
long lines, whitespace-only lines, empty files and valid empty WebVTT / ASS files, UTF-32 and
BOM-less UTF-16 / UTF-32, long ASS drawings, ...). `fitsub translate` runs on it with the toy
backend of tests/support/doubles.py (`hardening_helpers.toy_model`: the CLI's own code path, no model).
Every run must end with exit 0 or 2, never a traceback or exit 1, within `SECONDS_PER_FILE`:

- exit 0: the output reads back with every cue, id and timing of the input, the non-cue text
  (header, NOTE blocks, blank lines, slide lines that are not translated) byte for byte, and as
  many words as the input (budgets are made generous so the toy backend drops none);
- exit 2: one line on stderr, nothing written;
- always: the input is unchanged.

`make test` runs `DEFAULT_FILES` files; `tools/fuzz.sh N` runs N and prints the outcome per
mutation (`python tests/system/test_fuzz.py N [SEED]`).
"""

from __future__ import annotations

import codecs
import os
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from hardening_helpers import cli, toy_model  # noqa: E402

from fitsub.document import Document  # noqa: E402
from fitsub.errors import InputError  # noqa: E402
from fitsub.formats import read_document
from fitsub.markup import visible_text  # noqa: E402

DEFAULT_FILES = int(os.environ.get("FITSUB_FUZZ_FILES", "120"))
DEFAULT_SEED = int(os.environ.get("FITSUB_FUZZ_SEED", "18"))
SECONDS_PER_FILE = 10.0

SEEDS: dict[str, str] = {
    "srt": (
        "1\n00:00:01,000 --> 00:00:03,500\nHello, and welcome to the café ♪.\n\n"
        "2\n00:00:03,600 --> 00:00:06,000\n<i>We go home now.</i>\nYou and I.\n\n"
        "3\n00:00:06,100 --> 00:00:08,000 X1:100 X2:500 Y1:10 Y2:50\n- Is it?\n- Yes.\n\n"
        "4\n00:00:08,100 --> 00:00:09,000\n\n\n"
        "5\n00:00:09,100 --> 00:00:12,000\n{\\an8}This is <b>not</b> the end.\n"
    ),
    "vtt": (
        "WEBVTT - a talk\nKind: captions\n\nSTYLE\n::cue { color: yellow }\n\n"
        "NOTE written by hand\n\n"
        "intro\n00:00:01.000 --> 00:00:03.500 align:start position:10%\nHello, naïve “welcome”.\n\n"
        "00:00:03.600 --> 00:00:06.000 line:0 size:50%\n<v Ann>We go <i>home</i> now.</v>\n\n"
        "3\n01:00:06.100 --> 01:00:08.000\n<c.yellow>Is it?</c> &amp; yes.\n"
    ),
    "slides": (
        "---\ntitle: Talk\n---\n# Welcome to the talk\n\n- We go home now.\n- You and I.\n"
        "1. This is *not* the end\n\n```\ncode stays\n```\n| a | b |\n> A quote here.\n"
    ),
}
ASS_SEED = (  # fuzzed by tests/system/test_fuzz_ass_pptx.py (own seed sequence)
    "\ufeff[Script Info]\n; a comment\nScriptType: v4.00+\n\n[V4+ Styles]\n"
    "Format: Name, Fontname, Fontsize, PrimaryColour, BackColour, MarginL\n"
    "Style: Default,Arial,20,&H00FFFFFF,&H80000000,0010\n\n[Custom]\nkept: yes\n\n[Events]\n"
    "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"
    "; note\nDialogue: 0,0:00:01.00,0:00:03.50,Default,,0,0,0,,{\\an8}Hello, and welcome.\n"
    "Picture: 0,0:00:03.00,0:00:04.00,Default,,0,0,0,,logo.png\n"
    "Dialogue: 0,0:00:03.60,0:00:06.005,Default,,0010,0,0,,We go {TN: pun} home\\Nnow.\n"
    "Comment: 0,0:00:06.00,0:00:07.00,Default,,0,0,0,,kept as is\n"
    "Dialogue: 0,0:00:07.00,0:00:09.00,Default,,0,0,0,,{\\i1}Is it?{\\i0} Yes\\h!\n"
)
EXT = {"srt": ".srt", "vtt": ".vtt", "slides": ".md", "ass": ".ass"}

Mutation = Callable[[random.Random, bytes], bytes]


def _flip(rng: random.Random, data: bytes) -> bytes:
    if not data:
        return data
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        buf[rng.randrange(len(buf))] = rng.randrange(256)
    return bytes(buf)


def _truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def _line_endings(rng: random.Random, data: bytes) -> bytes:
    lines = data.split(b"\n")
    return b"".join(line + rng.choice([b"\n", b"\r\n", b"\r"]) for line in lines[:-1]) + lines[-1]


def _bom(rng: random.Random, data: bytes) -> bytes:
    kind = rng.choice(["utf-8", "utf-16-le", "utf-16-be", "double"])
    if kind == "utf-8":
        return codecs.BOM_UTF8 + data
    if kind == "double":
        return codecs.BOM_UTF8 + codecs.BOM_UTF8 + data
    text = data.decode("utf-8", "replace")
    bom = codecs.BOM_UTF16_LE if kind == "utf-16-le" else codecs.BOM_UTF16_BE
    return bom + text.encode(kind)


def _invalid_utf8(rng: random.Random, data: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    bad = rng.choice([b"\xff", b"\xc3", b"\xe2\x82", b"\x80", b"\xed\xa0\x80", b"\xf8"])
    return data[:at] + bad + data[at:]


def _at_digits(rng: random.Random, data: bytes, new: bytes) -> bytes:
    spots = [i for i, b in enumerate(data) if 48 <= b <= 57]
    if not spots:
        return data + new
    at = rng.choice(spots)
    return data[:at] + new + data[at + 1 :]


def _huge_number(rng: random.Random, data: bytes) -> bytes:
    return _at_digits(rng, data, b"9" * rng.choice([5, 20, 400, 5000]))


def _odd_id(rng: random.Random, data: bytes) -> bytes:
    new = rng.choice(["¹²", "①", "٣", "-1", "+7", "1_000", "[/x]", "C:\\[/x]", "[bold]", " 3 "])
    return _at_digits(rng, data, new.encode("utf-8"))


def _tags(rng: random.Random, data: bytes) -> bytes:
    tag = rng.choice(
        ["<i><b>", "</i>", "<i", "<c.a.b>", "</c></c>", "{\\an8}", "<v Bob", "&amp", "[/x]",
         "<00:00:01.000>", "<b><i><u>x</b></i>", "a<b", "<<>>", "&lt;i&gt;"]
    )  # fmt: skip
    at = rng.randrange(len(data) + 1)
    return data[:at] + tag.encode() + data[at:]


def _long_line(rng: random.Random, data: bytes) -> bytes:
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    filler = rng.choice([b" " * 50_000 + b"x", b"word " * 5_000, b"\t" * 20_000, b"a" * 30_000])
    lines[i] = lines[i] + filler
    return b"\n".join(lines)


def _empty(rng: random.Random, data: bytes) -> bytes:
    return rng.choice(
        [b"", b"\n", b"   \n\n", b"\xef\xbb\xbf", b"WEBVTT\n", b"WEBVTT\r\n\r\nNOTE later\r\n",
         b"[Script Info]\nTitle: x\n", b"[Script Info]\r\n\r\n[Events]\r\nFormat: Start, End, Text\r\n"]
    )  # fmt: skip


def _wide(rng: random.Random, data: bytes) -> bytes:
    """The file in UTF-32 (with its byte-order mark) or UTF-16 / UTF-32 without one (issue 44)."""
    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    codec = rng.choice(["utf-32-le", "utf-32-be", "utf-16-le", "utf-16-be", "utf-32-le-bare"])
    bom = {"utf-32-le": codecs.BOM_UTF32_LE, "utf-32-be": codecs.BOM_UTF32_BE}.get(codec, b"")
    return bom + text.encode(codec.removesuffix("-bare"))


def _drawing(rng: random.Random, data: bytes) -> bytes:
    """An ASS drawing event of 1,000 to 3,000 characters appended (issue 44: no length limit)."""
    points = " ".join(str(rng.randrange(1000)) for _ in range(rng.randint(250, 750)))
    return (
        data.rstrip(b"\n")
        + (
            f"\nDialogue: 0,0:00:09.00,0:00:10.00,Default,,0,0,0,,{{\\p1}}m 0 0 l {points}{{\\p0}}\n"
        ).encode()
    )


def _space_lines(rng: random.Random, data: bytes) -> bytes:
    lines = data.split(b"\n")
    for _ in range(rng.randint(1, 3)):
        lines.insert(rng.randrange(len(lines) + 1), rng.choice([b" ", b"   ", b"\t", b" \t "]))
    return b"\n".join(lines)


def _blank_lines(rng: random.Random, data: bytes) -> bytes:
    lines = data.split(b"\n")
    i = rng.randrange(len(lines) + 1)
    if rng.random() < 0.5:
        lines.insert(i, b"")
    elif lines:
        del lines[min(i, len(lines) - 1)]
    return b"\n".join(lines)


def _arrows(rng: random.Random, data: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + rng.choice([b"-->", b" --> ", b"00:00:01,000 --> 00:00:02,000"]) + data[at:]


def _controls(rng: random.Random, data: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    return (
        data[:at]
        + rng.choice([b"\x00", b"\x1a", b"\x0c", b"\x0b", b"\x7f", b"\x1b[31m"])
        + data[at:]
    )


def _legacy(rng: random.Random, data: bytes) -> bytes:
    text = data.decode("utf-8", "replace").replace("Hello", "Caf\u00e9 na\u00efve")
    return text.encode("cp1252", "replace")


MUTATIONS: dict[str, Mutation] = {
    "byte_flip": _flip,
    "truncate": _truncate,
    "line_endings": _line_endings,
    "bom": _bom,
    "invalid_utf8": _invalid_utf8,
    "huge_number": _huge_number,
    "odd_id": _odd_id,
    "tags": _tags,
    "long_line": _long_line,
    "empty": _empty,
    "space_lines": _space_lines,
    "blank_lines": _blank_lines,
    "arrows": _arrows,
    "controls": _controls,
    "legacy": _legacy,
    "wide": _wide,
    "drawing": _drawing,
}


def make_case(rng: random.Random) -> tuple[str, str, bytes]:
    """(format, category = first mutation, file bytes)."""
    fmt = rng.choice(list(SEEDS))
    data = SEEDS[fmt].encode("utf-8")
    names = rng.sample(list(MUTATIONS), rng.choice([1, 1, 2, 3]))
    for name in names:
        data = MUTATIONS[name](rng, data)
    return fmt, names[0], data


def _words(doc: Document) -> int:
    """Words with a letter or digit (a lone dash or note may join its neighbour: not a loss).

    Cues of zero duration are not counted: their reading-speed budget is 0 characters whatever
    the --cps (`fitsub.budget`, tests/test_budget.py), so fitsub writes its shortest translation
    and flags the cue (report: ``too_small``, ``too_short``, ``over-budget``): shortened to fit
    as designed, with every timing kept, not a loss of the reader or writer.
    """
    return sum(
        1
        for s in doc.segments
        if s.start_ms is None or s.end_ms != s.start_ms
        for w in visible_text(s.text, doc.format).split()
        if any(c.isalnum() for c in w)
    )


def check_case(fmt: str, data: bytes, work: Path) -> str:
    """Run one file; return its outcome ("ok", "rejected") or raise AssertionError."""
    for old in work.iterdir():
        old.unlink()
    src = work / f"in{EXT[fmt]}"
    src.write_bytes(data)
    out, report = work / f"out{EXT[fmt]}", work / "report.json"
    args = [
        "translate",
        "--lang",
        "it",
        str(src),
        "-o",
        str(out),
        "--report",
        str(report),
        "--ratio",
        "9",
    ]
    args += ["--cpl", "100000", "--lines", "1000", "--cps", "100000"]
    if len(data) > 20_000:
        args.append("-q")
    started = time.perf_counter()
    res = cli(args)
    took = time.perf_counter() - started
    assert src.read_bytes() == data, "input modified"
    assert took < SECONDS_PER_FILE, f"took {took:.1f} s"
    assert "Traceback" not in res.err, res.err
    assert res.code in (0, 2), f"exit {res.code}: {res.err.strip()[-300:]}"
    if res.code == 2:
        assert len(res.err.strip().splitlines()) == 1, res.err
        assert sorted(p.name for p in work.iterdir()) == [src.name], "written on exit 2"
        return "rejected"
    doc_in = read_document(src)
    try:
        doc_out = read_document(out)
    except InputError as err:
        raise AssertionError(f"output does not read back: {err}") from None
    assert [(s.id, s.start_ms, s.end_ms) for s in doc_out.segments] == [
        (s.id, s.start_ms, s.end_ms) for s in doc_in.segments
    ], "cue, id or timing changed"
    assert doc_out.gaps == doc_in.gaps, "text between cues changed"
    for a, b in zip(doc_in.segments, doc_out.segments, strict=True):
        if not a.translatable:
            assert a.text == b.text, f"untranslated segment changed at line {a.line}"
    # words may move between the cues of one sentence: counted over the whole file
    assert _words(doc_out) >= _words(doc_in), "words lost"
    return "ok"


def run(n: int, seed: int, verbose: bool = False) -> tuple[Counter[tuple[str, str]], list[str]]:
    """Fuzz `n` files; the outcome counts per (category, outcome) and the failures."""
    rng = random.Random(seed)
    counts: Counter[tuple[str, str]] = Counter()
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="fitsub-fuzz-") as tmp, toy_model(Path(tmp)):
        work = Path(tmp) / "work"
        work.mkdir()
        for i in range(n):
            fmt, category, data = make_case(rng)
            try:
                outcome = check_case(fmt, data, work)
            except AssertionError as err:
                outcome = "FAIL"
                failures.append(f"case {i} ({fmt}, {category}): {err}")
                keep = Path(tmp).parent / f"fitsub-fuzz-fail-{seed}-{i}{EXT[fmt]}"
                if verbose:
                    keep.write_bytes(data)
                    failures[-1] += f" [saved {keep}]"
            counts[(category, outcome)] += 1
            counts[(f"format:{fmt}", outcome)] += 1
    return counts, failures


def test_fuzz_cli_bounded() -> None:
    started = time.perf_counter()
    counts, failures = run(DEFAULT_FILES, DEFAULT_SEED)
    assert not failures, "\n".join(failures[:10])
    assert sum(counts.values()) == 2 * DEFAULT_FILES  # per mutation and per format
    assert time.perf_counter() - started < 60


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else DEFAULT_SEED
    started = time.perf_counter()
    counts, failures = run(n, seed, verbose=True)
    took = time.perf_counter() - started
    cats = sorted({c for c, _ in counts if not c.startswith("format:")})
    cats += sorted({c for c, _ in counts if c.startswith("format:")})
    print(f"{'mutation':14} {'files':>6} {'ok':>6} {'exit 2':>6} {'FAIL':>6}")
    for c in cats:
        row = [counts[(c, o)] for o in ("ok", "rejected", "FAIL")]
        print(f"{c:14} {sum(row):6} {row[0]:6} {row[1]:6} {row[2]:6}")
    total = [
        sum(counts[(c, o)] for c in cats if not c.startswith("format:"))
        for o in ("ok", "rejected", "FAIL")
    ]
    print(f"{'total':14} {sum(total):6} {total[0]:6} {total[1]:6} {total[2]:6}  ({took:.0f} s)")
    for f in failures[:50]:
        print(f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
