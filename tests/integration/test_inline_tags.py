"""Inline tags through the pipeline (issue 29): on the words they covered, with a word-for-word
toy, a toy that reorders, a toy that loses the tagged word, and the identity engine."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from doubles import ToyBackend, toy_translate

from fitsub.backend import Candidate, Request
from fitsub.budget import limits_for
from fitsub.formats import parse_document, read_document, render_document
from fitsub.identity import IdentityBackend
from fitsub.pipeline import TranslateOptions, translate_document
from fitsub.units import char_length

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _opts(**kw: object) -> TranslateOptions:
    """Room for every toy translation (the question here is the markup, not the fit)."""
    kw.setdefault("ratio", 3.0)
    limits = limits_for("it", cpl=70, cps=1000.0)
    return TranslateOptions(lang="it", limits=limits, quality=False, **kw)  # type: ignore[arg-type]


def _srt(*texts: str) -> str:
    return "\n".join(
        f"{i + 1}\n00:00:{10 * i:02d},000 --> 00:00:{10 * i + 8:02d},000\n{t}\n"
        for i, t in enumerate(texts)
    )


class ReversingBackend(ToyBackend):
    """The toy's words in reverse order (a translation that moves every word)."""

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        out = super().translate(requests, n_best)
        return [
            [Candidate(" ".join(c.text.split()[::-1]), c.score, c.fits) for c in cands]
            for cands in out
        ]


class ForgetfulBackend(ToyBackend):
    """The toy, but a sentence loses every word the toy does not know."""

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        out = super().translate(requests, n_best)
        return [
            [
                Candidate(
                    " ".join(w for w in c.text.split() if "ino" not in w) or c.text, c.score, c.fits
                )
                for c in cands
            ]
            if " " in r.text
            else cands
            for r, cands in zip(requests, out, strict=True)
        ]


def test_tags_follow_their_words_when_the_translation_reorders_them() -> None:
    doc = parse_document(_srt("We kept <b>bees</b> in <i>the</i> house."), "srt")
    result = translate_document(doc, ReversingBackend(), _opts())
    assert (
        result.document.segments[0].text == "houseino. <i>il</i> dentro <b>beesino</b> keptino Noi"
    )
    assert result.warnings == [] and result.segments[0].markup_moved == ()


def test_a_speaker_label_is_not_translated_and_the_italics_keep_their_words() -> None:
    doc = parse_document(_srt("[Alba] <i>In 1928,</i> my father built a house."), "srt")
    backend = ToyBackend()
    result = translate_document(doc, backend, _opts())
    assert result.document.segments[0].text.replace("\n", " ") == (
        "[Alba] <i>Dentro 1928ino,</i> myino fatherino builtino un houseino."
    )
    assert all("Alba" not in call.text for call in backend.calls)


def test_a_tag_whose_words_are_gone_wraps_the_line_with_a_warning() -> None:
    doc = parse_document(_srt("I <i>really</i> go home.", "Yes."), "srt")
    result = translate_document(doc, ForgetfulBackend(), _opts())
    assert result.document.segments[0].text == "<i>Io andiamo casa.</i>"
    assert result.segments[0].markup_moved == ("<i>…</i>",)
    assert result.warnings == [
        "segment 1: markup not placed on its words, kept around the whole line: <i>…</i>"
    ]


def test_the_budget_counts_the_visible_words_only() -> None:
    text = 'We kept <font color="#ffff00">bees</font> in an <i>apiary</i>.'
    doc = parse_document(_srt(text), "srt")
    result = translate_document(doc, ToyBackend(), _opts())
    seg = result.segments[0]
    assert seg.budget is not None and seg.budget.source_chars == char_length(
        "We kept bees in an apiary."
    )
    assert seg.fitted == toy_translate("We kept bees in an apiary.")
    assert result.document.segments[0].text.replace("\n", " ") == (
        'Noi keptino <font color="#ffff00">beesino</font> dentro anino <i>apiaryino</i>.'
    )


def test_identity_keeps_every_tagged_sample_byte_for_byte() -> None:
    for name in ("tagged.srt", "tagged.vtt", "tagged.ass"):
        doc = read_document(SAMPLES / name)
        result = translate_document(doc, IdentityBackend(), _opts(ratio=None))
        assert render_document(result.document) == (SAMPLES / name).read_text(encoding="utf-8")
        assert not [w for w in result.warnings if "markup" in w]


def test_every_tag_of_the_tagged_sample_is_kept_with_the_toy() -> None:
    doc = read_document(SAMPLES / "tagged.srt")
    result = translate_document(doc, ToyBackend(), _opts())
    out = render_document(result.document)
    source = (SAMPLES / "tagged.srt").read_text(encoding="utf-8")
    for tag in ("<i>", "</i>", "<b>", "</b>", "<u>", "</u>", '<font color="#ffff00">', "</font>"):
        assert out.count(tag) == source.count(tag), tag
    assert "Il <b><i>oldino</i></b> dogino sleepsino <u>allino dayino</u>." in out
    assert "- Whereino è <i>Mariaino</i>?\n- Sheino è atino casa." in out
    assert "[Alba] <i>Dentro 1928ino,</i> myino" in out
    assert result.warnings == []


def test_ass_override_blocks_in_mid_line_follow_their_words() -> None:
    doc = read_document(SAMPLES / "tagged.ass")
    result = translate_document(doc, ReversingBackend(), _opts())
    events = [
        line
        for line in render_document(result.document).splitlines()
        if line.startswith("Dialogue")
    ]
    texts = [line.split(",,0,0,0,,")[1] for line in events]
    assert texts[0] == "{\\i1}seaino. il verso beenino neverino haveino Io{\\i0}"
    assert (
        texts[1] == "houseino. il behindino {\\i1}apiaryino{\\i0} anino dentro beesino keptino Noi"
    )
    assert texts[3].startswith("{\\an8}") and "{\\c&H00FFFF&}oldino{\\c}" in texts[3]
    assert result.warnings == []
