"""Never invent a word: the lexicon constraint of a search step (issue 28), for both searches.

Every word of the output (a run of letters, `fitsub.quality.lexicon.words_of`) must be a word of the
model's lexicon or a word of the source (names, codes, URLs copied; a glossary term reaches the
model as a placeholder `[1]`, which has no letters). Digits and punctuation are never words: a
number is free (`number-changed` checks it against the source).

Pieces and words: a piece continues the word being written when it starts with a letter (no
`▁`), and ends it when it starts with anything else (`▁`, punctuation, a digit); EOS ends it
too. Per vocabulary piece, once per model (`LexiconMask.__init__`): `head` (the letters it adds
to the word being written), `breaks` (it holds a non-letter), `inner` (whole words inside it)
and `tail` (the letters after its last non-letter: the word it starts). So at each step, for a
hypothesis whose unfinished word is `w` (read back from its pieces, `partial`):
* a piece that ends the word (or EOS) is allowed only if `w` is empty or a word;
* a piece that starts a new word is allowed only if its `inner` words are words and its `tail`
  begins one: a fixed mask per model, widened per source by the source's words (`for_sources`);
* a piece of spaces alone (a bare `▁`, which SentencePiece writes before a word it spells from
  letters) must be followed by text: not by more space or the end (a hypothesis of bare spaces
  would otherwise "keep to the lexicon" with no word at all);
* a continuation piece is allowed only if `w + head` begins a word (or, when it holds a
  non-letter, is one).
The first two are (rows, V) tensor masks. For the third, `following(w)` lists the continuation
pieces that may follow `w`: the lexicon's words that start with `w` are a range of its sorted
list (two binary searches), and a piece may follow when its text begins what one of them adds
to `w`; the list is remembered per `w` (the beams of a source, and the sentences of a document,
reach the same unfinished words again), and the source's words add theirs (remembered per
source and `w` for the batch, `Rows.kept`: recomputing them for every row of every step was a
third of a fitted search's time, issue 31). So a step costs one string lookup per row and a few
tensor masks over (rows, V); nothing tests (row, piece) pairs one by one.

Word tests are on the normalised form (`fitsub.quality.lexicon.normalize`: NFKC, lower case): a
capitalised word at a sentence start is the same word.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch
from torch import Tensor

from fitsub.nmt.tokenizer import Tokenizer
from fitsub.quality.lexicon import Lexicon, normalize, words_of
from fitsub.units import SPACE_MARK

NEG_INF = float("-inf")
LAST = "\U0010ffff"  # sorts after every character: the end of a prefix's range
MEMO_SIZE = 1 << 20  # remembered (unfinished word, piece) answers before the memo starts over
_RUN = re.compile(r"[^\W\d_]+|[\W\d_]+")


@dataclass(frozen=True)
class SourceWords:
    """The words one source lets the output copy: a set and its sorted list (prefix search)."""

    words: frozenset[str]
    ordered: tuple[str, ...]

    @classmethod
    def of(cls, *texts: str) -> SourceWords:
        """The words of `texts`."""
        ws = frozenset(w for t in texts for w in words_of(t))
        return cls(ws, tuple(sorted(ws)))

    def starting_with(self, prefix: str) -> Sequence[str]:
        """The source words that start with `prefix`."""
        lo = bisect.bisect_left(self.ordered, prefix)
        return self.ordered[lo : bisect.bisect_left(self.ordered, prefix + LAST, lo)]

    def has_prefix(self, prefix: str) -> bool:
        """Whether some source word starts with `prefix` (a binary search)."""
        i = bisect.bisect_left(self.ordered, prefix)
        return i < len(self.ordered) and self.ordered[i].startswith(prefix)


@dataclass(frozen=True)
class Rows:
    """The per-source state of one batch: each source's words and its new-word mask (B, V)."""

    sources: tuple[SourceWords, ...]
    fresh: Tensor  # (B, V) bool: pieces that end the word being written and whose own words pass
    # (source, unfinished word) -> the continuation pieces allowed after it (`LexiconMask.restrict`
    # asks again for every beam and every step: each answer is computed once per batch)
    kept: dict[tuple[int, str], Tensor] = field(default_factory=dict, compare=False, repr=False)


