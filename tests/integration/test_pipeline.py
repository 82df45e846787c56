"""The translate pipeline on real sample files, with a toy backend from tests/support/doubles.py."""

from __future__ import annotations

from pathlib import Path

from doubles import ToyBackend

from fitsub.backend import Candidate
from fitsub.budget import limits_for
from fitsub.formats import parse_document, read_document, render_document
from fitsub.pipeline import TranslateOptions, translate_document
from fitsub.pipeline import summarize_results as summarize
from fitsub.quality.score import NO_SCORING
from fitsub.units import char_length

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _opts(cps: float | None = None, **kw: object) -> TranslateOptions:
    return TranslateOptions(lang="it", limits=limits_for("it", cps=cps), **kw)  # type: ignore[arg-type]


def test_srt_keeps_every_cue_id_and_timing_and_fits_budgets() -> None:
    doc = read_document(SAMPLES / "talk.srt")
    result = translate_document(doc, ToyBackend(), _opts(ratio=1.0))
    out = result.document
    assert len(out.segments) == len(doc.segments) == 20
    for a, b in zip(doc.segments, out.segments, strict=True):
        assert (a.id, a.start_ms, a.end_ms) == (b.id, b.start_ms, b.end_ms)
    # every translated segment is within its budget, and the toy language alone would overflow
    translated = [r for r in result.segments if r.budget is not None]
    # within budget, or flagged when the backend found nothing that fits ("(laughs)": 6 chars)
    # or only cuts that end mid-phrase (the toy drops words from the end: "... un lotino
    # della"): the whole sentence is shown over budget instead (issue 43)
    assert translated and all(r.fits or not r.model_fits for r in translated)
    assert sorted(r.index for r in translated if not r.model_fits) == [11, 13, 15, 16]
    summary = summarize(result.segments)
    assert summary.fitted_within == 16 / 20  # all but the flagged ones
    assert summary.unconstrained_within is not None and summary.unconstrained_within < 1.0
    # the written file parses back to the same cues
    again = parse_document(render_document(out), "srt")
    assert [(s.id, s.start_ms, s.end_ms) for s in again.segments] == [
        (s.id, s.start_ms, s.end_ms) for s in doc.segments
    ]


def test_markup_is_restored_around_translations() -> None:
    doc = read_document(SAMPLES / "talk.srt")
    out = translate_document(doc, ToyBackend(), _opts(ratio=1.5)).document
    texts = {s.id: s.text for s in out.segments}
    assert texts["5"].startswith("{\\an8}")
    assert texts["6"].startswith("<i>") and texts["6"].endswith("</i>")
    assert texts["10"].startswith("♪") and texts["10"].endswith("♪")
    assert texts["4"].startswith("[") and texts["4"].endswith("]")
    assert "&amp;" in texts["19"]
    # dialogue cues keep one dashed line per speaker turn
    lines = texts["3"].split("\n")
    assert len(lines) == 2 and all(line.startswith("-") for line in lines)


def test_sentence_across_three_cues_is_translated_once_and_shared() -> None:
    doc = read_document(SAMPLES / "talk.srt")
    backend = ToyBackend()
    result = translate_document(doc, backend, _opts(cps=40, ratio=2.0, compare=False))
    joined = [r.text for r in backend.calls if r.text.startswith("Last year")]
    assert joined == ["Last year I went to Rome with my sister and we ate a lot of pizza."]
    by_id = {r.id: r for r in result.segments}
    assert by_id["7"].group == by_id["8"].group == by_id["9"].group
    assert all(by_id[i].fitted and by_id[i].fits for i in ("7", "8", "9"))
    assert " ".join(by_id[i].fitted for i in ("7", "8", "9")).startswith("Lastino yearino")
    # --per-cue translates the fragments separately
    backend = ToyBackend()
    translate_document(doc, backend, _opts(ratio=2.0, compare=False, per_cue=True))
    assert "Last year I went to Rome" in [r.text for r in backend.calls]


