"""The review file (TSV / HTML), the flags in the pipeline and the report, and --strict / --review."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from doubles import ToyBackend
from review_helpers import page_data

from fitsub.budget import limits_for
from fitsub.cli import main, registry
from fitsub.cli.report import result_to_dict
from fitsub.errors import InputError
from fitsub.formats import parse_document
from fitsub.pipeline import TranslateOptions, translate_document
from fitsub.pipeline import summarize_results as summarize
from fitsub.review.page import review_page as review_html
from fitsub.review.tsv import COLUMNS, check_review_path, review_tsv, write_review

SRT = """1
00:00:01,000 --> 00:00:03,000
<script>alert("x")</script> & you

2
00:00:04,000 --> 00:00:06,500
Yes.

3
00:00:07,000 --> 00:00:08,000
Extraordinarily.
"""


def translated() -> tuple[object, list[object]]:
    doc = parse_document(SRT, "srt")
    opts = TranslateOptions(lang="it", limits=limits_for("it"), ratio=1.0, per_cue=True)
    result = translate_document(doc, ToyBackend(), opts)
    return result.document, list(result.segments)


def run(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def test_pipeline_flags_every_fitted_segment_and_the_summary_counts_them() -> None:
    _, segs = translated()
    flags = {s.index: [f.name for f in s.flags] for s in segs}  # type: ignore[attr-defined]
    assert flags[2] == ["over-budget"]  # "Extraordinarilyino." cannot fit 16 characters
    assert flags[1] == []
    summary = summarize(segs)  # type: ignore[arg-type]
    assert summary.flag_counts["over-budget"] == 1 and summary.flagged >= 1
    row = result_to_dict(segs[2])  # type: ignore[arg-type]
    assert row["flags"][0]["name"] == "over-budget"


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def test_html_review_embeds_escaped_data_and_counts_flags_as_the_summary() -> None:
    doc, segs = translated()
    page = review_html(doc, segs, title="<b>talk</b>")  # type: ignore[arg-type]
    assert "<b>talk" not in page and "&lt;b&gt;talk" in page
    assert "alert(" in page and '<script>alert("x")' not in page  # the cue's text, escaped
    assert "http" not in page.replace("http-equiv", "") and "<link" not in page
    parser = Tags()
    parser.feed(page)
    scripts = [attrs for tag, attrs in parser.tags if tag == "script"]
    assert scripts == [{"type": "application/json", "id": "fitsub-data"}, {}]  # data + the code
    data = page_data(page)
    rows, counts = data["rows"], data["meta"]["counts"]
    assert [r["src"] for r in rows][0] == '<script>alert("x")</script> & you'  # the text itself
    assert rows[0]["start"] == "00:00:01.000" and rows[0]["end"] == "00:00:03.000"
    assert rows[2]["flags"][0][0] == "over-budget"
    summary = summarize(segs)  # type: ignore[arg-type]
    assert counts["flagged"] == summary.flagged == sum(1 for r in rows if r["flags"])
    assert counts["by_flag"]["over-budget"] == summary.flag_counts["over-budget"] == 1


def test_tsv_review_has_one_escaped_line_per_segment() -> None:
    doc, segs = translated()
    text = review_tsv(doc, segs)  # type: ignore[arg-type]
    lines = text.rstrip("\n").split("\n")
    assert lines[0].split("\t") == list(COLUMNS)
    assert len(lines) == 4 and all(len(ln.split("\t")) == len(COLUMNS) for ln in lines)
    assert lines[3].split("\t")[-1].startswith("over-budget")
    from dataclasses import replace

    tricky = [replace(segs[0], unconstrained="a\tb\nc\\d")]  # type: ignore[type-var]
    row = review_tsv(doc, tricky).split("\n")[1].split("\t")  # type: ignore[arg-type]
    assert row[4] == "a\\tb\\nc\\\\d"


def test_write_review_picks_the_format_by_extension(tmp_path: Path) -> None:
    doc, segs = translated()
    write_review(tmp_path / "r.HTML", doc, segs)  # type: ignore[arg-type]
    write_review(tmp_path / "r.tsv", doc, segs)  # type: ignore[arg-type]
    assert (tmp_path / "r.HTML").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert (tmp_path / "r.tsv").read_text(encoding="utf-8").startswith("id\tstart\t")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.HTML", "r.tsv"]  # no temp files


@pytest.mark.parametrize(
    ("name", "problem"),
    [("review.txt", "must end in"), ("missing/review.tsv", ""), ("adir.html", "")],
)
def test_bad_review_locations_are_refused(tmp_path: Path, name: str, problem: str) -> None:
    (tmp_path / "adir.html").mkdir()
    with pytest.raises(InputError) as err:
        check_review_path(tmp_path / name)
    assert problem in str(err.value) and "\n" not in str(err.value)
    assert check_review_path(tmp_path / "ok.tsv") == "tsv"
    assert check_review_path(tmp_path / "ok.htm") == "html"


@pytest.fixture
def toy_cli(monkeypatch: pytest.MonkeyPatch) -> list[ToyBackend]:
    """The CLI with the toy backend instead of a checkpoint (no model needed)."""
    made: list[ToyBackend] = []

    def factory(*args: object, **kw: object) -> ToyBackend:
        made.append(ToyBackend())
        return made[-1]

    monkeypatch.setattr(registry, "locate", lambda *a, **k: Path("toy"))
    monkeypatch.setattr(registry, "open_model", factory)
    return made


def test_strict_exits_3_only_when_a_segment_is_flagged(
    tmp_path: Path, toy_cli: list[ToyBackend]
) -> None:
    src = tmp_path / "talk.srt"
    src.write_text(SRT, encoding="utf-8")
    out, report = tmp_path / "out.srt", tmp_path / "r.json"
    args = ["translate", "--lang", "it", str(src), "-o", str(out), "-q", "--ratio", "1.0"]
    assert run([*args, "--report", str(report)]) == 0  # flags alone do not fail without --strict
    assert run([*args, "--strict"]) == 3
    assert out.exists()  # the output is written either way
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["summary"]["flag_counts"]["over-budget"] == 1
    clean = tmp_path / "clean.srt"
    clean.write_text("1\n00:00:01,000 --> 00:00:04,000\nYes.\n", encoding="utf-8")
    assert run(["translate", "--lang", "it", str(clean), "-o", str(out), "-q", "--strict"]) == 0


def test_review_option_writes_the_file_and_bad_locations_stop_before_translating(
    tmp_path: Path, toy_cli: list[ToyBackend], capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "talk.srt"
    src.write_text(SRT, encoding="utf-8")
    out = tmp_path / "out.srt"
    for name in ("review.html", "review.tsv"):
        assert (
            run(
                [
                    "translate",
                    "--lang",
                    "it",
                    str(src),
                    "-o",
                    str(out),
                    "-q",
                    "--review",
                    str(tmp_path / name),
                ]
            )
            == 0
        )
    page = (tmp_path / "review.html").read_text(encoding="utf-8")
    assert len(page_data(page)["rows"]) == 3
    assert len((tmp_path / "review.tsv").read_text(encoding="utf-8").splitlines()) == 4
    out.unlink()
    capsys.readouterr()
    calls = sum(len(b.calls) for b in toy_cli)
    (tmp_path / "adir.tsv").mkdir()
    for bad in ("nowhere/review.tsv", "adir.tsv", "review.pdf", "out.srt"):
        code = run(
            ["translate", "--lang", "it", str(src), "-o", str(out), "--review", str(tmp_path / bad)]
        )
        err = capsys.readouterr().err.strip()
        assert code == 2 and len(err.splitlines()) == 1, (bad, err)
        assert not out.exists()
    assert sum(len(b.calls) for b in toy_cli) == calls  # nothing was translated


def test_the_content_security_policy_allows_only_the_pages_own_script_and_style() -> None:
    import base64
    import hashlib
    import re

    doc, segs = translated()
    page = review_html(doc, segs)  # type: ignore[arg-type]
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    rules = dict(rule.strip().split(" ", 1) for rule in policy.group(1).split(";"))
    assert rules["default-src"] == "'none'" and "unsafe" not in policy.group(1)
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)  # the code, not the JSON data
    styles = re.findall(r"<style>(.*?)</style>", page, re.S)
    assert len(scripts) == len(styles) == 1

    def sha(text: str) -> str:
        digest = hashlib.sha256(text.encode("utf-8")).digest()
        return f"'sha256-{base64.b64encode(digest).decode()}'"

    assert rules["script-src"] == sha(scripts[0]) and rules["style-src"] == sha(styles[0])
    assert "fitsubChecks" in scripts[0] and "exportEdits" in scripts[0]  # both parts embedded


def test_each_flagged_segment_is_counted_once_by_its_worst_severity() -> None:
    from fitsub.quality.registry import severity_of
    from fitsub.review.page.live import severity_counts, worst

    assert [
        severity_of(n) for n in ("number-changed", "over-budget", "too-short", "too-small")
    ] == [
        "error",
        "budget",
        "timing",
        "timing",
    ]
    assert worst(["too-short", "over-budget", "low-quality"]) == "error"
    assert worst(["too-short", "over-budget"]) == "budget" and worst([]) is None
    doc, segs = translated()
    data = page_data(review_html(doc, segs))  # type: ignore[arg-type]
    counts = data["meta"]["counts"]
    assert sum(counts["by_severity"].values()) == counts["flagged"]
    assert severity_counts([["over-budget"], ["too-short"], [], ["too-short", "unknown-word"]]) == {
        "error": 1,
        "budget": 1,
        "timing": 1,
        "note": 0,  # `--terms dictionary`'s dictionary-term alone
    }
    assert (
        worst(["dictionary-term"]) == "note" and worst(["dictionary-term", "too-short"]) == "timing"
    )
    assert [r["sev"] for r in data["rows"]][2] == "budget"  # "Extraordinarilyino." cannot fit
