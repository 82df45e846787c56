"""`fitsub translate --terms dictionary`: a dictionary noun the plain translation lacks is forced
through the glossary and its line flagged `dictionary-term`; the user's glossary wins; a
language without a shipped dictionary is refused; without the option nothing changes.

The dictionary is a tiny one written here (`tiny_dictionary`), the backend the toy that copies
glossary placeholders (`doubles.CopyingToy`): "bees" comes out "beesino", "home" "casa"."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import browser_in, loaded
from cli_helpers import run
from doubles import CopyingToy
from review_helpers import page_data, use_toy_backend

from fitsub.cli.run_settings import read_run_settings, settings_path
from fitsub.quality import bilingual

REPO = Path(__file__).resolve().parents[2]
# made up for these tests: the columns of dictionaries/README.md, a few senses of our own
ROWS = [
    ("bee", "n", "1", "1", "a flying insect", "ape|pecchia", "f|f", ""),
    ("hive", "n", "1", "1", "where the insects live", "alveare", "m", ""),
    ("hive", "n", "2", "0", "a busy place", "formicaio", "m", ""),
    ("home", "n", "1", "1", "a dwelling", "casa", "f", ""),
    ("keep", "v", "1", "1", "to hold on to", "tenere", "", ""),
]
LINES = "I keep bees.\nWe go home.\nThe hive is full.\n"


@pytest.fixture
def tiny_dictionary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """dictionaries/ holding only en-it.tsv.gz, made of `ROWS`; the toy backend in the CLI."""
    folder = tmp_path / "dictionaries"
    folder.mkdir()
    text = "# a test list\n" + "\t".join(bilingual.COLUMNS) + "\n"
    text += "".join("\t".join(row) + "\n" for row in ROWS)
    (folder / "en-it.tsv.gz").write_bytes(gzip.compress(text.encode("utf-8")))
    monkeypatch.setattr(bilingual, "DICTIONARIES", folder)
    use_toy_backend(monkeypatch, CopyingToy)
    return folder


def translate(folder: Path, *extra: str, lines: str = LINES, lang: str = "it") -> tuple[int, Any]:
    """`fitsub translate FOLDER/in.txt` (ratio 3: nothing refitted) with `extra`: the exit code
    and the `--report` JSON (None when none was written)."""
    src, out, report = folder / "in.txt", folder / f"out.{lang}.txt", folder / "r.json"
    src.write_text(lines, "utf-8")
    for old in (out, report):
        old.unlink(missing_ok=True)
    argv = ["translate", str(src), "--lang", lang, "-o", str(out), "--ratio", "3", "-q"]
    code = run([*argv, "--report", str(report), *extra])
    return code, json.loads(report.read_text("utf-8")) if report.is_file() else None


def output(folder: Path) -> str:
    return (folder / "out.it.txt").read_text("utf-8")


def term_flags(report: Any) -> list[str | None]:
    """Each segment's `dictionary-term` detail (None: no such flag)."""
    return [
        next((f["detail"] for f in s["flags"] if f["name"] == "dictionary-term"), None)
        for s in report["segments"]
    ]


def test_a_noun_the_plain_output_lacks_is_forced_and_its_line_flagged(
    tmp_path: Path, tiny_dictionary: Path
) -> None:
    assert translate(tmp_path)[0] == 0
    assert output(tmp_path) == "Io keepino beesino.\nNoi andiamo casa.\nIl hiveino è fullino.\n"
    code, report = translate(tmp_path, "--terms", "dictionary")
    assert code == 0
    # "bees" a plural: the target too; "home" came out "casa" already: not forced
    assert output(tmp_path) == "Io keepino api.\nNoi andiamo casa.\nIl alveare è fullino.\n"
    assert term_flags(report) == [
        "bees → api (a flying insect)",
        None,
        "hive → alveare (where the insects live)",
    ]
    assert report["meta"]["terms"] == "dictionary"
    assert report["summary"]["flag_counts"]["dictionary-term"] == 2


def test_the_second_pass_asks_the_model_only_for_the_lines_a_term_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tiny_dictionary: Path
) -> None:
    made: list[CopyingToy] = []

    def make() -> CopyingToy:
        made.append(CopyingToy())
        return made[-1]

    use_toy_backend(monkeypatch, make)
    assert translate(tmp_path)[0] == 0
    assert translate(tmp_path, "--terms", "dictionary")[0] == 0
    plain, forced = ([r.text for r in backend.calls] for backend in made)
    assert forced[: len(plain)] == plain  # the plain pass, as without the option
    assert forced[len(plain) :] == ["I keep [1].", "The [1] is full."]


def test_the_users_glossary_wins_over_the_dictionary(tmp_path: Path, tiny_dictionary: Path) -> None:
    glossary = tmp_path / "terms.tsv"
    glossary.write_text("Bees\tPecchie\nbees\tpecchie\n", "utf-8")
    code, report = translate(tmp_path, "--terms", "dictionary", "--glossary", str(glossary))
    assert code == 0
    assert output(tmp_path) == "Io keepino pecchie.\nNoi andiamo casa.\nIl alveare è fullino.\n"
    assert term_flags(report) == [None, None, "hive → alveare (where the insects live)"]