def test_reflow_respects_cpl_and_lines() -> None:
    text = (
        "1\n00:00:01,000 --> 00:00:09,000\n"
        + "We went to the market and bought fresh bread for everyone.\n"
    )
    doc = parse_document(text, "srt")
    out = translate_document(doc, ToyBackend(), _opts(ratio=1.0, compare=False)).document
    lines = out.segments[0].text.split("\n")
    assert 1 <= len(lines) <= 2
    assert all(char_length(line) <= 42 for line in lines)


def test_slides_keep_structure_and_untranslated_lines() -> None:
    doc = read_document(SAMPLES / "slides.md")
    result = translate_document(doc, ToyBackend(), _opts(ratio=1.2))
    src_lines = render_document(doc).split("\n")
    out_lines = render_document(result.document).split("\n")
    assert len(src_lines) == len(out_lines)
    for a, b in zip(src_lines, out_lines, strict=True):
        if a.strip() in ("", "---", "```") or a.startswith("buongiorno"):
            assert a == b
        if a.lstrip().startswith(("- ", "1. ", "## ", "> ")):
            marker = a[: len(a) - len(a.lstrip())] + a.lstrip().split(" ")[0]
            assert b.startswith(marker)


def test_too_small_budget_is_flagged() -> None:
    text = "1\n00:00:01,000 --> 00:00:01,300\nI really do not know what to say.\n"
    doc = parse_document(text, "srt")
    result = translate_document(doc, ToyBackend(), _opts(ratio=1.0))
    assert result.segments[0].budget is not None and result.segments[0].budget.too_small
    assert summarize(result.segments).flagged == 1


def test_mid_sentence_tag_goes_on_the_translation_of_its_words() -> None:
    doc = parse_document("1\n00:00:01,000 --> 00:00:04,000\nI <i>really</i> mean it.\n", "srt")
    backend = ToyBackend()
    result = translate_document(doc, backend, _opts(ratio=2.0))
    assert result.document.segments[0].text == "Io <i>reallyino</i> meanino esso."
    assert result.warnings == [NO_SCORING]  # toy: no score; nothing dropped or moved
    assert backend.calls[-1].text == "really"  # the tagged words, translated alone


def test_min_ratio_asks_for_a_lower_bound_capped_at_the_budget() -> None:
    doc = parse_document("1\n00:00:01,000 --> 00:00:09,000\nWe have a lot of work to do.\n", "srt")
    backend = ToyBackend()
    translate_document(doc, backend, _opts(ratio=1.0, min_ratio=0.9, compare=False))
    free, req = backend.calls  # the unconstrained translation is too long: fitted again
    assert (free.max_chars, free.target_chars) == (None, None)
    assert (req.max_chars, req.target_chars, req.min_chars) == (28, 28, 26)  # ceil(0.9 × 28)


def test_dialogue_turns_wrapped_line_by_line_keep_their_tags() -> None:
    """`<c.x>- A</c.x>` on each line (Netflix-style exports): two turns, tags kept, none as text."""
    src = (
        "WEBVTT\n\n00:00:01.000 --> 00:00:03.000\n"
        "<c.bg_transparent>- Is this seat free?</c.bg_transparent>\n"
        "<c.bg_transparent>- Yes, sit down.</c.bg_transparent>\n"
    )
    doc = parse_document(src, "vtt")
    for ratio in (1.0, 0.6):
        out = translate_document(doc, ToyBackend(), _opts(ratio=ratio)).document
        lines = out.segments[0].text.split("\n")
        assert len(lines) == 2
        for line in lines:
            assert line.startswith("<c.bg_transparent>- ")
            assert line.endswith("</c.bg_transparent>")
            assert "&lt;" not in line and line.count("<") == 2


