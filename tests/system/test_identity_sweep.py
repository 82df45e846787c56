"""`--model identity` returns every byte: each sample, fixture and fuzz file comes back as read.

Every file of samples/ and tests/data/ok/ and a fuzz corpus (tests/system/test_fuzz.py's
mutations of SRT, WebVTT, Markdown and ASS seeds, `CORPUS_FILES` files) goes through
`fitsub translate --model identity` (the real CLI entry point, in-process). A file that is
read (exit 0) must come back byte for byte; the one documented exception is a text file mixing
line endings (not ASS), written with its most common one: then the output must equal the input
with its line endings normalised; a whitespace-only line inside an SRT / WebVTT cue is dropped
(`Document.with_texts`); and a file starting with two byte-order marks is read with one. A file that is refused must be refused in one line (exit 2).

`python tests/system/test_identity_sweep.py [N]` prints the table of docs/results/fidelity.md.
"""

from __future__ import annotations

import codecs
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from hardening_helpers import cli  # noqa: E402
from test_fuzz import ASS_SEED, DEFAULT_SEED, EXT, MUTATIONS, make_case  # noqa: E402

from fitsub.charsets.detect import decode_bytes  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CORPUS_FILES = 60
FORMATS = {".srt", ".vtt", ".ass", ".ssa", ".md", ".txt", ".pptx"}


def fixtures() -> list[Path]:
    """Every sample and good fixture fitsub reads."""
    found = [*ROOT.joinpath("samples").iterdir(), *ROOT.joinpath("tests/data/ok").iterdir()]
    return sorted(p for p in found if p.suffix in FORMATS)


def corpus(n: int, seed: int = DEFAULT_SEED) -> list[tuple[str, str, bytes]]:
    """(name, extension, bytes): n fuzz files of test_fuzz's seeds and n of the ASS seed."""
    rng = random.Random(seed)
    cases = []
    for i in range(n):
        fmt, category, data = make_case(rng)
        cases.append((f"fuzz-{i}-{category}", EXT[fmt], data))
    for i in range(n):
        data = ASS_SEED.encode("utf-8")
        names = rng.sample(list(MUTATIONS), rng.choice([1, 1, 2]))
        for name in names:
            data = MUTATIONS[name](rng, data)
        cases.append((f"fuzz-ass-{i}-{names[0]}", ".ass", data))
    return cases


def outcome(data: bytes, ext: str, work: Path) -> str:
    """identical, normalised line endings, refused; AssertionError for any other difference."""
    for old in work.iterdir():
        old.unlink()
    src, out = work / f"in{ext}", work / f"out{ext}"
    src.write_bytes(data)
    res = cli(["translate", "--lang", "it", str(src), "--model", "identity", "-o", str(out), "-q"])
    assert src.read_bytes() == data, "input modified"
    assert res.code in (0, 2), f"exit {res.code}: {res.err[-300:]}"
    if res.code == 2:
        assert len(res.err.strip().splitlines()) == 1, res.err
        assert not out.exists(), "written on exit 2"
        return "refused (exit 2, one line)"
    got = out.read_bytes()
    if got == data:
        return "identical"
    for bom in (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE):
        if data.startswith(bom * 2):
            assert got.startswith(bom) and got.count(b"\n") == data.count(b"\n")
            return "different: a repeated byte-order mark read as one (documented)"
    assert ext not in (".ass", ".ssa", ".pptx"), f"{ext} changed under identity"
    read, back = decode_bytes(data), decode_bytes(got)  # (UTF-16 / UTF-32 too)
    same_form = (read.encoding, read.newline) == (back.encoding, back.newline)
    if ext in (".srt", ".vtt") and not read.mixed_newlines and same_form:
        if _drops_blank_lines(read.text, back.text):
            return "different: whitespace-only line inside a cue dropped (documented)"
    assert read.mixed_newlines, "changed, and not for mixed line endings"
    assert (back.encoding, back.newline, back.mixed_newlines) == (
        read.encoding,
        read.newline,
        False,
    )
    if ext in (".srt", ".vtt") and _drops_blank_lines(read.text, back.text):
        return "different: mixed line endings, and a whitespace-only line dropped (documented)"
    assert back.text == read.text, "changed beyond its line endings"
    return "different: mixed line endings written as the most common one (documented)"


def _drops_blank_lines(before: str, after: str) -> bool:
    """Whether `after` is `before` less some lines that hold only spaces or tabs."""
    rest = iter(after.split("\n"))
    want = next(rest, None)
    dropped = False
    for line in before.split("\n"):
        if line == want:
            want = next(rest, None)
        elif line.strip() or not line:
            return False
        else:
            dropped = True
    return dropped and want is None


def sweep(n: int, work: Path) -> Counter[tuple[str, str]]:
    """Outcome counts per (group, outcome)."""
    counts: Counter[tuple[str, str]] = Counter()
    for path in fixtures():
        counts[
            (f"samples+fixtures {path.suffix}", outcome(path.read_bytes(), path.suffix, work))
        ] += 1
    for _, ext, data in corpus(n):
        counts[(f"fuzz corpus {ext}", outcome(data, ext, work))] += 1
    return counts


def test_identity_returns_every_byte(tmp_path: Path) -> None:
    counts = sweep(CORPUS_FILES, tmp_path)
    files = [k for k in counts if k[0].startswith("samples")]
    assert {k[1] for k in files} == {"identical"}  # every sample and fixture, byte for byte
    assert sum(n for (g, _), n in counts.items() if g.startswith("samples")) == len(fixtures())
    assert counts[("fuzz corpus .ass", "identical")] > 0


def main() -> None:
    import tempfile

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with tempfile.TemporaryDirectory() as tmp:
        counts = sweep(n, Path(tmp))
    print("| files | outcome | count |\n|---|---|---:|")
    for (group, result), count in sorted(counts.items()):
        print(f"| {group} | {result} | {count} |")


if __name__ == "__main__":
    main()
