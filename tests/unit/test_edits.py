"""The editable text of a segment, edit lengths, and reading edits files (`fitsub.review.edits`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fitsub.errors import InputError
from fitsub.review.edits import edit_chars, editable_text, read_edits


@pytest.mark.parametrize(
    ("text", "fmt", "editable"),
    [
        ("Ciao a tutti.", "srt", "Ciao a tutti."),
        ("<i>Grazie di essere\nvenuti oggi.</i>", "srt", "Grazie di essere\nvenuti oggi."),
        ("<i>Grazie</i>\n<i>a voi.</i>", "srt", "Grazie\na voi."),  # a wrapper on every line
        ("{\\an8}Spegnete i telefoni.", "srt", "Spegnete i telefoni."),
        ("- È libero?\n- Sì, prego.", "srt", "È libero?\nSì, prego."),  # one line per turn
        ("[squilla il telefono]", "srt", "squilla il telefono"),
        ("♪ La la la ♪", "srt", "La la la"),
        ("Tom &amp; Jerry", "srt", "Tom & Jerry"),
        ("Tom &amp; Jerry &lt;3", "vtt", "Tom & Jerry <3"),
        ("## Il **nostro** piano", "slides", "Il nostro piano"),
    ],
)
def test_editable_text_is_the_words_without_markup_in_the_files_lines(
    text: str, fmt: str, editable: str
) -> None:
    assert editable_text(text, fmt) == editable  # type: ignore[arg-type]


def test_a_line_break_counts_as_the_space_it_replaces() -> None:
    assert edit_chars("Grazie di essere\nvenuti oggi.") == len("Grazie di essere venuti oggi.")
    assert edit_chars("  a \n\n b ") == 3


def test_the_review_tsv_reads_as_edits_with_its_escapes(tmp_path: Path) -> None:
    tsv = tmp_path / "r.tsv"
    tsv.write_text(
        "id\tstart\tend\tfitted\tbudget\n"
        "7\t00:00:01.000\t00:00:02.000\tUna riga\\nDue righe \\\\ fine\t30\n",
        encoding="utf-8",
    )
    edits = read_edits(tsv)
    assert edits.fingerprint is None and len(edits.edits) == 1
    edit = edits.edits[0]
    assert (edit.id, edit.text, edit.budget) == ("7", "Una riga\nDue righe \\ fine", 30)
    assert edits.timings == (("00:00:01.000", "00:00:02.000"),)


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ('{"kind": "fitsub-edits", "version": 1, "fingerp', "not valid JSON"),
        ("id\tstart\n1\t00:00:01.000\n", "lacks the column(s) end, fitted"),
        ("1\n00:00:01,000 --> 00:00:02,000\nHi\n", "not an edits file"),
        ('{"kind": "fitsub-edits", "version": 2}', "version 2"),
        ('{"kind": "fitsub-edits", "version": 1, "fingerprint": {"segments": 2}}', "'structure'"),
    ],
)
def test_bad_edits_files_are_one_line_errors(tmp_path: Path, content: str, says: str) -> None:
    path = tmp_path / "edits.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_edits(path)
    assert says in str(err.value) and "\n" not in str(err.value)


def test_control_characters_in_an_edit_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "edits.json"
    edit = {"index": 0, "id": "1", "text": "Ciao\u0007"}
    fp = {"segments": 1, "structure": "0" * 64, "source": None}
    path.write_text(
        json.dumps({"kind": "fitsub-edits", "version": 1, "fingerprint": fp, "edits": [edit]}),
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="U\\+0007"):
        read_edits(path)


def _edits_file(path: Path, edit_json: str) -> Path:
    fp = json.dumps({"segments": 1, "structure": "0" * 64, "source": None})
    path.write_text(
        f'{{"kind": "fitsub-edits", "version": 1, "fingerprint": {fp}, "edits": [{edit_json}]}}',
        encoding="utf-8",
    )
    return path


def test_a_number_of_thousands_of_digits_is_our_one_line_error(tmp_path: Path) -> None:
    # issue 55: Python's "Exceeds the limit (4300 digits) ... sys.set_int_max_str_digits()"
    path = _edits_file(tmp_path / "e.json", '{"index": ' + "9" * 5000 + ', "id": "1", "text": "x"}')
    with pytest.raises(InputError) as err:
        read_edits(path)
    message = str(err.value)
    assert message.startswith(f"{path}: ") and "a number of 5,000 digits is out of range" in message
    assert "4300" not in message and "sys." not in message and "\n" not in message


def test_a_lone_surrogate_in_an_edit_is_blamed_on_the_edits_file(tmp_path: Path) -> None:
    # issue 55: JSON's "\ud800" alone reached the writer, and the target file took the blame
    path = _edits_file(tmp_path / "e.json", '{"index": 0, "id": "1", "text": "Ciao \\ud800"}')
    with pytest.raises(InputError) as err:
        read_edits(path)
    assert str(err.value).startswith(f"{path}: ") and "lone surrogate (U+D800)" in str(err.value)
    pair = _edits_file(
        tmp_path / "ok.json", '{"index": 0, "id": "1", "text": "Ciao \\ud83d\\ude00"}'
    )
    assert read_edits(pair).edits[0].text == "Ciao \U0001f600"  # a pair is one character