def test_without_a_term_to_force_the_output_and_report_are_the_plain_runs(
    tmp_path: Path, tiny_dictionary: Path
) -> None:
    code, plain = translate(tmp_path, lines="We go home.\n")
    assert code == 0 and "terms" not in plain["meta"]  # without the option: as before it
    before = output(tmp_path)
    code, report = translate(tmp_path, "--terms", "dictionary", lines="We go home.\n")
    assert code == 0 and output(tmp_path) == before == "Noi andiamo casa.\n"
    assert report["segments"] == plain["segments"] and report["summary"] == plain["summary"]


def test_a_language_without_a_shipped_dictionary_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    use_toy_backend(monkeypatch, CopyingToy)
    shipped = bilingual.shipped_languages()
    assert "es" not in shipped and {"it", "de", "fr"} <= set(shipped)
    code, report = translate(tmp_path, "--terms", "dictionary", lang="es")
    err = capsys.readouterr().err.strip()
    assert code == 2 and report is None and not (tmp_path / "out.es.txt").exists()
    assert err == (
        "fitsub: error: --terms dictionary: no dictionary into es; dictionaries/ has one into "
        + ", ".join(shipped)
    )
    assert translate(tmp_path, "--terms", "wiktionary")[0] == 2
    assert capsys.readouterr().err.strip().endswith("--terms must be dictionary, got 'wiktionary'")


def test_the_review_page_shows_the_forced_terms_and_the_run_settings_keep_the_option(
    tmp_path: Path, tiny_dictionary: Path
) -> None:
    page = tmp_path / "review.html"
    assert translate(tmp_path, "--terms", "dictionary", "--review", str(page))[0] == 0
    data = page_data(page.read_text("utf-8"))
    rows = data["rows"]
    assert rows[0]["flags"] == [["dictionary-term", "bees → api (a flying insect)"]]
    assert [r["sev"] for r in rows] == ["note", None, "note"]
    assert data["meta"]["counts"]["by_flag"]["dictionary-term"] == 2
    assert data["meta"]["checks"]["flags"]["dictionary-term"]["severity"] == "note"
    flags, _ = read_run_settings(tmp_path / "out.it.txt", device="cpu", threads=1)
    assert flags.terms == "dictionary"
    # a record written before the option reads as a run without it
    path = settings_path(tmp_path / "out.it.txt")
    record = json.loads(path.read_text("utf-8"))
    del record["flags"]["terms"]
    path.write_text(json.dumps(record), "utf-8")
    assert read_run_settings(tmp_path / "out.it.txt", device="cpu", threads=1)[0].terms is None


def test_the_page_colours_and_counts_the_lines_with_a_forced_term(
    tmp_path: Path, tiny_dictionary: Path
) -> None:
    page = tmp_path / "review.html"
    assert translate(tmp_path, "--terms", "dictionary", "--review", str(page))[0] == 0
    with browser_in(tmp_path) as browser:
        loaded(browser, page)
        legend = browser.execute_script(
            "return Array.from(document.querySelectorAll('.legend [data-sev]'))"
            ".map(e => e.textContent)"
        )
        assert legend == ["error 0", "over budget 0", "timing only 0", "dictionary term 2"]
        rows = browser.execute_script(
            "return [0, 1, 2].map(i => document.getElementById('seg-' + i)).map(r => "
            "[r.classList.contains('sev-note'), Array.from(r.querySelectorAll('.flag'))"
            ".map(f => f.textContent + ': ' + f.title)])"
        )
    assert rows == [
        [True, ["dictionary-term: bees → api (a flying insect)"]],
        [False, []],
        [True, ["dictionary-term: hive → alveare (where the insects live)"]],
    ]


def test_the_review_servers_retranslation_forces_the_term_too(tiny_dictionary: Path) -> None:
    from fitsub.budget import limits_for
    from fitsub.formats import parse_document
    from fitsub.pipeline import TranslateOptions
    from fitsub.review.retranslate import retranslate

    doc = parse_document("1\n00:00:01,000 --> 00:00:04,000\nI keep bees.\n", "srt")
    opts = TranslateOptions(
        lang="it", limits=limits_for("it"), dictionary=bilingual.load_bilingual("it")
    )
    got = retranslate(doc, 0, backend=CopyingToy(), opts=opts, chars=40)
    assert got.fitted == "Io keepino api." and got.flags[-1].name == "dictionary-term"
    term = ("bees", "pecchie")  # a term the reviewer forces wins
    got = retranslate(doc, 0, backend=CopyingToy(), opts=opts, chars=40, term=term)
    assert got.fitted == "Io keepino pecchie."
    assert all(f.name != "dictionary-term" for f in got.flags)


@pytest.mark.skipif(not (REPO / "models" / "en-it").is_dir(), reason="no shipped en-it model")
def test_the_shipped_italian_model_keeps_bees_with_the_shipped_dictionary(tmp_path: Path) -> None:
    """The shipped model writes "I keep bees." without bees ("Io continuo."); the dictionary's
    term puts them in."""
    src, out = tmp_path / "bees.txt", tmp_path / "bees.it.txt"
    src.write_text("I keep bees.\n", "utf-8")
    argv = ["translate", str(src), "--lang", "it", "-o", str(out), "--threads", "1", "-q"]
    assert run([*argv, "--terms", "dictionary"]) == 0
    words = set(out.read_text("utf-8").lower().replace(".", " ").split())
    assert words & {"api", "ape"}, out.read_text("utf-8")
