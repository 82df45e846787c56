"""Case classes of source tokens: what an uncased encoder (all-MiniLM-L6-v2 lowercases its
WordPiece input) no longer sees, given back to the model as a learned embedding per token.

The class of a token comes from the original, cased text under the token's character offsets
(a fast tokenizer's `offset_mapping`): its letters all lower case, the first one upper case
(`Capitalised`, a single upper-case letter included), two or more letters all upper case
(`ALLCAPS`), or no letters at all (digits, punctuation, the special tokens, whose offsets are
empty).
"""

from __future__ import annotations

from collections.abc import Sequence

LOWER, CAPITALISED, ALLCAPS, NO_LETTERS = 0, 1, 2, 3
N_CASES = 4
CASE_NAMES = ("lower", "Capitalised", "ALLCAPS", "no letters")


def case_class(piece: str) -> int:
    """The case class of the cased text of one token."""
    letters = [c for c in piece if c.isalpha()]
    if not letters:
        return NO_LETTERS
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return ALLCAPS
    if letters[0].isupper():
        return CAPITALISED
    return LOWER


def case_classes(text: str, offsets: Sequence[tuple[int, int]]) -> list[int]:
    """The case class of each token of `text`, from its (start, end) character offsets."""
    return [case_class(text[start:end]) for start, end in offsets]


def pack(ids: Sequence[int], cases: Sequence[int]) -> list[int]:
    """Token ids and case classes as one id per token, `id * N_CASES + case` (0 stays padding
    when the encoder's padding id is 0 and its class `LOWER`)."""
    return [i * N_CASES + c for i, c in zip(ids, cases, strict=True)]
