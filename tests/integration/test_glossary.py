"""Glossary and do-not-translate list: parsing, placeholders, restoring, budgets, bad files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from doubles import CopyingToy, ToyBackend

from fitsub.backend import Candidate, Request
from fitsub.budget import limits_for
from fitsub.cli import main
from fitsub.cli.report import result_to_dict
from fitsub.errors import InputError
from fitsub.formats import parse_document, read_document
from fitsub.glossary import Glossary, Term, load_glossary, parse_glossary, placeholder
from fitsub.pipeline import TranslateOptions, translate_document
from fitsub.quality.score import NO_SCORING
from fitsub.units import char_length

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _opts(glossary: Glossary | None, **kw: object) -> TranslateOptions:
    return TranslateOptions(lang="it", limits=limits_for("it"), glossary=glossary, **kw)  # type: ignore[arg-type]


def test_parse_pairs_kept_terms_comments_and_blank_lines() -> None:
    g = parse_glossary("# names\nAnna\n\nRome\tRoma\nNew York\t New York \n")
    assert g.terms == (
        Term("Anna", "Anna", 2),
        Term("Rome", "Roma", 4),
        Term("New York", "New York", 5),
    )


def test_shield_replaces_whole_words_longest_first_and_skips_taken_placeholders() -> None:
    g = parse_glossary("Anna\nNew York\tNuova York\nNew\tNuovo\n")
    shielded = g.shield("Annabel saw [1] and Anna in New York, then New things.")
    assert shielded.text == "Annabel saw [1] and [2] in [3], then [4] things."
    assert [(ph, t.target) for ph, t in shielded.slots] == [
        ("[2]", "Anna"),
        ("[3]", "Nuova York"),
        ("[4]", "Nuovo"),
    ]
    # restoring adds: Anna 4-3, Nuova York 10-3, Nuovo 5-3
    assert shielded.extra_chars == 1 + 7 + 2
    text, lost = shielded.restore("[2] a [3] e [4] cose.")
    assert (text, lost) == ("Anna a Nuova York e Nuovo cose.", ())
    text, lost = shielded.restore("[2] a casa.")
    assert text == "Anna a casa." and lost == ("New York", "New")
    assert placeholder(12) == "[12]"


def test_a_kept_name_survives_translation_exactly() -> None:
    doc = parse_document(
        "1\n00:00:01,000 --> 00:00:04,000\nMy name is Anna Karenina, and this is Rome.\n", "srt"
    )
    g = parse_glossary("Anna Karenina\nRome\tRoma\n")
    backend = CopyingToy()
    result = translate_document(doc, backend, _opts(g, ratio=2.0))
    (seg,) = result.segments
    assert "Anna Karenina" in seg.fitted and "Roma" in seg.fitted
    assert "Annaino" not in seg.fitted and "Romeino" not in seg.fitted
    assert seg.unconstrained is not None and "Anna Karenina" in seg.unconstrained
    assert all("[1]" in r.text and "Anna" not in r.text for r in backend.calls)
    assert seg.terms_lost == () and result.warnings == [NO_SCORING]  # a toy cannot score
    # without the glossary the toy model "translates" the name
    plain = translate_document(doc, ToyBackend(), _opts(None, ratio=2.0))
    assert "Annaino" in plain.segments[0].fitted


def test_the_budget_counts_the_restored_term() -> None:
    doc = parse_document("1\n00:00:01,000 --> 00:00:09,000\nAsk Bob for the key.\n", "srt")
    g = parse_glossary("Bob\tRoberto Baggio\n")  # 3 characters in, 14 out
    backend = CopyingToy()
    result = translate_document(doc, backend, _opts(g, ratio=1.2, compare=False))
    (seg,) = result.segments
    assert seg.budget is not None and seg.budget.chars == 24  # floor(1.2 × 20)
    free, req = backend.calls  # the unconstrained translation, restored, is over 24: fitted
    assert free.max_chars is None
    assert req.max_chars == 24 - (char_length("Roberto Baggio") - char_length("[1]"))
    assert "Roberto Baggio" in seg.fitted and seg.fits


def test_a_term_survives_in_a_sentence_across_cues() -> None:
    doc = read_document(SAMPLES / "talk.srt")
    g = parse_glossary("Rome\n")
    result = translate_document(
        doc,
        CopyingToy(),
        TranslateOptions(lang="it", limits=limits_for("it", cps=40), ratio=2.0, glossary=g),
    )
    by_id = {r.id: r for r in result.segments}
    joined = " ".join(by_id[i].fitted for i in ("7", "8", "9"))
    assert "Rome" in joined.split() and "Romeino" not in joined
    assert by_id["7"].group_path == "whole"


def test_the_candidate_keeping_every_term_is_preferred_and_a_lost_term_is_reported() -> None:
    doc = parse_document("1\n00:00:01,000 --> 00:00:04,000\nThank you, Anna.\n", "srt")
    g = parse_glossary("Anna\n")
    backend = CopyingToy(drop=True)
    result = translate_document(doc, backend, _opts(g, ratio=2.0))
    assert "Anna" in result.segments[0].fitted  # the second candidate, which kept it
    assert all(r.text == "Thank you, [1]." for r in backend.calls)

    class Forgetful(ToyBackend):
        def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
            return [[Candidate("Grazie.", -1.0)] for _ in requests]

    lost = translate_document(doc, Forgetful(), _opts(g, ratio=2.0))
    assert lost.segments[0].terms_lost == ("Anna",)
    assert result_to_dict(lost.segments[0])["terms_lost"] == ["Anna"]
    assert any("Anna" in w and "glossary" in w for w in lost.warnings)


@pytest.mark.parametrize(
    ("content", "line", "problem"),
    [
        ("Anna\nRome\tRoma\tRom\n", 2, "3 columns"),
        ("Anna\n\tRoma\n", 2, "empty source term"),
        ("Rome\t \n", 1, "empty target term"),
        ("Rome\tRoma\nRome\tRomae\n", 2, "two targets"),
    ],
)
def test_bad_glossary_lines_name_the_file_and_line(
    tmp_path: Path, content: str, line: int, problem: str
) -> None:
    path = tmp_path / "terms.tsv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_glossary(path)
    assert err.value.line == line
    assert err.value.message.startswith(f"{path}:{line}: ")
    assert problem in err.value.message


def test_missing_empty_or_binary_glossary_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        load_glossary(tmp_path / "nope.tsv")
    empty = tmp_path / "empty.tsv"
    empty.write_text("# nothing\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="no terms"):
        load_glossary(empty)
    binary = tmp_path / "bin.tsv"
    binary.write_bytes(b"Anna\n\xff\xfe\x00\n")
    with pytest.raises(InputError) as err:
        load_glossary(binary)
    assert err.value.line == 2 and "UTF-8" in err.value.message


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "glossary file not found"),
        ("Anna\nRome\tRoma\tRom\n", ":2: expected 'source<TAB>target'"),
        ("\tRoma\n", ":1: empty source term"),
    ],
)
def test_cli_bad_glossary_is_one_line_exit_2_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, expected: str
) -> None:
    src = tmp_path / "talk.srt"
    src.write_bytes((SAMPLES / "talk.srt").read_bytes())
    terms = tmp_path / "terms.tsv"
    if content is not None:
        terms.write_text(content, encoding="utf-8")
    out = tmp_path / "out.srt"
    args = [
        "translate",
        "--lang",
        "it",
        str(src),
        "-o",
        str(out),
        "--glossary",
        str(terms),
        "--threads",
        "1",
    ]
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert str(terms) in err and expected in err
    assert not out.exists()
