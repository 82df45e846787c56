"""The pipeline's steps, each alone: plan, units of work, the runner, sharing back, assembling."""

from __future__ import annotations

from doubles import ToyBackend

from fitsub.budget import limits_for
from fitsub.formats import parse_document
from fitsub.pipeline import TranslateOptions
from fitsub.pipeline.assemble import assemble
from fitsub.pipeline.plan import plan, sentence_groups
from fitsub.pipeline.run import Runner
from fitsub.pipeline.share import RESPLIT, SINGLE, WHOLE, CueFit, CueTexts
from fitsub.pipeline.work import make_unit, units_of

SRT = (
    "1\n00:00:01,000 --> 00:00:03,000\nWhen we arrived at the station,\n\n"
    "2\n00:00:03,000 --> 00:00:05,000\nthe train had already left.\n\n"
    "3\n00:00:06,000 --> 00:00:08,000\n- Hi.\n- Hello.\n"
)
OPTS = TranslateOptions(lang="it", limits=limits_for("it"), ratio=1.0)  # isometric mode
SLOT_OPTS = TranslateOptions(lang="it", limits=limits_for("it"))  # no ratio: the cue's slot


def test_plan_groups_a_sentence_across_cues_and_splits_a_dialogue_into_turns() -> None:
    doc = parse_document(SRT, "srt")
    planned = plan(doc, OPTS)
    assert [p.budget.chars for p in planned if p.budget] == [31, 27, 10]
    assert {p.budget.mode for p in planned if p.budget} == {"isometric"}
    # slot mode: no ratio, the budget is the slot (17 cps × 2 s; the dialogue's dashes count)
    slot = [p.budget for p in plan(doc, SLOT_OPTS) if p.budget]
    assert [(b.chars, b.binding, b.mode) for b in slot] == [(34, "speed", "slot")] * 2 + [
        (30, "speed", "slot")
    ]
    groups = sentence_groups(planned, doc)
    assert groups == [[0, 1], [2]]
    units = units_of(planned, groups, doc, OPTS)
    # the sentence's budget is its cues' and the space between; the turns share theirs ("Hi.": 3)
    assert [(u.cues, u.budget) for u in units] == [((0, 1), 31 + 27 + 1), ((2,), 3), ((2,), 6)]
    assert [u.turn for u in units] == [0, 0, 1]


def test_the_runner_batches_requests_and_counts_progress() -> None:
    seen: list[tuple[int, int]] = []
    backend = ToyBackend()
    unit = make_unit("the home", 20, (0,), (20,), 0, None)
    runner = Runner(backend, batch_size=2, progress=lambda done, total: seen.append((done, total)))
    runner.total = 6
    free = runner.free([unit] * 3)
    fitted = runner.translate([unit.request(unit.budget)] * 3)
    assert len(fitted) == 3 and len(free) == 3
    assert seen == [(2, 6), (3, 6), (5, 6), (6, 6)]
    assert backend.calls[0].max_chars is None and backend.calls[3].max_chars == 20


def test_a_translation_is_shared_in_proportion_to_the_cues_budgets() -> None:
    doc = parse_document(SRT, "srt")
    planned = plan(doc, OPTS)
    fit = CueFit(planned, doc.timed, OPTS.limits, OPTS.lang)
    unit = make_unit("x", 59, (0, 1), (31, 27), 0, None)
    parts, path = fit.share(unit, "Quando siamo arrivati alla stazione, il treno partì.")
    assert path == WHOLE and parts == ["Quando siamo arrivati alla", "stazione, il treno partì."]
    # no split fits the 27 characters of the second cue: the sentence is left to re-translation
    too_long = "Siamo arrivati alla stazione centrale, il treno era partito."
    assert fit.share(unit, too_long) == (None, RESPLIT)


def test_assemble_restores_markup_and_keeps_untranslated_cues() -> None:
    doc = parse_document(SRT, "srt")
    planned = plan(doc, OPTS)
    got = CueTexts()
    for turn, text in enumerate(["Ciao.", "Salve."]):
        unit = make_unit("x", 4, (2,), (4,), 1, None, turn)
        got.accept(unit, [text], True, (), None, SINGLE)
    result = assemble(doc, planned, got, OPTS, known=())
    assert result.document.segments[2].text == "- Ciao.\n- Salve."
    assert result.document.segments[0].text == doc.segments[0].text  # nothing accepted for it
    assert [r.translated for r in result.segments] == [False, False, True]
    assert result.segments[2].fitted == "Ciao. Salve."
