"""Quality flags for fitted translations, computed without a reference translation.

A budget can be met in ways a subtitler must see: a word cut or mangled to fit, a number
changed, English left as it was, half the sentence dropped while there was room, a fallback
over budget, a token stuttered. Each flag is a pure function of the source, the fitted and the
unconstrained translations (and the budget); `segment_flags` runs them all. The checks are
heuristics tuned to miss little: a flag asks for a look, it does not prove an error.

* `cut-word`: a fitted word the model does not know (`known`: its vocabulary's whole-word pieces
  and the words of the document's unconstrained outputs; nor in this unconstrained output or the
  source) that is a truncation or a mangled variant (same start, letters dropped) of a word of
  the unconstrained output, e.g. "annoato" / "annoa" for "annoiato", "trasferi" for
  "trasferiti". Longer variants ("Romas" for "Roma") are not caught. Without `known`, an inflection that is also a prefix ("guarda" / "guardate") is
  flagged too.
* `number-changed`: the numbers (digit runs; "1,000" and "1.000" both read 1000; "10:30" and
  "10.30" both read 10 and 30) differ, as multisets, from the source's: "2019" -> "201919".
* `untranslated`: the output equals the source (case and punctuation aside), or at least 70 %
  of its words (3 words or more) are copied from it. Sources made only of capitalised words of
  two words or more (names, titles) are not flagged.
* `dropped-content`: fitted / unconstrained characters below `DROP_RATIO` while the budget left
  room (fitted below `ROOM_SHARE` of the budget); the detail names the ratio.
* `over-budget`: the fitted text is longer than its budget (only a flagged fallback can be).
* `repeated-token`: a word or a two-word phrase repeated back to back, or a digit group doubled
  inside a number ("201919"), where the source has no such repetition.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from fitsub.units import char_length

CUT_WORD = "cut-word"
NUMBER_CHANGED = "number-changed"
UNTRANSLATED = "untranslated"
DROPPED_CONTENT = "dropped-content"
OVER_BUDGET = "over-budget"
REPEATED_TOKEN = "repeated-token"
UNKNOWN_WORD = "unknown-word"  # a word outside the lexicon and the source (fitsub.unknown_word)
FLAG_NAMES: tuple[str, ...] = (
    CUT_WORD,
    NUMBER_CHANGED,
    UNTRANSLATED,
    DROPPED_CONTENT,
    OVER_BUDGET,
    REPEATED_TOKEN,
    UNKNOWN_WORD,
)

DROP_RATIO = 0.6  # fitted below 60 % of the unconstrained characters ...
ROOM_SHARE = 0.8  # ... while using less than 80 % of the budget
COPY_SHARE = 0.7  # share of output words copied from the source that reads as untranslated
STEM = 4  # letters a stem shares with its unconstrained word (see `mangled_of`)
MIN_CUT = 3  # shortest word checked for a cut (shorter ones are articles, prepositions)

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
_NUMBER = re.compile(r"\d{1,3}(?:[.,\u00a0\u202f ]\d{3})+(?![\d])|\d+")
_DOUBLED_DIGITS = re.compile(r"(\d{2,})\1")
_CLAUSE = re.compile(r"[.,;:!?…¿¡()\[\]\"“”«»]+")


@runtime_checkable
class KnowsWords(Protocol):
    """A backend that can list the target words it knows (for `cut-word`)."""

    def known_words(self) -> Collection[str]:
        """Lower-cased target words the model knows as such."""
        ...


@dataclass(frozen=True)
class Flag:
    """One quality flag: its name (one of `FLAG_NAMES`) and what it saw."""

    name: str
    detail: str

    def to_dict(self) -> dict[str, str]:
        """A JSON-ready dict."""
        return {"name": self.name, "detail": self.detail}


def words(text: str) -> list[str]:
    """The lower-cased words of `text` (letters; apostrophes inside words kept)."""
    return [unicodedata.normalize("NFC", w).lower() for w in _WORD.findall(text)]


def numbers(text: str) -> list[str]:
    """The numbers of `text` as digit strings, thousands separators removed, in order."""
    return [re.sub(r"\D", "", m) for m in _NUMBER.findall(text)]


def _is_subsequence(short: str, long: str) -> bool:
    it = iter(long)
    return all(ch in it for ch in short)


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def mangled_of(word: str, reference: str) -> bool:
    """Whether `word` reads as `reference` cut short or with letters dropped.

    Cut: a proper prefix ("trasferi" / "trasferiti"). Letters dropped: same first `MIN_CUT`
    letters and a subsequence ("annoato" / "annoiato"). Stem with a short made-up ending: the
    same first `STEM` letters, at least half the word ("costito", "costiata" / "costruita": the
    search cut "costru-" and the model closed the stem with an ending of its own). A word as long as its reference or
    longer is never taken for a mangled one: inflections ("annoiavo" / "annoiato") would be
    flagged too. The caller only asks about words the model does not know (`cut_words`).
    """
    if len(word) < MIN_CUT or len(word) >= len(reference):
        return False
    if reference.startswith(word):
        return True
    prefix = _common_prefix(word, reference)
    if prefix >= STEM and 2 * prefix >= len(word):
        return True
    return prefix >= MIN_CUT and _is_subsequence(word, reference)


def cut_words(
    source: str, fitted: str, unconstrained: str | None, known: Collection[str] = ()
) -> list[str]:
    """The fitted words that look like cut or mangled words of the unconstrained output."""
    if not unconstrained:
        return []
    free = words(unconstrained)
    seen = set(free) | set(words(source)) | {w.lower() for w in known}
    out = []
    for w in words(fitted):
        if w in seen or w in out:
            continue
        if any(mangled_of(w, u) for u in free):
            out.append(w)
    return out


def number_changes(source: str, output: str) -> tuple[list[str], list[str]]:
    """(numbers of the source missing from the output, numbers the output adds)."""
    src, out = Counter(numbers(source)), Counter(numbers(output))
    return sorted((src - out).elements()), sorted((out - src).elements())


def _names_only(source: str) -> bool:
    ws = _WORD.findall(source)
    return len(ws) >= 2 and all(w[:1].isupper() for w in ws)


def copied_share(source: str, output: str) -> float:
    """Share of the output's words that occur in the source (0.0 for an output without words)."""
    out = words(output)
    if not out:
        return 0.0
    src = set(words(source))
    return sum(w in src for w in out) / len(out)


