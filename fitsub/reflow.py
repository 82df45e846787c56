"""Line breaking of fitted text into at most `lines` lines of at most `cpl` characters.

Follows the line treatment of the Netflix Timed Text Style Guide: keep the text on one line
unless it exceeds the limit; otherwise break after punctuation, before conjunctions and
prepositions, never between an article and its noun; prefer a bottom-heavy shape (a lower line
longer than or as long as the one above it).

Method: words are never split (an Italian elision such as "l'amico" is one word). Every layout
of the words over k lines is scored by dynamic programming,

    cost = Σ_breaks break_cost(left word, right word)
         + Σ_adjacent lines  BALANCE × |l_i − l_{i+1}| + TOP_HEAVY × max(0, l_i − l_{i+1})
         + OVERFLOW × Σ_lines max(0, l_i − cpl)

with lengths l_i in `fitsub.units.char_length`. When some layout fits, only lines of at most
`cpl` characters are considered, with the fewest lines that fit (more lines, up to `lines`,
only when they avoid a forbidden break). When none fits, the words are spread over all `lines`
lines of at most W characters, W the smallest width any such layout reaches, and the lines that
overflow are left for the caller to detect with `fits_layout` (a word longer than `cpl` always
overflows its line). Nothing is ever dropped: joining the lines with spaces gives the input back
with its whitespace normalised.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from fitsub.units import char_length

FORBIDDEN = 1000.0  # a break after an article / determiner the noun must follow
EXTRA_LINE = 50.0  # each line beyond the fewest that fit (below FORBIDDEN: used to avoid one)
OVERFLOW = 10.0  # per character over `cpl` (only when no layout fits)
BALANCE = 0.05  # per character of difference between adjacent lines
TOP_HEAVY = 0.1  # per character an upper line is longer than the line below it
AFTER_SENTENCE_END = -3.0
AFTER_CLAUSE_PUNCT = -2.0
BEFORE_DIALOGUE_DASH = -5.0
BEFORE_CONJUNCTION = -1.5
BEFORE_PREPOSITION = -1.0
AFTER_PREPOSITION = 2.0
AFTER_WEAK_WORD = 2.0  # subject pronoun, negation, determiner that may stand alone
BETWEEN_NAMES = 1.0  # two capitalised words: likely a first and a last name

_SENTENCE_END = ".!?…"
_CLAUSE_PUNCT = ",;:"
_CLOSERS = "\"'»”’)]"
_OPENERS = "\"'«“‘(["
_DASHES = ("-", "–", "—")

# Per-language word lists (lowercase). "articles": a noun (or its adjective) must follow on the
# same line — articles and the contractions of a preposition with an article. "weak": words that
# should not end a line but can stand alone (so only discouraged).
_WORDS: dict[str, dict[str, frozenset[str]]] = {
    "it": {
        "articles": frozenset(
            "il lo la i gli le un uno una del dello della dei degli delle al allo alla ai agli "
            "alle dal dallo dalla dai dagli dalle nel nello nella nei negli nelle sul sullo "
            "sulla sui sugli sulle col coi".split()
        ),
        "conjunctions": frozenset(
            "e ed o od ma però perché che se quando mentre oppure né come poiché quindi "
            "cioè dove anche eppure finché".split()
        ),
        "prepositions": frozenset("di a ad da in con su per tra fra verso senza".split()),
        "weak": frozenset(
            "io tu lui lei noi voi loro non mi ti ci vi si mio mia miei mie tuo tua tuoi tue "
            "suo sua suoi sue nostro nostra vostro vostra questo questa questi queste quel "
            "quello quella quei quegli quelle".split()
        ),
    },
    "en": {
        "articles": frozenset("the a an".split()),
        "conjunctions": frozenset(
            "and but or nor so because that if when while although though since unless until "
            "whereas which who where whether".split()
        ),
        "prepositions": frozenset(
            "of to in on at for with from by about into onto over under after before between "
            "through during without against among around behind like across toward towards "
            "upon within".split()
        ),
        "weak": frozenset(
            "i you he she we they not my your his her its our their this these those".split()
        ),
    },
    "de": {
        "articles": frozenset(
            "der die das den dem des ein eine einen einem einer eines im am zum zur vom beim "
            "ins ans".split()
        ),
        "conjunctions": frozenset(
            "und aber oder denn sondern weil dass wenn als ob obwohl während bevor nachdem "
            "damit sodass".split()
        ),
        "prepositions": frozenset(
            "in an auf aus bei mit nach von zu für über unter vor hinter neben zwischen durch "
            "gegen ohne um seit bis".split()
        ),
        "weak": frozenset(
            "ich du er sie es wir ihr nicht kein keine mein meine dein deine sein seine "
            "unser unsere euer eure dieser diese dieses".split()
        ),
    },
    "fr": {
        "articles": frozenset("le la les un une des du au aux".split()),
        "conjunctions": frozenset(
            "et mais ou donc ni car que qui quand lorsque si parce puisque comme".split()
        ),
        "prepositions": frozenset(
            "à de en dans sur sous avec pour par chez sans vers entre contre depuis pendant "
            "avant après".split()
        ),
        "weak": frozenset(
            "je tu il elle nous vous ils elles ne mon ma mes ton ta tes son sa ses notre nos "
            "votre vos leur leurs ce cet cette ces".split()
        ),
    },
    "es": {
        "articles": frozenset("el la los las un una unos unas al del".split()),
        "conjunctions": frozenset(
            "y e o u pero sino porque que si cuando mientras aunque pues como ni".split()
        ),
        "prepositions": frozenset(
            "a de en con por para sin sobre entre hacia hasta desde contra según tras ante "
            "bajo".split()
        ),
        "weak": frozenset(
            "yo tú él ella nosotros vosotros ellos ellas no mi mis tu tus su sus nuestro "
            "nuestra este esta estos estas ese esa esos esas".split()
        ),
    },
}


_NO_WORDS: dict[str, frozenset[str]] = {
    name: frozenset() for name in ("articles", "conjunctions", "prepositions", "weak")
}


def _bare(word: str) -> str:
    """The word lowercased without surrounding quotes, brackets and punctuation."""
    return word.strip(_OPENERS + _CLOSERS + _SENTENCE_END + _CLAUSE_PUNCT).lower()


def break_cost(left: str, right: str, lang: str = "it") -> float:
    """Cost of a line break between the words `left` and `right` (negative: a good place)."""
    words = _WORDS.get(lang.lower().replace("_", "-").split("-")[0], _NO_WORDS)
    if left in _DASHES:
        return FORBIDDEN  # a dialogue dash stays with its line
    tail = left.rstrip(_CLOSERS)
    if tail and tail[-1] in _SENTENCE_END:
        cost = AFTER_SENTENCE_END
    elif tail and tail[-1] in _CLAUSE_PUNCT:
        cost = AFTER_CLAUSE_PUNCT
    else:
        cost = 0.0
        lb = _bare(left)
        if lb in words["articles"]:
            return FORBIDDEN
        if lb in words["prepositions"]:
            cost += AFTER_PREPOSITION
        elif lb in words["weak"]:
            cost += AFTER_WEAK_WORD
        if left[:1].isupper() and right[:1].isupper() and len(lb) > 1:
            cost += BETWEEN_NAMES
    rb = _bare(right)
    if right in _DASHES or (right[:1] in _DASHES and len(right) > 1 and right[1].isalpha()):
        cost += BEFORE_DIALOGUE_DASH
    elif rb in words["conjunctions"]:
        cost += BEFORE_CONJUNCTION
    elif rb in words["prepositions"]:
        cost += BEFORE_PREPOSITION
    return cost


def fits_layout(lines_: Sequence[str], cpl: int, max_lines: int) -> bool:
    """Whether there are at most `max_lines` lines, none longer than `cpl` characters."""
    return len(lines_) <= max_lines and all(char_length(line) <= cpl for line in lines_)


def _min_lines(lengths: Sequence[int], width: int) -> int:
    """Fewest lines of at most `width` characters holding the words (greedy first fit is optimal)."""
    count, current = 1, -1
    for n in lengths:
        if n > width:
            return sys.maxsize  # a word longer than the width fits on no line
        if current + 1 + n <= width:
            current += 1 + n
        else:
            count, current = count + 1, n
    return count


def _min_width(lengths: Sequence[int], lines: int) -> int:
    """The smallest width at which the words fit in `lines` lines (binary search on greedy)."""
    lo = max(lengths)
    hi = sum(lengths) + len(lengths) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if _min_lines(lengths, mid) <= lines:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _layout(
    words: Sequence[str], lengths: Sequence[int], cpl: int, width: int, k: int, lang: str
) -> tuple[float, list[int]] | None:
    """The cheapest layout over exactly `k` lines of at most `width` characters.

    Returns (cost, line start indices) or None when there is none. best[(i, j)] holds, for the
    lines laid so far with the last one words[i:j], the cost and the starts of those lines.
    """
    n = len(words)
    prefix = [0]
    for n_chars in lengths:
        prefix.append(prefix[-1] + n_chars)

    def span(i: int, j: int) -> int:
        return prefix[j] - prefix[i] + (j - i - 1)

    def over(i: int, j: int) -> float:
        return OVERFLOW * max(0, span(i, j) - cpl)

    best: dict[tuple[int, int], tuple[float, list[int]]] = {}
    for j in range(1, n + 1):
        if span(0, j) > width:
            break
        best[(0, j)] = (over(0, j), [0])
    for _ in range(k - 1):
        nxt: dict[tuple[int, int], tuple[float, list[int]]] = {}
        for (i, j), (cost, starts) in best.items():
            if j == n:
                continue
            upper = span(i, j)
            brk = break_cost(words[j - 1], words[j], lang)
            for m in range(j + 1, n + 1):
                lower = span(j, m)
                if lower > width:
                    break
                shape = BALANCE * abs(upper - lower) + TOP_HEAVY * max(0, upper - lower)
                total = cost + brk + shape + over(j, m)
                if (j, m) not in nxt or total < nxt[(j, m)][0]:
                    nxt[(j, m)] = (total, [*starts, j])
        best = nxt
    ends = [value for (_, j), value in best.items() if j == n]
    return min(ends, key=lambda value: value[0]) if ends else None


# whitespace a line may break at: any but the no-break spaces ("«\u00a0oui\u00a0»" stays one word)
_BREAKABLE = re.compile(r"[^\S\u00a0\u202f\u2007]+")


def reflow(text: str, cpl: int, lines: int, lang: str = "it") -> list[str]:
    """Break `text` into at most `lines` lines of at most `cpl` characters where possible.

    One line when the text fits on one; no lines for empty text. When no layout fits, the best
    layout over `lines` lines is returned with overflowing lines (check with `fits_layout`).
    """
    if cpl < 1 or lines < 1:
        raise ValueError(f"cpl and lines must be at least 1, got cpl={cpl}, lines={lines}")
    words = _BREAKABLE.split(text.strip())
    if words == [""]:
        return []
    joined = " ".join(words)
    if char_length(joined) <= cpl or lines == 1:
        return [joined]
    lengths = [char_length(w) for w in words]
    fewest = _min_lines(lengths, cpl)
    options: list[tuple[float, list[int]]] = []
    if fewest <= lines:
        for k in range(fewest, min(lines, len(words)) + 1):
            found = _layout(words=words, lengths=lengths, cpl=cpl, width=cpl, k=k, lang=lang)
            if found is None:
                continue
            options.append((found[0] + EXTRA_LINE * (k - fewest), found[1]))
            if not any(break_cost(words[j - 1], words[j], lang) >= FORBIDDEN for j in found[1][1:]):
                break  # more lines cost EXTRA_LINE each and could only avoid a forbidden break
    else:
        k = min(lines, len(words))
        found = _layout(
            words=words, lengths=lengths, cpl=cpl, width=_min_width(lengths, k), k=k, lang=lang
        )
        assert found is not None  # a layout at the minimal width exists by construction
        options.append(found)
    _, starts = min(options, key=lambda option: option[0])
    bounds = [*starts, len(words)]
    return [" ".join(words[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]
