"""Never invent a word: the lexicon mask of a search step, and beam search under it."""

from __future__ import annotations

import functools

import torch
from factories import word_texts, word_tokenizer
from test_search import random_model, sources

from fitsub.nmt.bounds import word_table
from fitsub.nmt.lexicon_mask import LexiconMask
from fitsub.nmt.search import beam_search
from fitsub.quality.lexicon import Lexicon, words_of

torch.set_num_threads(1)
NEG = float("-inf")
# a toy vocabulary: 0 pad, 1 eos, then pieces ("▁" read as a space)
PIECES: list[str | None] = [None, None, " ca", "sa", "sx", "ne", " ", "ro", ",", " 42", " l'", "ma"]
EOS = 1


def ids(*pieces: str) -> list[int]:
    return [PIECES.index(p) for p in pieces]


def mask(*words: str) -> LexiconMask:
    return LexiconMask(PIECES, EOS, Lexicon(dict.fromkeys(words, 1)))


def allowed(m: LexiconMask, history: list[int], source: str = "") -> set[str]:
    """The pieces (and "EOS") left open after `history`, from uniform scores."""
    logp = torch.zeros(1, len(PIECES))
    logp[0, 0] = NEG
    out = m.restrict(logp, [history], [0], m.for_sources([source]))
    return {"EOS" if i == EOS else str(PIECES[i]) for i in range(len(PIECES)) if out[0, i] > NEG}


def test_a_word_continues_only_along_a_lexicon_word_and_ends_only_on_one() -> None:
    m = mask("casa", "cane", "l")
    # "ca": may go on with "sa" / "ne" (casa, cane), never "sx"; may not end: "ca" is no word
    assert allowed(m, ids(" ca")) == {"sa", "ne"}
    # "casa": a word; it may end (EOS, punctuation, a number, a new word) but not go on
    assert allowed(m, ids(" ca", "sa")) == {"EOS", " ca", ",", " 42", " l'", " "}


def test_a_new_word_starts_only_as_a_lexicon_word_or_a_source_word() -> None:
    m = mask("casa")
    assert " ca" in allowed(m, [])
    assert " l'" not in allowed(m, [])  # "l" is no word here
    assert " l'" in allowed(m, [], source="L'Aquila")  # ... but the source has it
    rosa = mask("rosa")
    glued = {"ro", "ne", "sa", "sx", "ma"}  # after a bare "▁", only a word's start
    assert allowed(rosa, ids(" ")) & glued == {"ro"}
    assert allowed(rosa, ids(" ", "ro"), source="Roma") == {"sa", "ma"}  # rosa; Roma copied


def test_the_unfinished_word_is_read_back_over_its_pieces() -> None:
    m = mask("casa")
    assert m.partial(ids(" ca", "sa", ",", " ca")) == "ca"
    assert m.partial(ids(" ca", "sa")) == "casa"
    assert m.partial(ids(" ca", "sa", ",")) == ""
    assert m.partial(ids(" l'")) == ""


# ---- beam search with a random model over made-up words ---------------------------------------


@functools.cache
def lexicon() -> Lexicon:
    """Half of the made-up words of `word_texts`: the other half are non-words."""
    vocab = sorted({w for t in word_texts() for w in words_of(t)})
    return Lexicon(dict.fromkeys(vocab[::2], 1))


def test_the_search_never_writes_a_word_outside_the_lexicon_and_the_source() -> None:
    tok, model = word_tokenizer(), random_model()
    lex = lexicon()
    m = LexiconMask.from_tokenizer(tok, lex)
    texts = [f"{t} Zoltan" for t in word_texts(12, seed=7)]
    src = torch.zeros(len(texts), 24, dtype=torch.long)
    for i, t in enumerate(texts):
        row = tok.source_ids(t)[:24]
        src[i, : len(row)] = torch.tensor(row)
    lens = torch.full((len(texts),), 30)
    invented = {False: 0, True: 0}
    kept = 0
    for budget in (None, 25):
        budgets = None if budget is None else [budget] * len(texts)
        for on in (False, True):
            hyps = beam_search(
                model, src, lens, budgets, beam=3, max_len=30, n_best=3, words=word_table(tok),
                lexicon=m if on else None, sources=texts,
            )  # fmt: skip
            plain = beam_search(
                model, src, lens, budgets, beam=3, max_len=30, n_best=3, words=word_table(tok),
            ) if on else hyps  # fmt: skip
            for row, alone, text in zip(hyps, plain, texts, strict=True):
                allowed = set(lex.counts) | set(words_of(text))
                for h in row:
                    bad = [w for w in words_of(tok.decode(h.ids)) if w not in allowed]
                    invented[on] += bool(bad)
                    if on and bad:  # only the fallback: nothing kept to the lexicon
                        assert [x.ids for x in row] == [x.ids for x in alone]
                kept += on and all(w in allowed for h in row for w in words_of(tok.decode(h.ids)))
    assert invented[False] > 0  # unconstrained, this model invents words ...
    assert kept >= len(texts)  # ... with the lexicon, most rows keep to it
    assert invented[True] < invented[False]


def test_a_source_nothing_satisfies_keeps_the_best_candidate_without_the_lexicon() -> None:
    tok, model = word_tokenizer(), random_model()
    m = LexiconMask.from_tokenizer(tok, Lexicon({"qqqq": 1}))  # no piece spells it
    src = sources(2, seed=4)
    got = beam_search(model, src, None, [40, 40], beam=3, max_len=20, words=word_table(tok),
                      lexicon=m, sources=["", ""])  # fmt: skip
    want = beam_search(model, src, None, [40, 40], beam=3, max_len=20, words=word_table(tok))
    assert [[h.ids for h in r] for r in got] == [[h.ids for h in r] for r in want]
    assert all(r and r[0].ids for r in got)


def test_the_pieces_after_a_prefix_are_the_same_found_either_way() -> None:
    # a short prefix of many words tests each piece; a long one of few walks the words
    words = [f"{a}{b}{c}" for a in "cs" for b in "aeo" for c in ("sa", "ne", "ro", "ma", "x")]
    m = mask(*words)
    for prefix in ("", "c", "ca", "cas", "so", "z"):
        found = m.lexicon.starting_with(prefix)
        by_pieces = m._heads_after(found, prefix, m.lexicon.has_prefix)
        walked = {v for w in found for j in range(1, len(w) - len(prefix) + 1)
                  for v in m.by_head.get(w[len(prefix) : len(prefix) + j], ())}  # fmt: skip
        assert by_pieces == sorted(walked)
    assert len(m.lexicon.starting_with("")) > len(m.by_head) // 2  # the piece-testing branch ran