class LexiconMask:
    """What every piece does to words, against one lexicon (module docstring)."""

    def __init__(self, pieces: Sequence[str | None], eos_id: int, lexicon: Lexicon) -> None:
        """`pieces[v]`: the text piece v adds (word-boundary mark read as a space), None for a
        piece that adds no text (special tokens; never generated, EOS aside)."""
        self.lexicon, self.eos_id = lexicon, eos_id
        V = len(pieces)
        self.head: list[str] = [""] * V
        self.breaks: list[bool] = [True] * V
        self.inner: list[tuple[str, ...]] = [()] * V
        self.tail: list[str] = [""] * V
        for v, text in enumerate(pieces):
            if not text:
                continue
            runs = _RUN.findall(normalize(text))
            letters = [_is_letters(r) for r in runs]
            if letters[0]:
                self.head[v] = runs[0]
            self.breaks[v] = not all(letters)
            if self.breaks[v]:
                body = runs[1:] if letters[0] else runs
                ends_in_word = letters[-1] and len(runs) > 1
                self.tail[v] = runs[-1] if ends_in_word else ""
                mids = body[:-1] if ends_in_word else body
                self.inner[v] = tuple(r for r in mids if _is_letters(r))
        text_piece = [bool(p) for p in pieces]
        cont = [text_piece[v] and bool(self.head[v]) for v in range(V)]
        ends = [text_piece[v] and not self.head[v] for v in range(V)]
        self.cont = torch.tensor(cont, dtype=torch.bool)  # (V,) continue the word
        self.ends = torch.tensor(ends, dtype=torch.bool)  # (V,) end it, then start afresh
        self.ends_or_eos = self.ends.clone()
        self.ends_or_eos[eos_id] = True
        # a piece of spaces alone ("▁") must be followed by text, never by more space or the end
        self.blank = [p is not None and p != "" and not p.strip() for p in pieces]
        spaced = torch.tensor([p is not None and p[:1].isspace() for p in pieces], dtype=torch.bool)
        spaced[eos_id] = True
        self.spaced_or_eos = spaced
        self.banned = torch.tensor([not t for t in text_piece], dtype=torch.bool)
        self.banned[eos_id] = False
        self.fresh = torch.tensor(
            [ends[v] and self._own_words_ok(v, None) for v in range(V)], dtype=torch.bool
        )
        self._memo: dict[tuple[str, int], bool] = {}
        self._next: dict[str, Tensor] = {}
        self.by_head: dict[str, list[int]] = {}  # letter-only continuation pieces by their text
        for v in range(V):
            if cont[v] and not self.breaks[v]:
                self.by_head.setdefault(self.head[v], []).append(v)
        self.longest_head = max(map(len, self.by_head), default=0)
        self.cont_breaking = [v for v in range(V) if cont[v] and self.breaks[v]]
        self.by_tail: dict[str, list[int]] = {}
        self.by_inner: dict[str, list[int]] = {}  # new-word pieces by the whole words they hold
        for v in range(V):
            if ends[v] and self.tail[v]:
                self.by_tail.setdefault(self.tail[v], []).append(v)
            for w in self.inner[v] if ends[v] else ():
                self.by_inner.setdefault(w, []).append(v)

    @classmethod
    def from_tokenizer(cls, tokenizer: Tokenizer, lexicon: Lexicon) -> LexiconMask:
        """The mask of a fitsub SentencePiece tokenizer's vocabulary."""
        pieces = [
            None
            if tokenizer.is_special(i)
            else tokenizer.sp.id_to_piece(i).replace(SPACE_MARK, " ")
            for i in range(tokenizer.vocab_size)
        ]
        return cls(pieces, tokenizer.eos_id, lexicon)

    @property
    def vocab_size(self) -> int:
        """Rows of the tables (the model's vocabulary)."""
        return len(self.head)

    def _is_word(self, w: str, src: SourceWords | None) -> bool:
        return self.lexicon.knows(w) or (src is not None and w in src.words)

    def _is_prefix(self, w: str, src: SourceWords | None) -> bool:
        return self.lexicon.has_prefix(w) or (src is not None and src.has_prefix(w))

    def _own_words_ok(self, v: int, src: SourceWords | None) -> bool:
        """Whether the words piece v writes after its first non-letter can be words."""
        tail = self.tail[v]
        return all(self._is_word(w, src) for w in self.inner[v]) and (
            not tail or self._is_prefix(tail, src)
        )

    def allows(self, partial: str, v: int, src: SourceWords | None) -> bool:
        """Whether piece v may follow a hypothesis whose unfinished word is `partial`.

        The lexicon's answer is remembered per (partial, piece): the beams of a source, and the
        sources of a document, ask the same questions again."""
        key = (partial, v)
        known = self._memo.get(key)
        if known is None:
            if len(self._memo) > MEMO_SIZE:
                self._memo.clear()
            known = self._memo[key] = self._allows(partial, v, None)
        if known or src is None or not src.words:
            return known
        return self._allows(partial, v, src)

    def _allows(self, partial: str, v: int, src: SourceWords | None) -> bool:
        if v == self.eos_id:
            return not partial or self._is_word(partial, src)
        if self.banned[v]:
            return False
        word = partial + self.head[v]
        if not self.breaks[v]:
            return self._is_prefix(word, src)
        if word and not self._is_word(word, src):
            return False
        return self._own_words_ok(v, src)

    def partial(self, ids: Sequence[int]) -> str:
        """The unfinished word at the end of a piece sequence ("" after a non-letter)."""
        w = ""
        for v in reversed(ids):
            if v < 0 or v >= len(self.head):
                return w
            if self.breaks[v]:
                return self.tail[v] + w
            w = self.head[v] + w
        return w

    def for_sources(self, texts: Sequence[str], device: torch.device | str = "cpu") -> Rows:
        """Each source's words, and its mask of allowed new-word pieces (the model's, widened by
        the pieces that start one of the source's words)."""
        sources = tuple(SourceWords.of(t) for t in texts)
        fresh = self.fresh[None, :].repeat(len(texts), 1)  # (B, V)
        for b, src in enumerate(sources):
            maybe = {v for w in src.words for v in self.by_inner.get(w, ())}
            maybe |= {
                v
                for w in src.words
                for n in range(len(w))
                for v in self.by_tail.get(w[: n + 1], ())
            }
            extra = {v for v in maybe if not self.fresh[v] and self._own_words_ok(v, src)}
            if extra:
                fresh[b, sorted(extra)] = True
        return Rows(sources, fresh.to(device))

    def restrict(
        self,
        logp: Tensor,
        histories: Sequence[Sequence[int]],
        row_source: Sequence[int],
        rows: Rows,
    ) -> Tensor:
        """Mask (in place) the pieces of each row (n, V) that would invent a word; `histories`:
        each row's pieces so far; `row_source`: each row's source in `rows`. Returns `logp`."""
        dev = logp.device
        n = logp.size(0)
        src = [rows.sources[s] for s in row_source]
        partials = [self.partial(h) for h in histories]
        ok = [not w or self._is_word(w, s) for w, s in zip(partials, src, strict=True)]
        closed = ~torch.tensor(ok, dtype=torch.bool, device=dev)  # (n,) unfinished non-word
        idx = torch.tensor(list(row_source), dtype=torch.long, device=dev)
        bad_fresh = self.ends.to(dev)[None, :] & ~rows.fresh[idx]  # (n, V)
        blank = torch.tensor([bool(h) and self.blank[h[-1]] for h in histories], device=dev)
        logp.masked_fill_(
            closed[:, None] & self.ends_or_eos.to(dev)[None, :]
            | blank[:, None] & self.spaced_or_eos.to(dev)[None, :]
            | bad_fresh
            | self.banned.to(dev)[None, :],
            NEG_INF,
        )
        kept = [self._kept(w, s, rows) for w, s in zip(partials, row_source, strict=True)]
        sizes = torch.tensor([k.numel() for k in kept], dtype=torch.long)
        keep = torch.zeros(n, logp.size(1), dtype=torch.bool)  # (n, V) continuations kept
        keep[torch.arange(n).repeat_interleave(sizes), torch.cat(kept)] = True
        logp.masked_fill_(self.cont.to(dev)[None, :] & ~keep.to(dev), NEG_INF)
        return logp

    def _kept(self, partial: str, source: int, rows: Rows) -> Tensor:
        """The continuation pieces allowed after `partial` in source `source` of `rows`: the
        lexicon's (`following`), the source words' and the allowed pieces that hold a non-letter
        (ids, remembered in `rows` per source and `partial`)."""
        hit = rows.kept.get((source, partial))
        if hit is None:
            s = rows.sources[source]
            ids = [self.following(partial)]
            if s.has_prefix(partial):
                found = self._heads_after(s.starting_with(partial), partial, s.has_prefix)
                ids.append(torch.tensor(found, dtype=torch.long))
            more = [v for v in self.cont_breaking if self.allows(partial, v, s)]
            if more:
                ids.append(torch.tensor(more, dtype=torch.long))
            hit = rows.kept[(source, partial)] = torch.cat(ids)
        return hit

    def following(self, partial: str) -> Tensor:
        """The letter-only continuation pieces after which `partial` still begins a word of the
        lexicon (ids, remembered per `partial`)."""
        hit = self._next.get(partial)
        if hit is None:
            if len(self._next) > MEMO_SIZE:
                self._next.clear()
            words = self.lexicon.starting_with(partial)
            found = self._heads_after(words, partial, self.lexicon.has_prefix)
            hit = self._next[partial] = torch.tensor(found, dtype=torch.long)
        return hit

    def _heads_after(
        self, words: Sequence[str], partial: str, has_prefix: Callable[[str], bool]
    ) -> list[int]:
        """The letter-only continuation pieces that spell a beginning of what one of `words`
        (all the words that start with `partial` of a list whose prefix test is `has_prefix`)
        adds to `partial`.

        The same set two ways, whichever is cheaper: each word's beginnings looked up among the
        pieces, or each piece's text tested as a beginning (`has_prefix(partial + head)`, a
        binary search): 10x faster for a short `partial` that begins thousands of words."""
        if len(words) > len(self.by_head) // 2:
            hit = (vs for h, vs in self.by_head.items() if has_prefix(partial + h))
            return sorted(v for vs in hit for v in vs)
        found: set[int] = set()
        seen: set[str] = set()
        n = len(partial)
        for w in words:
            rest = w[n:]
            for j in range(1, min(len(rest), self.longest_head) + 1):
                h = rest[:j]
                if h not in seen:
                    seen.add(h)
                    found.update(self.by_head.get(h, ()))
        return sorted(found)


_LETTERS = re.compile(r"[^\W\d_]+")


def _is_letters(run: str) -> bool:
    return bool(_LETTERS.fullmatch(run))
