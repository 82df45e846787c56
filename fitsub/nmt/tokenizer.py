"""SentencePiece tokenizer: one joint unigram vocabulary for source and target.

Why joint: the model ties the source embedding, the target embedding and the output projection
to one matrix (`fitsub.nmt.model`), which needs one vocabulary; and subtitles are full of names,
numbers and loanwords that are copied from source to target, which a shared vocabulary segments
identically on both sides.

Ids: pad 0, unk 1, bos 2, eos 3, then the user-defined symbols `<short> <normal> <long>` (the
length tokens, `fitsub.nmt.lengths.LENGTH_TOKENS`) and one `<2xx>` tag per language.

Character lengths of pieces (`piece_chars`, `leading_space`): a piece adds its text with `▁`
read as one space; control, unknown and user-defined pieces add 0 (search never generates them).
Detokenisation strips the word-boundary space of the first piece, so the characters of a
sequence are `sum(piece_chars) - leading_space[first piece]` (see `chars_of`).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import sentencepiece as spm

from fitsub.errors import InputError
from fitsub.nmt.lengths import LENGTH_TOKENS
from fitsub.units import SPACE_MARK, piece_chars, piece_leading_space

PAD_ID, UNK_ID, BOS_ID, EOS_ID = 0, 1, 2, 3
_TAG = re.compile(r"<2[A-Za-z][A-Za-z_-]*>")


def language_tag(lang: str) -> str:
    """The target-language tag symbol, e.g. `<2it>`."""
    return f"<2{lang}>"


class Tokenizer:
    """A loaded SentencePiece model with fitsub's special tokens and piece character lengths."""

    def __init__(self, model_proto: bytes) -> None:
        self._proto = bytes(model_proto)
        self.sp = spm.SentencePieceProcessor(model_proto=self._proto)
        self.pad_id, self.unk_id = self.sp.pad_id(), self.sp.unk_id()
        self.bos_id, self.eos_id = self.sp.bos_id(), self.sp.eos_id()
        if (self.pad_id, self.unk_id, self.bos_id, self.eos_id) != (PAD_ID, UNK_ID, BOS_ID, EOS_ID):
            raise ValueError("SentencePiece model must use pad 0, unk 1, bos 2, eos 3")
        self._special = [self._is_special(i) for i in range(self.vocab_size)]
        pieces = [self.sp.id_to_piece(i) for i in range(self.vocab_size)]
        self._pc = [
            0 if sp else piece_chars(p) for p, sp in zip(pieces, self._special, strict=True)
        ]
        self._lead = [
            0 if sp else piece_leading_space(p) for p, sp in zip(pieces, self._special, strict=True)
        ]
        self._known: frozenset[str] | None = None

    # ---- construction -------------------------------------------------------------------------
    @classmethod
    def train(
        cls,
        texts: Iterable[str],
        vocab_size: int = 8000,
        langs: Sequence[str] = ("en", "it"),
        seed: int = 1,
        max_sentences: int = 2_000_000,
        character_coverage: float = 0.9999,
        threads: int = 1,
    ) -> Tokenizer:
        """Train a joint unigram model on `texts` (both languages' lines, any iterable).

        Deterministic for the same input, seed and `threads` (SentencePiece's trainer threads);
        at most `max_sentences` lines are sampled.
        `vocab_size` is a soft limit (smaller corpora give a smaller vocabulary).
        """
        specials = [*LENGTH_TOKENS, *(language_tag(lang) for lang in langs)]
        lines: Iterator[str] = (t.replace("\n", " ") for t in texts if t.strip())
        out = io.BytesIO()
        spm.set_random_generator_seed(seed)
        try:
            spm.SentencePieceTrainer.train(
                sentence_iterator=lines,
                model_writer=out,
                model_type="unigram",
                vocab_size=vocab_size,
                hard_vocab_limit=False,
                character_coverage=character_coverage,
                pad_id=PAD_ID,
                unk_id=UNK_ID,
                bos_id=BOS_ID,
                eos_id=EOS_ID,
                user_defined_symbols=specials,
                input_sentence_size=max_sentences,
                shuffle_input_sentence=True,
                num_threads=max(1, threads),
                minloglevel=2,
            )
        except RuntimeError as err:
            raise ValueError(f"SentencePiece training failed: {err}") from err
        return cls(out.getvalue())

    @classmethod
    def train_files(cls, paths: Sequence[str | Path], **kw: Any) -> Tokenizer:
        """`train` on the lines of text files (UTF-8), read lazily; `kw` as for `train`."""

        def lines() -> Iterator[str]:
            for path in paths:
                try:
                    with open(path, encoding="utf-8") as f:
                        yield from f
                except (OSError, UnicodeDecodeError) as err:
                    raise InputError(path, f"cannot read training text: {err}") from err

        return cls.train(lines(), **kw)

    @classmethod
    def load(cls, path: str | Path) -> Tokenizer:
        """Load a `.model` file (InputError if missing or not a SentencePiece model)."""
        p = Path(path)
        try:
            data = p.read_bytes()
        except OSError as err:
            raise InputError(p, f"cannot read tokenizer model: {err.strerror or err}") from err
        try:
            return cls(data)
        except (RuntimeError, ValueError, OSError) as err:
            raise InputError(p, f"not a usable SentencePiece model: {err}") from err

    def save(self, path: str | Path) -> None:
        """Write the serialised model (`spm.model`)."""
        Path(path).write_bytes(self._proto)

    def to_bytes(self) -> bytes:
        """The serialised SentencePiece model."""
        return self._proto

    # ---- vocabulary ---------------------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        """Number of pieces, specials included."""
        return int(self.sp.get_piece_size())

    def token_id(self, symbol: str) -> int:
        """The id of a piece or special symbol (ValueError if it is not in the vocabulary)."""
        i = int(self.sp.piece_to_id(symbol))
        if i == self.unk_id and symbol != self.sp.id_to_piece(self.unk_id):
            raise ValueError(f"{symbol!r} is not in the vocabulary")
        return i

    def is_special(self, i: int) -> bool:
        """Control, unknown and user-defined pieces: never part of a translation."""
        return self._special[i]

    def _is_special(self, i: int) -> bool:
        sp = self.sp
        return bool(
            sp.is_control(i) or sp.is_unknown(i) or sp.is_unused(i) or self._user_defined(i)
        )

    def _user_defined(self, i: int) -> bool:
        piece = self.sp.id_to_piece(i)
        return piece in LENGTH_TOKENS or _TAG.fullmatch(piece) is not None

    def special_ids(self) -> list[int]:
        """Ids of every special piece (see `is_special`)."""
        return [i for i in range(self.vocab_size) if self.is_special(i)]

    def piece_chars(self) -> list[int]:
        """Characters each piece adds to detokenised text (`▁` counts as one space; specials 0)."""
        return list(self._pc)

    def leading_space(self) -> list[int]:
        """1 for pieces starting with `▁` (the space detokenisation drops at the start), else 0."""
        return list(self._lead)

    def known_words(self) -> frozenset[str]:
        """Lower-cased whole words of the vocabulary (pieces `▁` + letters), for `cut-word`."""
        if self._known is None:
            pieces = (
                self.sp.id_to_piece(i) for i in range(self.vocab_size) if not self.is_special(i)
            )
            self._known = frozenset(
                p[1:].lower() for p in pieces if p.startswith(SPACE_MARK) and p[1:].isalpha()
            )
        return self._known

    def chars_of(self, ids: Sequence[int]) -> int:
        """Characters of `decode(ids)` from piece lengths (specials excluded).

        Exact for every sequence `encode` produces; for generated sequences that start with
        several whitespace-only pieces (which detokenisation strips) it may over-count, never
        under-count, which is the safe side for a hard budget.
        """
        ids = [int(i) for i in ids if not self._special[int(i)]]
        if not ids:
            return 0
        return sum(self._pc[i] for i in ids) - self._lead[ids[0]]

    # ---- text <-> ids -------------------------------------------------------------------------
    def encode(self, text: str) -> list[int]:
        """Piece ids of `text` (no BOS / EOS, no length token)."""
        return list(self.sp.encode(text.replace("\n", " ")))

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        """Piece ids of each text."""
        return [list(r) for r in self.sp.encode([t.replace("\n", " ") for t in texts])]

    encode_pieces_batch = encode_batch

    def decode(self, ids: Sequence[int]) -> str:
        """Detokenised text; special ids (pad, BOS, EOS, length tokens, tags) are dropped."""
        return str(self.sp.decode([int(i) for i in ids if not self._special[int(i)]]))

    def source_ids(
        self, text: str, length_token: str | None = None, lang: str | None = None
    ) -> list[int]:
        """Model input for a source: `[length token?] [<2xx>?] pieces… EOS`, the tag naming a
        multilingual model's target language `lang` (the order training uses)."""
        head = [] if length_token is None else [self.token_id(length_token)]
        if lang is not None:
            head.append(self.token_id(language_tag(lang)))
        return [*head, *self.encode(text), self.eos_id]
