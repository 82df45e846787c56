"""The alternatives kept for the reviewer: the distinct candidates that fit (at most 4, best
score first, each with its length, score and flags) and the unconstrained translation; carried
into the JSON report and the review page; the output unchanged by them."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

import pytest
from doubles import NBestToyBackend
from review_helpers import page_data

from fitsub.backend import Candidate
from fitsub.budget import limits_for
from fitsub.cli.report import alternatives_of, result_to_dict
from fitsub.formats import document_bytes, parse_document
from fitsub.pipeline import TranslateOptions, run, translate_document
from fitsub.pipeline.alternatives import (
    FITTED,
    MAX_FITTING,
    UNCONSTRAINED,
    Alternative,
    offer,
)
from fitsub.pipeline.work import Unit, make_unit
from fitsub.review.page import review_page

SRT = """1
00:00:01,000 --> 00:00:05,000
We go home now and this is it.

2
00:00:05,000 --> 00:00:09,000
Yes, you and I go home now.

3
00:00:09,000 --> 00:00:10,600
We go home now, yes.

4
00:00:11,000 --> 00:00:14,000
- Is this it?
- Yes, go.
"""


def translated(per_cue: bool = True) -> tuple[object, list[object]]:
    doc = parse_document(SRT, "srt")
    opts = TranslateOptions(lang="it", limits=limits_for("it"), ratio=1.6, per_cue=per_cue)
    result = translate_document(doc, NBestToyBackend(), opts)
    return result.document, list(result.segments)


def _key(text: str) -> str:
    return " ".join(text.split())


def test_each_cue_gets_distinct_fitting_alternatives_by_score_and_its_unconstrained_one() -> None:
    _, results = translated()
    offered = [r for r in results if r.alternatives]  # type: ignore[attr-defined]
    assert len(offered) == 3  # cues 1-3; the dialogue cue 4 gets none (its turns are apart)
    for r in offered:
        alts: tuple[Alternative, ...] = r.alternatives  # type: ignore[attr-defined]
        fitted = [a for a in alts if a.kind == FITTED]
        assert 1 <= len(fitted) <= MAX_FITTING
        assert len({_key(a.text) for a in alts}) == len(alts)  # distinct, spaces aside
        assert all(a.fits and a.chars <= r.budget.chars for a in fitted)  # type: ignore[attr-defined]
        assert [a.score for a in fitted] == sorted((a.score for a in fitted), reverse=True)
        assert alts[-1].kind == UNCONSTRAINED and alts[-1].text == r.unconstrained  # type: ignore[attr-defined]
        assert [a.kind for a in alts].count(UNCONSTRAINED) == 1
    cue3 = offered[2].alternatives  # type: ignore[attr-defined]
    assert not cue3[-1].fits and any(f.name == "over-budget" for f in cue3[-1].flags)
    assert [a.text for a in cue3[:-1]] == ["Noi andiamo casa adesso,", "andiamo casa adesso, sì."]
    # "Ecco, Noi andiamo casa adesso, sì." (34 characters) is over the budget of 27: not offered


def test_recording_them_changes_no_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """The alternatives are recorded beside the choice, never instead of it: the same bytes
    and results when nothing is recorded."""
    doc = parse_document(SRT, "srt")
    opts = TranslateOptions(lang="it", limits=limits_for("it"), ratio=1.6, per_cue=True)
    offered = translate_document(doc, NBestToyBackend(), opts)
    monkeypatch.setattr(run, "offer", lambda *a, **k: None)
    monkeypatch.setattr(run, "offer_kept", lambda *a, **k: None)
    plain = translate_document(doc, NBestToyBackend(), opts)
    assert all(r.alternatives == () for r in plain.segments)
    assert sum(len(r.alternatives) for r in offered.segments) > 0
    assert document_bytes(offered.document) == document_bytes(plain.document)
    assert [dataclasses.replace(r, alternatives=()) for r in offered.segments] == plain.segments


def test_a_sentence_over_several_cues_gets_no_alternatives() -> None:
    srt = (
        "1\n00:00:01,000 --> 00:00:04,000\nWe go home now\n\n"
        "2\n00:00:04,500 --> 00:00:08,000\nand this is it.\n"
    )
    opts = TranslateOptions(lang="it", limits=limits_for("it"), ratio=2.0)
    result = translate_document(parse_document(srt, "srt"), NBestToyBackend(), opts)
    assert {r.group_path for r in result.segments} == {"whole"}
    assert all(r.alternatives == () for r in result.segments)


def test_the_report_carries_them_and_an_older_report_still_loads() -> None:
    _, results = translated()
    row = result_to_dict(results[0])  # type: ignore[arg-type]
    assert row["alternatives"][-1]["kind"] == UNCONSTRAINED
    assert alternatives_of(row) == tuple(
        dataclasses.replace(a, score=round(a.score, 4))
        for a in results[0].alternatives  # type: ignore[attr-defined]
    )
    older = {k: v for k, v in row.items() if k != "alternatives"}
    assert alternatives_of(older) == ()


def test_the_page_offers_them_laid_out_as_apply_writes_them() -> None:
    doc, results = translated()
    source = parse_document(SRT, "srt")
    page = review_page(doc, results, source=source, limits=limits_for("it"), lang="it")  # type: ignore[arg-type]
    rows = page_data(page)["rows"]
    first, alts = rows[0], results[0].alternatives  # type: ignore[attr-defined]
    assert first["fit"] == "Noi andiamo casa adesso e questo è esso."  # the unconstrained, kept
    assert [a["text"].replace("\n", " ") for a in first["alts"]] == [a.text for a in alts[:-1]]
    assert all(set(a) == {"text", "n", "score", "fits", "flags", "kind"} for a in first["alts"])
    assert all(a["fits"] and a["n"] <= first["budget"] for a in first["alts"])
    assert first["unc_alt"]["text"] == first["unc_fit"]  # key 0: "use unconstrained"
    third = rows[2]  # the fitted text held is not offered again
    assert third["fit"] == "Noi andiamo casa adesso,"
    assert [a["text"] for a in third["alts"]] == ["andiamo casa adesso, sì."]
    assert third["unc_alt"]["flags"][0][0] == "over-budget"
    assert rows[3]["alts"] == [] and rows[3]["unc_alt"] is None  # the dialogue


class _Fits:
    """A fit check by characters only (what `Fitter.parts` answers for a plain cue)."""

    def __init__(self, budget: int) -> None:
        self.budget = budget

    @property
    def known(self) -> Collection[str]:
        return ()

    def parts(self, u: Unit, text: str) -> tuple[list[str] | None, str]:
        return ([text], "single") if len(text) <= self.budget else (None, "")


def test_offer_keeps_four_distinct_fitting_candidates_best_first() -> None:
    u = make_unit(source="We go home.", budget=12, cues=(0,), cue_budgets=(12,), group=0,
                  glossary=None)  # fmt: skip
    pool = [
        Candidate("Andiamo.", -3.0),
        Candidate("Noi andiamo a casa.", -0.5),  # 19 characters: over 12
        Candidate("A casa.", -1.0),
        Candidate("A  casa.", -1.1),  # the same, spaces aside
        Candidate("Via.", -4.0),
        Candidate("Si va.", -2.0),
        Candidate("Casa.", -5.0),  # the fifth that fits: one too many
        Candidate("Torniamo.", -0.1),  # the unconstrained translation: shown once, last
    ]
    into: dict[int, tuple[Alternative, ...]] = {}
    offer(u, (pool, [Candidate("Torniamo.", -0.1)]), _Fits(12), into)
    assert [(a.text, a.kind) for a in into[0]] == [
        ("A casa.", FITTED),
        ("Si va.", FITTED),
        ("Andiamo.", FITTED),
        ("Via.", FITTED),
        ("Torniamo.", UNCONSTRAINED),
    ]
    assert [a.chars for a in into[0]] == [7, 6, 8, 4, 9]


def test_a_served_answer_offers_its_own_unconstrained_line_when_it_fits_and_is_new() -> None:
    from fitsub.review.page import row_offers

    doc, results = translated()
    first = results[0]  # its unconstrained line fits and is the row's text: not offered again
    offers = row_offers(first, doc, 0, limits=limits_for("it"), lang="it")  # type: ignore[arg-type]
    unc = offers["unc_alt"]["text"]
    assert unc == "Noi andiamo casa adesso e questo è esso." and offers["unc_alt"]["fits"]
    assert unc not in [a["text"] for a in offers["alts"]]
    edited = doc.with_texts(["Altro.", *doc.texts[1:]])  # type: ignore[attr-defined]
    offers = row_offers(first, edited, 0, limits=limits_for("it"), lang="it")  # type: ignore[arg-type]
    assert offers["alts"][0]["text"] == unc and offers["alts"][0]["kind"] == UNCONSTRAINED
    assert len(offers["alts"]) <= MAX_FITTING
    third = results[2]  # an unconstrained line over budget is never offered among alts
    offers = row_offers(third, edited, 2, limits=limits_for("it"), lang="it")  # type: ignore[arg-type]
    assert all(a["kind"] != UNCONSTRAINED for a in offers["alts"])
