"""The per-segment table in a terminal: the columns that fit its width, every fitted text whole."""

from __future__ import annotations

import dataclasses

import pytest
from rich.console import Console
from table_helpers import table_rows as _rows

from fitsub.budget import Budget, SpeechUnit, SpeechWindow
from fitsub.cli.report import comparison_tsv
from fitsub.cli.results_table import COLUMNS, comparison_table, table_columns
from fitsub.lengthpred.policy import Requested
from fitsub.pipeline import SegmentResult, summarize_results
from fitsub.quality.flags import Flag

ALL_HEADERS = [c.header for c in COLUMNS.values()]


def _budget(chars: int, too_small: bool = False) -> Budget:
    return Budget(
        source_chars=chars + 4,
        ratio_limit=chars,
        layout_limit=84,
        speed_limit=None,
        chars=chars,
        binding="ratio",
        too_small=too_small,
    )


def _result(
    i: int, fitted: str, flags: tuple[str, ...] = (), seg_id: str | None = "x"
) -> SegmentResult:
    return SegmentResult(
        index=i,
        id=None if seg_id is None else f"{seg_id}{i + 1}",
        source="an English line of some length",
        budget=_budget(len(fitted) + 2, too_small=i == 3),
        fitted=fitted,
        unconstrained=fitted + " e altro",
        flags=tuple(Flag(name, "") for name in flags),
        quality=0.5,
        requested=Requested(len(fitted) + 2, "budget"),
    )


TEXTS = [
    ("Grazie per venire a mio parlare oggi, amici.", ()),
    ("È libero? Sì, prego.", ("dropped-content", "low-quality")),
    ("Per favore, spegnete i vostri telefoni\nprima dello spettacolo.", ("over-budget",)),
    ("Anelli di 5", ("number-changed", "low-quality")),
    ("Non mi piace il caffè, ma mi piace molto il tè verde.", ()),
]


def _results(seg_id: str | None = "x") -> list[SegmentResult]:
    return [_result(i, text, flags, seg_id) for i, (text, flags) in enumerate(TEXTS)]


def _render(results: list[SegmentResult], width: int) -> list[str]:
    console = Console(width=width, record=True, color_system=None, legacy_windows=False)
    console.print(comparison_table(results, title="talk.srt → talk.it.srt", width=width))
    return console.export_text().splitlines()


@pytest.mark.parametrize("width", [60, 80])
def test_a_narrow_terminal_shows_id_fits_flags_and_every_fitted_text_whole(width: int) -> None:
    lines = _render(_results(), width)
    header, rows = _rows(lines)
    assert header == ["id", "fits", "flags", "fitted text"]
    assert all(len(line) <= width for line in lines)
    assert [r[0] for r in rows] == [f"x{i + 1}" for i in range(len(TEXTS))]
    assert [r[3] for r in rows] == [text.replace("\n", " ") for text, _ in TEXTS]
    # the limit column is not shown: its notes follow the flags
    assert rows[3][2] == "number-changed, low-quality, budget too small"
    assert rows[1][2] == "dropped-content, low-quality"


def test_wider_terminals_show_more_columns_in_priority_order() -> None:
    shown = {w: _rows(_render(_results(), w))[0] for w in (80, 100, 160)}
    assert shown[100] == ["id", "fits", "quality", "flags", "fitted text"]
    assert len(shown[80]) < len(shown[100]) < len(shown[160])
    # the lowest in priority stay out: the limit (its notes then follow the flags), the
    # source's length and the index (the id says it)
    assert shown[160] == [
        "id", "budget", "asked", "unconstr.", "fits", "fitted", "fits", "quality", "flags",
        "fitted text",
    ]  # fmt: skip
    for w in (100, 160):
        lines = _render(_results(), w)
        assert all(len(line) <= w for line in lines)
        assert [r[-1] for r in _rows(lines)[1]] == [t.replace("\n", " ") for t, _ in TEXTS]


def test_the_limit_column_keeps_its_notes_and_the_flags_their_own() -> None:
    header, rows = _rows(_render(_results(), 200))
    assert rows[3][header.index("limit")] == "ratio (budget too small)"
    assert rows[3][header.index("flags")] == "number-changed, low-quality"


def test_no_width_shows_every_column_in_the_wide_order() -> None:
    assert table_columns(_results(), None) == list(COLUMNS)
    console = Console(width=400, record=True, color_system=None)
    console.print(comparison_table(_results(), width=None))
    header, rows = _rows(console.export_text().splitlines())
    assert header == ALL_HEADERS
    assert rows[0][:4] == ["1", "x1", "50", "46"]  # index, id, source, budget


def test_a_column_empty_in_every_row_is_left_out() -> None:
    unscored = [dataclasses.replace(r, quality=None) for r in _results()]
    assert "quality" in table_columns(_results(), 100)
    assert "quality" not in table_columns(unscored, 100)
    assert "quality" in table_columns(unscored, None)  # all of them: --wide


def test_segments_without_ids_are_named_by_their_index() -> None:
    header, rows = _rows(_render(_results(seg_id=None), 80))
    assert header == ["#", "fits", "flags", "fitted text"]
    assert [r[0] for r in rows] == ["1", "2", "3", "4", "5"]


def test_the_tsv_keeps_every_column_whatever_the_width() -> None:
    tsv = comparison_tsv(_results(), summarize_results(_results()))
    head, *lines = tsv.splitlines()
    assert len(head.split("\t")) == 13
    assert (
        lines[2].split("\t")[-1]
        == "Per favore, spegnete i vostri telefoni\\nprima dello spettacolo."
    )


def _dubbed(window: SpeechWindow, syllables: int) -> SegmentResult:
    return dataclasses.replace(_results()[0], window=window, syllables=syllables)


WINDOW = SpeechWindow(
    seconds=2.0, target_syllables=14.0, max_syllables=14, min_syllables=13, max_chars=38,
    min_chars=35,
)  # fmt: skip


@pytest.mark.parametrize(
    ("unit", "budget", "fitted"),
    [("seconds", "1.8-2.0 s", "1.9 s"), ("syllables", "13-14 syl", "13 syl")],
)
def test_a_dubbing_budget_is_shown_in_its_unit(unit: SpeechUnit, budget: str, fitted: str) -> None:
    results = [_dubbed(WINDOW, 13)]
    console = Console(width=400, record=True, color_system=None)
    console.print(comparison_table(results, width=None, unit=unit))
    header, rows = _rows(console.export_text().splitlines())
    assert rows[0][header.index("budget")] == budget
    assert rows[0][header.index("fitted")] == fitted  # 13 syllables at 7 a second: 1.9 s
    assert rows[0][header.index("limit")] == "speaking window"
    assert "unconstr. chars" in header and "asked chars" in header  # still characters
    # without a unit (no dubbing budget) the same row counts characters
    plain = Console(width=400, record=True, color_system=None)
    plain.print(comparison_table(results, width=None))
    header, rows = _rows(plain.export_text().splitlines())
    assert rows[0][header.index("budget")] == str(results[0].budget.chars)  # type: ignore[union-attr]
