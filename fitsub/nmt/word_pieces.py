"""Which source and output words a forced decode's pieces make, read off the tokenizer alone
(no torch: `fitsub.nmt.attention` and `fitsub.nmt.ct2_score` use them alike).

* **Rarity**: how unfamiliar the English source is to the model, read off the SentencePiece
  unigram model the checkpoint ships (no extra file): the pieces each source word is split
  into (a word seen often in training is one piece, a rare one many) and the word's unigram
  log-probability, the sum of its pieces' scores (`word_rarity`).
* **Output words**: which output word each piece of the forced output belongs to
  (`output_word_index`), for the target-side signals of `fitsub.quality.target`.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

from fitsub.nmt.tokenizer import Tokenizer
from fitsub.units import SPACE_MARK


def word_rarity(
    tokenizer: Tokenizer, ids: Sequence[int]
) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """(pieces, unigram log-probability) of each source word of `ids` with a letter in it: a
    word starts at a piece beginning with `▁`; only its pieces with a letter count ("(Applause)"
    is the two pieces of "Applause"), and its log-probability is the sum of their SentencePiece
    scores (the unigram model's log-probabilities)."""
    words: list[list[int]] = []
    for i, keep in zip(ids, source_positions(tokenizer, ids), strict=True):
        if keep:
            piece = tokenizer.sp.id_to_piece(int(i))
            if piece.startswith(SPACE_MARK) or not words:
                words.append([])
            words[-1].append(int(i))
    unk = tokenizer.unk_id
    lettered = [
        [i for i in w if i == unk or _has_letter(tokenizer.sp.id_to_piece(i))] for w in words
    ]
    kept = [w for w in lettered if w]
    pieces = tuple(len(w) for w in kept)
    logprobs = tuple(float(sum(_piece_score(tokenizer, i) for i in w)) for w in kept)
    return pieces, logprobs


def output_word_index(tokenizer: Tokenizer, ids: Sequence[int]) -> tuple[int, ...]:
    """For each output piece of `ids`, the index of the word it belongs to (a word starts at a
    piece beginning with `▁`, or after a piece without a letter), -1 for a piece without a
    letter (punctuation, digits) and for special tokens (the end of sentence): the grouping
    `fitsub.quality.target` sums a word's log-probability over."""
    out: list[int] = []
    word, open_word = -1, False
    for i in ids:
        i = int(i)
        piece = (
            "" if tokenizer.is_special(i) and i != tokenizer.unk_id else tokenizer.sp.id_to_piece(i)
        )
        if not (i == tokenizer.unk_id or _has_letter(piece)):
            out.append(-1)
            open_word = False
            continue
        if piece.startswith(SPACE_MARK) or not open_word:
            word += 1
            open_word = True
        out.append(word)
    return tuple(out)


def source_positions(tokenizer: Tokenizer, ids: Sequence[int]) -> list[bool]:
    """True at the pieces of the source text itself (an unknown piece included), False at the
    end-of-source token and the length / language tags."""
    return [int(i) == tokenizer.unk_id or not tokenizer.is_special(int(i)) for i in ids]


def _has_letter(piece: str) -> bool:
    return any(c.isalpha() for c in piece)


def _piece_score(tokenizer: Tokenizer, i: int) -> float:
    """A piece's unigram log-probability; an unknown piece scores as SentencePiece penalises it,
    10 under the least likely piece."""
    if i == tokenizer.unk_id:
        return _lowest_score(tokenizer) - 10.0
    return float(tokenizer.sp.get_score(i))


_LOWEST: weakref.WeakKeyDictionary[Tokenizer, float] = weakref.WeakKeyDictionary()


def _lowest_score(tokenizer: Tokenizer) -> float:
    """The least likely piece's score (computed once per tokenizer)."""
    if tokenizer not in _LOWEST:
        scores = (tokenizer.sp.get_score(i) for i in range(tokenizer.vocab_size))
        _LOWEST[tokenizer] = min(
            float(x) for i, x in enumerate(scores) if not tokenizer.is_special(i)
        )
    return _LOWEST[tokenizer]
