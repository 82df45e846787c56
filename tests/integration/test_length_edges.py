"""Budgets at their edges, pinned to exact values: dialogue dashes, subword targets, slides.

Each test here fails under a one-line change of the rule it names (`tools/mutation_probe.py`
applies such changes and runs these tests)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch
from cli_helpers import run
from doubles import ToyBackend
from factories import tiny_checkpoint

from fitsub.backend import Request
from fitsub.budget import limits_for
from fitsub.formats import parse_document
from fitsub.nmt.backend import NMTBackend
from fitsub.pipeline import TranslateOptions, translate_document

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

DIALOGUE = """1
00:00:01,000 --> 00:00:03,000
- Yes, I know.
- No, you do not.

2
00:00:04,000 --> 00:00:06,000
Yes, I know. No, you do not.
"""


def budgets(path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> list[dict[str, Any]]:
    """`fitsub budget PATH --json FLAGS`: each translatable segment's budget."""
    capsys.readouterr()
    assert run(["budget", "--lang", "it", str(path), "--json", *flags]) == 0
    rows = json.loads(capsys.readouterr().out)["segments"]
    return [r["budget"] for r in rows if r["budget"] is not None]


def test_dialogue_dashes_count_against_layout_and_reading_speed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    srt = tmp_path / "dialogue.srt"
    srt.write_text(DIALOGUE, "utf-8")
    flags = ("--lang", "it", "--ratio", "5", "--cpl", "42", "--lines", "2", "--cps", "17")
    dialogue, plain = budgets(srt, capsys, *flags)
    assert dialogue["source_chars"] == plain["source_chars"] == 28  # the words alone
    assert (dialogue["markup_chars"], plain["markup_chars"]) == (4, 0)  # "- " twice
    assert (dialogue["layout_limit"], plain["layout_limit"]) == (42 * 2 - 4, 42 * 2)
    assert (dialogue["speed_limit"], plain["speed_limit"]) == (17 * 2 - 4, 17 * 2)
    assert (dialogue["chars"], plain["chars"]) == (30, 34)


def test_dialogue_turns_share_the_budget_left_by_dashes_and_joining_spaces() -> None:
    """Budget 30 (2 s at 17 CPS, less "- " twice); 29 once the turns' joining space is taken,
    shared 12 : 15 by source length → floor(29 × 12 / 27) = 12 and floor(29 × 15 / 27) = 16."""
    doc = parse_document(DIALOGUE.split("\n\n")[0] + "\n", "srt")
    backend = ToyBackend()
    opts = TranslateOptions(lang="it", limits=limits_for("it"), ratio=5.0, compare=False)
    result = translate_document(doc, backend, opts)
    budget = result.segments[0].budget
    assert budget is not None and (budget.chars, budget.markup_chars) == (30, 4)
    asked = [(r.text, r.max_chars) for r in backend.calls]
    # the unconstrained turns first; together they overflow the cue: both fitted again
    assert asked == [("Yes, I know.", None), ("No, you do not.", None)] + [
        ("Yes, I know.", 12),
        ("No, you do not.", 16),
    ]
    lines = result.document.segments[0].text.split("\n")
    assert len(lines) == 2 and all(line.startswith("- ") for line in lines)


@pytest.mark.parametrize("fmt", ["slides.txt", "slides.md", "deck.pptx"])
def test_slides_get_no_subtitle_layout_or_reading_speed(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if fmt == "slides.txt":
        path = tmp_path / fmt
        path.write_text(
            "A slide title that is a good deal longer than one subtitle line could hold\n\n"
            "Short line\n",
            "utf-8",
        )
    else:
        path = SAMPLES / fmt
    wide = budgets(path, capsys, "--lang", "it", "--ratio", "0.8")
    narrow = budgets(path, capsys, "--lang", "it", "--ratio", "0.8", "--cpl", "5", "--lines",
                     "1", "--cps", "1")  # fmt: skip
    assert len(wide) >= 2
    assert narrow == wide  # CPL, lines and CPS are subtitle limits: no effect on slides
    for b in wide:
        assert b["speed_limit"] is None and b["markup_chars"] == 0
        assert b["ratio_limit"] == int(0.8 * b["source_chars"] + 1e-9)
        if fmt == "deck.pptx":  # the box's room, whatever the subtitle limits
            assert b["layout_limit"] is not None and b["layout_limit"] > 5
        else:
            assert b["layout_limit"] is None and b["chars"] == b["ratio_limit"]
    if fmt == "slides.txt":
        assert [b["chars"] for b in wide] == [int(0.8 * 74), int(0.8 * 10)]


@pytest.fixture(scope="module")
def subword_backend(tmp_path_factory: pytest.TempPathFactory) -> NMTBackend:
    """A subword-unit LDPE checkpoint that converts characters at 5 characters a piece."""
    folder = tmp_path_factory.mktemp("subword")
    path = tiny_checkpoint(
        folder, method="ldpe", length_unit="subword", length_dropout=0.0,
        extra={"chars_per_piece": 5.0},
    )  # fmt: skip
    return NMTBackend(path, device="cpu", beam=1)


def asked_pieces(backend: NMTBackend, target_chars: int) -> int:
    """The length (in pieces) the model's decoder is given for a request of `target_chars`."""
    seen: list[torch.Tensor] = []
    decode = backend.model.decode_hidden

    def spy(*args: Any, **kwargs: Any) -> torch.Tensor:
        seen.append(args[3] if len(args) > 3 else kwargs["tgt_len"])
        return decode(*args, **kwargs)

    backend.model.decode_hidden = spy  # type: ignore[method-assign]
    try:
        backend.translate([Request("kato rimè solu", target_chars=target_chars)])
    finally:
        del backend.model.decode_hidden
    assert seen, "the model was never asked to decode"
    asked = {int(v) for v in seen[0].flatten().tolist()}
    assert len(asked) == 1
    return asked.pop()


@pytest.mark.parametrize(
    ("target_chars", "pieces"),
    [(33, 7), (32, 6), (37, 7), (38, 8), (4, 1), (2, 1)],  # 6.6 → 7, 6.4 → 6, ... at least 1
)
def test_subword_model_is_asked_for_the_rounded_piece_count(
    subword_backend: NMTBackend, target_chars: int, pieces: int
) -> None:
    assert subword_backend.chars_per_piece == 5.0
    assert asked_pieces(subword_backend, target_chars) == pieces