class _Scripted:
    """Fitted and unconstrained n-best lists given per request (tests the pipeline's choice)."""

    lexicon = links = None  # no word resources (TranslationBackend.lexicon, .links)

    name = "scripted"

    def __init__(self, fitted: list[str], free: list[str]) -> None:
        self.fitted, self.free = fitted, free

    def translate(self, requests: object, n_best: int = 1) -> list[list[Candidate]]:
        out = []
        for req in requests:  # type: ignore[attr-defined]
            texts = self.free if req.max_chars is None else self.fitted
            out.append([Candidate(t, -float(k)) for k, t in enumerate(texts[:n_best])])
        return out


_BUILT = "1\n00:00:01,000 --> 00:00:04,000\nIt was built in 1652.\n"


def test_a_fitted_candidate_that_cuts_a_word_gives_way_to_a_whole_one() -> None:
    doc = parse_document(_BUILT, "srt")
    # the model's best fitted candidate closes the stem of "costruita" with its own ending
    backend = _Scripted(["Fu costito nel 1652.", "Fu fatto nel 1652."], ["Fu costruita nel 1652."])
    (r,) = translate_document(doc, backend, _opts(ratio=1.0)).segments
    assert r.fitted == "Fu fatto nel 1652." and r.model_fits and r.fits
    assert not any(f.name == "cut-word" for f in r.flags)


def test_when_every_fitted_candidate_cuts_a_word_the_shortest_whole_one_is_flagged() -> None:
    doc = parse_document(_BUILT, "srt")
    backend = _Scripted(
        ["Fu costito nel 1652.", "Fu costiata nel 1652"],
        ["Questo palazzo fu costruito nel 1652.", "Fu costruito nel 1652."],
    )
    result = translate_document(doc, backend, _opts(ratio=1.0))
    (r,) = result.segments
    # never a cut word: the shortest whole unconstrained candidate, over budget and flagged
    assert r.fitted == "Fu costruito nel 1652." and not r.model_fits
    assert char_length(r.fitted) > r.budget.chars  # type: ignore[union-attr]
    assert [f.name for f in r.flags] == ["over-budget"]
    assert r.unconstrained == "Questo palazzo fu costruito nel 1652."  # the comparison: the best
    assert "costit" not in render_document(result.document)


def test_markdown_markup_a_model_writes_is_escaped_not_obeyed() -> None:
    from markdown_it import MarkdownIt

    source = "# Title\n\nA plain paragraph here.\n\n- one item\n"
    doc = parse_document(source, "markdown")
    said = "- *tutto* [qui](x) <b>1. # & &amp; |"
    backend = _Scripted([said] * 5, [said] * 5)
    result = translate_document(doc, backend, _opts(ratio=9.0, compare=False))
    written = render_document(result.document)
    md = MarkdownIt("commonmark").enable("table").enable("strikethrough")
    kinds = [t.type for t in md.parse(written)]
    assert kinds == [t.type for t in md.parse(source)]  # no list, emphasis, link or tag added
    # each block shows the model's characters as they were, escapes rendered away
    inline = [t for t in md.parse(written) if t.type == "inline"]
    assert ["".join(c.content for c in tok.children or []) for tok in inline] == [said] * 3


def test_a_pipe_a_model_writes_into_a_table_cell_adds_no_cell() -> None:
    from markdown_it import MarkdownIt

    source = "| Name | Role |\n|---|---|\n| The cat | The boss |\n"
    doc = parse_document(source, "markdown")
    said = "gatto | capo"
    backend = _Scripted([said] * 5, [said] * 5)
    written = render_document(
        translate_document(doc, backend, _opts(ratio=9.0, compare=False)).document
    )
    md = MarkdownIt("commonmark").enable("table")
    assert [t.type for t in md.parse(written)] == [t.type for t in md.parse(source)]  # 2 × 2 cells
    cells = [t for t in md.parse(written) if t.type == "inline"]
    assert ["".join(c.content for c in t.children or []) for t in cells] == [said] * 4