def is_untranslated(source: str, output: str) -> bool:
    """Whether `output` is the source itself, or mostly copies it (see the module docstring)."""
    src, out = words(source), words(output)
    if not out or _names_only(source):
        return False
    if out == src:
        return True
    return len(out) >= 3 and copied_share(source, output) >= COPY_SHARE


def repetitions(source: str, output: str) -> list[str]:
    """Back-to-back repeated words, two-word phrases and doubled digit groups not in the source."""
    found: list[str] = []

    def repeats(ws: Sequence[str]) -> list[str]:
        out = [ws[i] for i in range(1, len(ws)) if ws[i] == ws[i - 1]]
        out += [
            f"{ws[i]} {ws[i + 1]}"
            for i in range(len(ws) - 3)
            if (ws[i], ws[i + 1]) == (ws[i + 2], ws[i + 3]) and ws[i] != ws[i + 1]
        ]
        return out

    def all_repeats(text: str) -> list[str]:  # within clauses: "è? È" is no stutter
        return [r for clause in _CLAUSE.split(text) for r in repeats(words(clause))]

    src_rep = set(all_repeats(source))
    for r in all_repeats(output):
        if r not in src_rep and r not in found:
            found.append(r)
    src_digits = set(numbers(source))
    for n in numbers(output):
        if _DOUBLED_DIGITS.search(n) and n not in src_digits and n not in found:
            found.append(n)
    return found


def dropped_ratio(
    fitted_chars: int, unconstrained_chars: int | None, budget_chars: int | None
) -> float | None:
    """fitted / unconstrained characters when content looks dropped (see module), else None."""
    if not unconstrained_chars or budget_chars is None:
        return None
    ratio = fitted_chars / unconstrained_chars
    if ratio < DROP_RATIO and fitted_chars < ROOM_SHARE * budget_chars:
        return ratio
    return None


def segment_flags(
    source: str,
    fitted: str,
    unconstrained: str | None,
    budget_chars: int | None,
    model_fits: bool = True,
    known: Collection[str] = (),
) -> list[Flag]:
    """Every flag of one fitted segment, in `FLAG_NAMES` order."""
    flags: list[Flag] = []
    cut = cut_words(source, fitted, unconstrained, known)
    if cut:
        flags.append(Flag(CUT_WORD, ", ".join(cut)))
    lost, added = number_changes(source, fitted)
    if lost or added:
        parts = ([f"missing {' '.join(lost)}"] if lost else []) + (
            [f"added {' '.join(added)}"] if added else []
        )
        flags.append(Flag(NUMBER_CHANGED, "; ".join(parts)))
    if is_untranslated(source, fitted):
        flags.append(Flag(UNTRANSLATED, f"{100 * copied_share(source, fitted):.0f} % copied"))
    n = char_length(fitted)
    free_n = None if unconstrained is None else char_length(unconstrained)
    ratio = dropped_ratio(n, free_n, budget_chars)
    if ratio is not None:
        flags.append(
            Flag(
                DROPPED_CONTENT,
                f"{ratio:.2f} of unconstrained ({n}/{free_n}, budget {budget_chars})",
            )
        )
    if (budget_chars is not None and n > budget_chars) or not model_fits:
        why = "" if model_fits else "; no translation fit, shortest shown"
        flags.append(Flag(OVER_BUDGET, f"{n} chars, budget {budget_chars}{why}"))
    rep = repetitions(source, fitted)
    if rep:
        flags.append(Flag(REPEATED_TOKEN, ", ".join(rep)))
    return flags


def count_flags(flag_lists: Sequence[Sequence[Flag]]) -> dict[str, int]:
    """Segments carrying each flag (every name present, 0 when none)."""
    counts = dict.fromkeys(FLAG_NAMES, 0)
    for flags in flag_lists:
        for name in {f.name for f in flags}:
            counts[name] = counts.get(name, 0) + 1
    return counts
