"""Quotation marks per target language through the pipeline (issue 43, part 4): a small SRT
with quotations, a tag with a quoted attribute and a cue copied as is."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from fitsub.backend import Candidate, Request
from fitsub.budget import limits_for
from fitsub.formats import read_document
from fitsub.pipeline import TranslateOptions, translate_document

SRT = """1
00:00:01,000 --> 00:00:04,000
He said "go home".

2
00:00:05,000 --> 00:00:08,000
<font color="#ffff00">"Now," she said.</font>

3
00:00:09,000 --> 00:00:11,000
"Okafor."

4
00:00:12,000 --> 00:00:15,000
We wait.
"""


class Fixed:
    """The same translation for every request of a source (no budget ever binds here)."""

    lexicon = links = None
    name = "fixed"

    def __init__(self, out: Mapping[str, str]) -> None:
        self.out = out

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        return [[Candidate(self.out.get(r.text, r.text), -1.0)] for r in requests]


def _translate(tmp_path: Path, lang: str, out: Mapping[str, str]) -> list[str]:
    path = tmp_path / "quotes.srt"
    path.write_text(SRT, encoding="utf-8")
    doc = read_document(path)
    opts = TranslateOptions(lang=lang, limits=limits_for(lang))
    result = translate_document(doc, Fixed(out), opts)
    assert len(result.document.segments) == len(doc.segments) == 4
    for new, old in zip(result.document.segments, doc.segments, strict=True):
        assert (new.start_ms, new.end_ms, new.id) == (old.start_ms, old.end_ms, old.id)
    return [s.text for s in result.document.segments]


def test_a_subtitle_file_gets_the_target_languages_quotation_marks(tmp_path: Path) -> None:
    german = {
        'He said "go home".': 'Er sagte "geh nach Hause".',
        '"Now," she said.': "“Jetzt”, sagte sie.",
        "We wait.": "Wir warten.",
    }
    texts = _translate(tmp_path, "de", german)
    assert texts[0] == "Er sagte „geh nach Hause“."
    assert texts[1] == '<font color="#ffff00">„Jetzt“, sagte sie.</font>'  # the tag untouched
    assert texts[2] == '"Okafor."'  # a copy of the source keeps its marks
    assert texts[3] == "Wir warten."


def test_french_quotation_marks_keep_their_no_break_spaces_in_the_file(tmp_path: Path) -> None:
    french = {'He said "go home".': 'Il a dit "rentre".', "We wait.": "Nous attendons."}
    texts = _translate(tmp_path, "fr", french)
    assert texts[0] == "Il a dit «\u00a0rentre\u00a0»."
    assert texts[0].split() == ["Il", "a", "dit", "«", "rentre", "»."]
