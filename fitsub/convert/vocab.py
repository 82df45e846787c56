"""fairseq dictionaries -> one fitsub tokenizer whose ids are the target dictionary's order.

A fairseq `Dictionary` (`dict.LANG.txt`: one `SYMBOL COUNT [#fairseq:overwrite]` per line) has
`<s>` 0, `<pad>` 1, `</s>` 2, `<unk>` 3 and then the file's symbols in order; fitsub's tokenizer
has pad 0, unk 1, bos 2, eos 3 (`fitsub.nmt.tokenizer`). The converted SentencePiece model gets
those four control pieces and then the dictionary's symbols at the dictionary's own ids (4, 5,
...), each with its original score and type, so that embedding row i >= 4 carries over as it is
and only the four special rows are permuted (`fairseq_rows`).

Separate source and target dictionaries become one vocabulary (`joint_symbols`): the target's
symbols at their fairseq ids, then the source's own; the source embedding's rows are looked up
by symbol (`side_rows`, fairseq's source `<unk>` for a target-only symbol, as fairseq's pipeline
maps it), and the model never produces the source-only ids (`ModelConfig.output_vocab`).

fitsub's decoder starts from BOS where fairseq's starts from `</s>`: fitsub's BOS row is
fairseq's `</s>` row (the search never emits BOS, and sources never contain it).

Symbols that are not pieces of the SentencePiece model (fairseq's `madeupword0000` padding
entries, say) become unused pieces: never produced by encoding or by the search. Pieces of the
SentencePiece model that are not in the dictionary are left out, so encoding segments around
them where fairseq's pipeline would have mapped them to `<unk>`.
"""

from __future__ import annotations

from pathlib import Path

from fitsub.convert.spm_proto import (
    BYTE,
    CONTROL,
    NORMAL,
    UNKNOWN,
    UNUSED,
    USER_DEFINED,
    Piece,
    read_pieces,
    with_pieces,
)
from fitsub.errors import InputError
from fitsub.nmt.tokenizer import Tokenizer

FAIRSEQ_SPECIALS = 4  # <s>, <pad>, </s>, <unk>: ids 0-3 of every fairseq dictionary
FAIRSEQ_PAD, FAIRSEQ_EOS, FAIRSEQ_UNK = 1, 2, 3
_OVERWRITE = "#fairseq:overwrite"


def read_dictionary(path: Path) -> list[str]:
    """The symbols of a fairseq `dict.LANG.txt`, in file order (ids 4, 5, ...)."""
    try:
        lines = path.read_text("utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(path, "fairseq dictionary not found") from None
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(path, f"unreadable fairseq dictionary: {err}") from None
    symbols: list[str] = []
    seen: set[str] = set()
    for n, line in enumerate(lines, 1):
        word, _, field = line.rstrip().rpartition(" ")
        overwrite = field == _OVERWRITE
        if overwrite:
            word, _, field = word.rpartition(" ")
        if not word or not field.lstrip("-").isdigit():
            raise InputError(path, "not a fairseq dictionary line (want 'SYMBOL COUNT')", line=n)
        if word in seen and not overwrite:
            raise InputError(path, f"duplicate symbol {word!r}", line=n)
        seen.add(word)
        symbols.append(word)
    if not symbols:
        raise InputError(path, "empty fairseq dictionary")
    return symbols


def joint_symbols(source: list[str], target: list[str]) -> list[str]:
    """The converted vocabulary after the specials: the target dictionary's symbols (ids 4..,
    as fairseq's target ids) and then the source's symbols that the target lacks."""
    have = set(target)
    extra = [s for s in dict.fromkeys(source) if s not in have]
    return [*target, *extra]


def side_rows(symbols: list[str], side: list[str]) -> list[int]:
    """fairseq embedding row, in the dictionary `side`, of each fitsub id of the vocabulary
    `symbols` (after the specials): fairseq's `<unk>` where `side` lacks the symbol, the later
    entry where `side` repeats one (fairseq's #fairseq:overwrite)."""
    index = {s: i for i, s in enumerate(side, FAIRSEQ_SPECIALS)}
    rest = [index.get(s, FAIRSEQ_UNK) for s in symbols]
    return [FAIRSEQ_PAD, FAIRSEQ_UNK, FAIRSEQ_EOS, FAIRSEQ_EOS, *rest]


def fairseq_rows(vocab_size: int) -> list[int]:
    """fairseq embedding row of each fitsub id: pad, unk, BOS (= fairseq's `</s>`), eos, rest."""
    return [
        FAIRSEQ_PAD,
        FAIRSEQ_UNK,
        FAIRSEQ_EOS,
        FAIRSEQ_EOS,
        *range(FAIRSEQ_SPECIALS, vocab_size),
    ]


def dictionary_tokenizer(spm_path: Path, symbols: list[str]) -> tuple[Tokenizer, int, int]:
    """(tokenizer with fitsub's specials and then `symbols` as ids 4.., symbols that are no
    piece of the SentencePiece model, pieces of the model left out)."""
    try:
        model = spm_path.read_bytes()
        original = read_pieces(model)
    except OSError as err:
        raise InputError(spm_path, f"cannot read SentencePiece model: {err.strerror}") from None
    except (ValueError, UnicodeDecodeError) as err:
        raise InputError(spm_path, f"not a SentencePiece model: {err}") from None
    by_name = {p.piece: p for p in original}
    unk = next((p.piece for p in original if p.type == UNKNOWN), None)
    if unk is None:
        raise InputError(spm_path, "not a SentencePiece model (no unknown piece)")
    pieces = [Piece("<pad>", 0.0, CONTROL), Piece(unk, 0.0, UNKNOWN), Piece("<s>", 0.0, CONTROL),
              Piece("</s>", 0.0, CONTROL)]  # fmt: skip
    names = {p.piece for p in pieces}
    missing = 0
    for i, sym in enumerate(symbols, FAIRSEQ_SPECIALS):
        p = by_name.get(sym)
        if p is not None and p.type in (NORMAL, USER_DEFINED, BYTE) and sym not in names:
            pieces.append(p)
        else:  # never produced: a unique name that no text contains
            missing += 1
            pieces.append(Piece(sym if sym not in names else f"<fairseq-unused-{i}>", 0.0, UNUSED))
        names.add(pieces[-1].piece)
    dropped = sum(1 for p in original if p.type == NORMAL and p.piece not in names)
    try:
        tokenizer = Tokenizer(with_pieces(model, pieces))
    except (RuntimeError, ValueError) as err:
        raise InputError(spm_path, f"cannot rebuild the SentencePiece model: {err}") from None
    return tokenizer, missing, dropped
