"""Case classes of source tokens for the uncased pretrained encoder (bert2rnd.case)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the study's bert2rnd package

import pytest
from bert2rnd.case import (
    ALLCAPS,
    CAPITALISED,
    LOWER,
    N_CASES,
    NO_LETTERS,
    case_class,
    case_classes,
    pack,
)


@pytest.mark.parametrize(
    ("piece", "expected"),
    [
        ("rome", LOWER),
        ("Rome", CAPITALISED),
        ("I", CAPITALISED),
        ("NASA", ALLCAPS),
        ("TV", ALLCAPS),
        ("iPhone", LOWER),
        ("McDonald", CAPITALISED),
        ("Élise", CAPITALISED),
        ("ÉTÉ", ALLCAPS),
        ("42", NO_LETTERS),
        ("", NO_LETTERS),
        (",", NO_LETTERS),
        ("3D", CAPITALISED),
    ],
)
def test_case_class(piece: str, expected: int) -> None:
    assert case_class(piece) == expected


def test_case_classes_follow_offsets() -> None:
    text = "Hello NASA, rome"
    # [CLS] hello nasa , rome [SEP] as a fast tokenizer gives them (specials: empty spans)
    offsets = [(0, 0), (0, 5), (6, 10), (10, 11), (12, 16), (0, 0)]
    assert case_classes(text, offsets) == [
        NO_LETTERS, CAPITALISED, ALLCAPS, NO_LETTERS, LOWER, NO_LETTERS,
    ]  # fmt: skip


def test_word_pieces_of_one_word_get_their_own_class() -> None:
    # "McDonald" split as mc ##don ##ald: each piece looks at its own characters
    assert case_classes("McDonald", [(0, 2), (2, 5), (5, 8)]) == [CAPITALISED, CAPITALISED, LOWER]


def test_pack_round_trips_and_keeps_padding_zero() -> None:
    ids, cases = [101, 7592, 0], [NO_LETTERS, ALLCAPS, LOWER]
    packed = pack(ids, cases)
    assert [p // N_CASES for p in packed] == ids
    assert [p % N_CASES for p in packed] == cases
    assert packed[-1] == 0
    with pytest.raises(ValueError):
        pack([1, 2], [LOWER])
