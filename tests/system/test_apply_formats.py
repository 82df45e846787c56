"""`fitsub apply` on ASS, Markdown and PowerPoint: the edited segment changes, nothing else does.

The files are translated with the dry-run engine (`--model identity`), so every difference between
the file before and after `apply` is the edit's."""

from __future__ import annotations

import re
import shutil
import zipfile
from pathlib import Path

import pytest
from cli_helpers import run

ROOT = Path(__file__).resolve().parents[2]
MARKDOWN = "# Title here\n\nA first paragraph of text.\n\n- item one\n- item two\n"


def _translate(folder: Path, name: str) -> tuple[Path, Path]:
    """The identity translation of `folder/name` and its review TSV."""
    src, out, tsv = folder / name, folder / f"out.{name}", folder / f"{name}.tsv"
    assert run(["translate", str(src), "--model", "identity", "--lang", "it", "-o", str(out),
                "--review", str(tsv), "-q"]) == 0  # fmt: skip
    return out, tsv


def _edit(tsv: Path, segment: str, text: str) -> None:
    """Set the `fitted` column of the row whose id is `segment`."""
    rows = tsv.read_text(encoding="utf-8").split("\n")
    header = rows[0].split("\t")
    for i, row in enumerate(rows[1:], start=1):
        cells = row.split("\t")
        if cells[0] == segment:
            cells[header.index("fitted")] = text
            rows[i] = "\t".join(cells)
            break
    else:
        raise AssertionError(f"no row {segment}")
    tsv.write_text("\n".join(rows), encoding="utf-8")


def _changed_lines(before: bytes, after: bytes) -> list[tuple[bytes, bytes]]:
    old, new = before.split(b"\n"), after.split(b"\n")
    assert len(old) == len(new)
    return [(a, b) for a, b in zip(old, new, strict=True) if a != b]


def test_apply_on_ass_rewrites_only_the_edited_dialogue_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(ROOT / "tests/data/ok/tricky.ass", tmp_path / "tricky.ass")
    out, tsv = _translate(tmp_path, "tricky.ass")
    before = out.read_bytes()
    _edit(tsv, "3", "Prendi le chiavi.")
    capsys.readouterr()
    assert run(["apply", str(tsv), str(out)]) == 0
    assert "applied 1 edit(s)" in capsys.readouterr().err
    [(old, new)] = _changed_lines(before, out.read_bytes())
    fields = 9  # Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect
    assert new.split(b",", fields)[:fields] == old.split(b",", fields)[:fields]  # timing, style
    assert new.split(b",", fields)[fields].startswith(b"Prendi le chiavi.")
    assert b"{TN: pun on key}" in new  # the translator's note is kept


def test_apply_on_markdown_rewrites_only_the_edited_paragraph(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text(MARKDOWN, encoding="utf-8")
    out, tsv = _translate(tmp_path, "notes.md")
    _edit(tsv, "2", "Un primo paragrafo.")
    assert run(["apply", str(tsv), str(out), "-q"]) == 0
    assert out.read_text(encoding="utf-8") == MARKDOWN.replace(
        "A first paragraph of text.", "Un primo paragrafo."
    )


def test_apply_on_pptx_changes_only_the_edited_slide_and_keeps_its_other_paragraphs(
    tmp_path: Path,
) -> None:
    shutil.copy(ROOT / "samples/deck.pptx", tmp_path / "deck.pptx")
    out, tsv = _translate(tmp_path, "deck.pptx")
    with zipfile.ZipFile(out) as z:
        before = {n: z.read(n) for n in z.namelist()}
    _edit(tsv, "1:3:2", "Puoi viaggiare di più.")
    assert run(["apply", str(tsv), str(out), "-q"]) == 0
    with zipfile.ZipFile(out) as z:
        after = {n: z.read(n) for n in z.namelist()}
    assert sorted(after) == sorted(before)
    assert [n for n in before if before[n] != after[n]] == ["ppt/slides/slide1.xml"]
    slide = after["ppt/slides/slide1.xml"].decode("utf-8")
    paragraphs = [
        "".join(re.findall(r"<a:t>([^<]*)</a:t>", p)) for p in re.findall(r"<a:p>.*?</a:p>", slide)
    ]
    assert paragraphs == [
        "Why learn a language?",
        "It is fun.",
        "Puoi viaggiare di più.",  # the edit, spread over the paragraph's runs
        "It is good for your brain.",
    ]
