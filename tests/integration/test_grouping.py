"""Sentences across cues stay whole: whole, re-split, re-translated, and cue by cue last.

Also the markup and budget fixes the grouping depends on: song lines and sound effects are
units of their own, dialogue dashes count against the speed limit, too-short cues are flagged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from doubles import ToyBackend, toy_translate

from fitsub.backend import Candidate, Request
from fitsub.budget import Limits, limits_for
from fitsub.cli.report import result_to_dict
from fitsub.document import Document
from fitsub.formats import parse_document, read_document
from fitsub.markup import protect, visible_text
from fitsub.pipeline import (
    KEPT_WHOLE,
    PER_CUE,
    RESPLIT,
    RETRANSLATED,
    SINGLE,
    WHOLE,
    TranslateOptions,
    translate_document,
)
from fitsub.pipeline import (
    summarize_results as summarize,
)
from fitsub.quality.score import NO_SCORING
from fitsub.units import char_length

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


class ScriptedBackend:
    """A model whose candidates for a source are given (best first), else the toy language.

    Under a hard budget only the candidates within it are returned; when none is, the shortest
    is, flagged as not fitting (as the real search does).
    """

    lexicon = links = None  # no word resources (TranslationBackend.lexicon, .links)

    name = "scripted"

    def __init__(self, script: Mapping[str, Sequence[str]]) -> None:
        self.script = script
        self.calls: list[Request] = []

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        out = []
        for req in requests:
            self.calls.append(req)
            cands = list(self.script.get(req.text, [toy_translate(req.text)]))
            if req.max_chars is not None:
                within = [c for c in cands if char_length(c) <= req.max_chars]
                if not within:
                    out.append([Candidate(min(cands, key=char_length), -99.0, fits=False)])
                    continue
                cands = within
            out.append([Candidate(c, -float(k)) for k, c in enumerate(cands[:n_best])])
        return out


def _srt(*cues: tuple[int, int, str]) -> Document:
    blocks = [
        f"{k}\n00:00:{a // 1000:02d},{a % 1000:03d} --> 00:00:{b // 1000:02d},{b % 1000:03d}\n{t}\n"
        for k, (a, b, t) in enumerate(cues, start=1)
    ]
    return parse_document("\n".join(blocks), "srt")


def _opts(limits: Limits | None = None, **kw: object) -> TranslateOptions:
    return TranslateOptions(lang="it", limits=limits or limits_for("it"), **kw)  # type: ignore[arg-type]


def test_a_three_cue_sentence_stays_one_group_shared_at_word_boundaries() -> None:
    doc = read_document(SAMPLES / "talk.srt")
    backend = ToyBackend()
    result = translate_document(doc, backend, _opts(limits_for("it", cps=40), ratio=2.0))
    sentence = "Last year I went to Rome with my sister and we ate a lot of pizza."
    asked = [r for r in backend.calls if "Last year" in r.text]
    # one unconstrained request; its translation fits the three cues: kept, never re-fitted
    assert [(r.text, r.max_chars) for r in asked] == [(sentence, None)]
    by_id = {r.id: r for r in result.segments}
    group = [by_id[i] for i in ("7", "8", "9")]
    assert len({r.group for r in group}) == 1
    assert [r.group_path for r in group] == [WHOLE] * 3
    assert not any(r.refitted for r in group)
    # the translation is shared at word boundaries: the three parts are its words, in order
    assert " ".join(r.fitted for r in group).split() == toy_translate(sentence).split()
    assert all(r.fitted and r.fits for r in group)
    assert [s.id for s in result.document.segments] == [s.id for s in doc.segments]
    summary = summarize(result.segments)
    assert (summary.kept_whole, summary.multi_cue_sentences) == (1, 1)
    assert summary.group_paths[WHOLE] == 1
    assert result_to_dict(group[0])["group_path"] == WHOLE


def test_per_cue_translates_each_cue_alone_and_differs_from_the_default() -> None:
    doc = read_document(SAMPLES / "talk.srt")
    grouped = translate_document(doc, ToyBackend(), _opts(limits_for("it", cps=40), ratio=2.0))
    backend = ToyBackend()
    per_cue = translate_document(
        doc, backend, _opts(limits_for("it", cps=40), ratio=2.0, per_cue=True)
    )
    assert "Last year I went to Rome" in [r.text for r in backend.calls]
    assert not any("Rome with my sister" in r.text for r in backend.calls)
    by_id = {r.id: r for r in per_cue.segments}
    assert [by_id[i].group_path for i in ("7", "8", "9")] == [PER_CUE] * 3
    assert summarize(per_cue.segments).kept_whole == 0
    # the toy language is word by word, so the texts may agree; the paths taken differ
    assert {r.group_path for r in grouped.segments if r.id in ("7", "8", "9")} == {WHOLE}


def test_an_overflowing_split_is_re_translated_tighter_not_per_cue() -> None:
    # ratio 1.0: the toy translation of the whole sentence fills the group's budget, and no
    # split at word boundaries fits every cue (the "1-character overflow")
    doc = read_document(SAMPLES / "talk.srt")
    backend = ToyBackend()
    result = translate_document(doc, backend, _opts(ratio=1.0, compare=False))
    by_id = {r.id: r for r in result.segments}
    group = [by_id[i] for i in ("7", "8", "9")]
    assert [r.group_path for r in group] == [RETRANSLATED] * 3
    assert all(r.fits for r in group)
    asked = [r.max_chars for r in backend.calls if r.text.startswith("Last year I went to Rome w")]
    total = sum(r.budget.chars for r in group if r.budget is not None) + 2
    assert asked[0] is None  # the unconstrained translation first: too long for the cues
    assert asked[1] == total and len(asked) >= 3 and all(a < total for a in asked[2:])
    # and never cue by cue
    assert "Last year I went to Rome" not in [r.text for r in backend.calls]


def test_a_split_that_breaks_a_cue_layout_is_re_split() -> None:
    # budgets 24 / 31 / 20 (speed, 10 characters per second); two lines of 16 characters
    doc = _srt(
        (0, 2400, "My older brother"),
        (2500, 5600, "lives in a very small house"),
        (5700, 7700, "near the sea."),
    )
    sentence = "My older brother lives in a very small house near the sea."
    fitted = "Il mio fratello maggiore abita in una piccolissima casa vicino al mare."
    backend = ScriptedBackend({sentence: [fitted]})
    limits = Limits(cpl=16, lines=2, cps=10.0)
    result = translate_document(doc, backend, _opts(limits, ratio=None, compare=False))
    assert [r.budget.chars for r in result.segments if r.budget] == [24, 31, 20]
    assert [r.group_path for r in result.segments] == [RESPLIT] * 3
    # "abita in una piccolissima casa" fits 31 characters but not two lines of 16
    assert [r.fitted for r in result.segments] == [
        "Il mio fratello maggiore",
        "abita in una piccolissima",
        "casa vicino al mare.",
    ]
    for seg in result.document.segments:
        assert all(char_length(line) <= 16 for line in seg.text.split("\n"))
        assert len(seg.text.split("\n")) <= 2
    assert len(backend.calls) == 1  # no re-translation was needed


def test_the_first_candidate_that_splits_is_kept_before_any_tighter_request() -> None:
    doc = _srt((0, 2000, "When we arrived"), (2100, 4000, "the train had left."))
    sentence = "When we arrived the train had left."
    backend = ScriptedBackend(
        {
            sentence: [
                "Immediatamente dopo il treno era partito.",  # 41: the budget, no split fits
                "Arrivati, il treno era partito.",  # 31
            ]
        }
    )
    result = translate_document(doc, backend, _opts(ratio=1.2, compare=False))
    assert [r.budget.chars for r in result.segments if r.budget] == [18, 22]
    # the best candidate does not split into the cues; the second does: it wins at once
    assert [r.group_path for r in result.segments] == [WHOLE] * 2
    assert [r.fitted for r in result.segments] == ["Arrivati, il", "treno era partito."]
    assert [r.max_chars for r in backend.calls] == [None, 41]  # no tighter request needed


def test_a_fitting_candidate_of_the_unconstrained_n_best_is_taken_without_a_search() -> None:
    doc = _srt((0, 3000, "The train had already left."))  # 27 characters: the budget at 1.0
    backend = ScriptedBackend(
        {
            "The train had already left.": [
                "Il treno era già partito da ore.",
                "Il treno era partito.",
            ]
        }
    )
    result = translate_document(doc, backend, _opts(ratio=1.0, compare=True))
    (seg,) = result.segments
    assert seg.budget is not None and seg.budget.chars == 27
    assert (seg.fitted, seg.fits, seg.refitted) == ("Il treno era partito.", True, True)
    assert seg.unconstrained == "Il treno era già partito da ore."  # the comparison is unchanged
    assert [r.max_chars for r in backend.calls] == [None]  # no request under the budget


def test_an_n_best_candidate_that_cuts_a_word_still_goes_to_the_search() -> None:
    doc = _srt((0, 3000, "The train had already left."))
    backend = ScriptedBackend(
        {"The train had already left.": ["Il treno era già partito da ore.", "Il treno era part"]}
    )
    result = translate_document(doc, backend, _opts(ratio=1.0, compare=False))
    assert result.segments[0].fitted != "Il treno era part"
    assert [r.max_chars for r in backend.calls][:2] == [None, 27]  # searched under the budget


def test_a_flagged_unconstrained_line_is_searched_not_served_from_the_n_best() -> None:
    # the first candidate changes the number (a flag of its own): its words are the search's
    # business, so the n-best's fitting second candidate is not taken without a search
    doc = _srt((0, 3000, "I have 3 cats at home."))  # 22 characters
    backend = ScriptedBackend(
        {"I have 3 cats at home.": ["Ho 4 gatti a casa mia, sai.", "Ho 3 gatti a casa."]}
    )
    translate_document(doc, backend, _opts(ratio=1.0, compare=False))
    assert [r.max_chars for r in backend.calls][:2] == [None, 22]


def test_cue_by_cue_is_the_last_resort() -> None:
    # the model only ever answers the joined sentence with one word: no split can exist
    doc = _srt((0, 2000, "When we arrived"), (2100, 4000, "the train had left."))
    backend = ScriptedBackend({"When we arrived the train had left.": ["Arrivederci"]})
    result = translate_document(doc, backend, _opts(ratio=1.5, compare=True))
    assert [r.group_path for r in result.segments] == [PER_CUE] * 2
    assert [r.fitted for r in result.segments] == [
        toy_translate("When we arrived"),
        toy_translate("the train had left."),
    ]
    assert all(r.unconstrained is not None for r in result.segments)
    summary = summarize(result.segments)
    assert (summary.kept_whole, summary.multi_cue_sentences) == (0, 1)
    assert summary.group_paths[PER_CUE] == 1
    assert set(KEPT_WHOLE) == {WHOLE, RESPLIT, RETRANSLATED}


def test_talk_vtt_every_cue_keeps_its_own_words() -> None:
    # issue: "♪ Row, row, row your boat ♪" was joined to "I am very hungry." and the words of
    # the two cues were shared: "I am very hungry." vanished, "your boat" moved
    doc = read_document(SAMPLES / "talk.vtt")
    backend = ToyBackend()
    result = translate_document(doc, backend, _opts(ratio=3.0, compare=False))
    groups: dict[int, list[int]] = {}
    for r in result.segments:
        groups.setdefault(r.group, []).append(r.index)
    for r in result.segments:
        if r.budget is None or len(groups[r.group]) > 1 or "\n" in doc.segments[r.index].text:
            continue
        # a cue alone: its output is the translation of its own words, all of them
        assert r.fitted == toy_translate(r.source), r
        assert r.group_path == SINGLE
    texts = [s.text for s in result.document.segments]
    song = texts[[s.text for s in doc.segments].index("♪ Row, row, row your boat ♪")]
    assert song == f"♪ {toy_translate('Row, row, row your boat')} ♪"
    hungry = texts[[s.text for s in doc.segments].index("<c.yellow>I am very hungry.</c>")]
    assert hungry == f"<c.yellow>{toy_translate('I am very hungry.')}</c>"
    assert "Row, row, row your boat" in [r.text for r in backend.calls]
    assert not any("boat I am" in r.text for r in backend.calls)


def test_dialogue_dashes_count_against_the_reading_speed() -> None:
    doc = read_document(SAMPLES / "talk.srt")
    result = translate_document(doc, ToyBackend(), _opts(ratio=1.5, compare=False))
    for r, seg, out in zip(result.segments, doc.segments, result.document.segments, strict=True):
        prot = protect(seg.text, "srt")
        if not prot.is_dialogue or r.budget is None:
            continue
        assert r.budget.markup_chars == 4
        shown = char_length(visible_text(out.text, "srt"))
        assert seg.duration_ms is not None
        if r.fits:
            assert shown <= math.floor(17 * seg.duration_ms / 1000)


def test_a_cue_too_short_to_read_is_flagged_in_results_and_json() -> None:
    doc = _srt((0, 600, "Thank you so much."), (700, 3000, "Please follow me."))
    result = translate_document(doc, ToyBackend(), _opts(ratio=1.0))
    short, fine = result.segments
    assert short.budget is not None and short.budget.too_short
    assert fine.budget is not None and not fine.budget.too_short
    assert result_to_dict(short)["budget"]["too_short"] is True
    assert summarize(result.segments).flagged >= 1


def test_markup_the_output_cannot_carry_marks_the_cue() -> None:
    doc = _srt((0, 3000, "If a<b, swap ♪ them. <i>Now!</i>"), (3100, 6000, "Fine."))
    result = translate_document(doc, ToyBackend(), _opts(ratio=3.0))
    first, second = result.segments
    assert first.source == "If a<b, swap them. Now!"  # every word kept (issue 18)
    assert first.markup_lost == ("♪",) and second.markup_lost == ()  # a song sign mid-line
    assert result_to_dict(first)["markup_lost"] == ["♪"]
    assert result.warnings[1:] == [NO_SCORING] and "♪" in result.warnings[0]  # toy: no score
    # the tag goes on the translation of its words, in a cue grouped with the next or not
    assert result.document.segments[0].text.endswith("themino. <i>Adesso!</i>")
    assert "swapino" in result.document.segments[0].text
