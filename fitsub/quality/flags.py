"""Quality flags for fitted translations, computed without a reference translation.

A budget can be met in ways a subtitler must see: a word cut or mangled to fit, a number
changed, English left as it was, half the sentence dropped while there was room, a fallback
over budget, a token stuttered. Each flag is a pure function of the source, the fitted and the
unconstrained translations (and the budget); `segment_flags` runs them all. The checks are
heuristics tuned to miss little: a flag asks for a look, it does not prove an error. Each flag's
name, severity and meaning are defined in `fitsub.quality.registry`; here are the checks.

* `cut-word`: a fitted word the model does not know (`known`: its vocabulary's whole-word pieces
  and the words of the document's unconstrained outputs; nor in this unconstrained output or the
  source) that is a truncation or a mangled variant (same start, letters dropped) of a word of
  the unconstrained output, e.g. "annoato" / "annoa" for "annoiato", "trasferi" for
  "trasferiti". Longer variants ("Romas") are not caught; without `known`, a prefix inflection ("guarda" / "guardate") is.
* `number-changed`: the numbers differ, as multisets, from the source's: "2019" -> "201919",
  "fifty thousand" -> "" . Digit runs ("1,000" and "1.000" both read 1000; "10:30" and "10.30"
  both read 10 and 30; whole hours read without their ":00"; "3 pm" reads 15) and, given the
  languages, numbers written as words (`fitsub.quality.numbers`: "fifty thousand" = "cinquantamila"
  = 50000).
* `untranslated`: the output equals the source (case and punctuation aside), or at least 70 %
  of its words (3 words or more) are copied from it; unless every copied word is one a
  translation keeps: an interjection (`INTERJECTIONS`: "OK", "Hmm"), or, with the unconstrained
  translation, a word it kept too in a line of at most `SHORT_LINE` words (a name, "Scales?",
  or a borrowed word such as "Computer"). Sources made only of capitalised words of two words
  or more (names, titles) are not flagged.
* `dropped-content`: meaning-bearing tokens of the unconstrained translation are missing from
  the fitted one: a number or a name (a capitalised word of the source that the unconstrained
  translation kept); or fitted / unconstrained characters below `DROP_RATIO` while the budget
  left room (fitted below `ROOM_SHARE` of the budget) and at least `DROP_WORDS` more content
  words (`CONTENT_LETTERS` letters or more) in the unconstrained translation: "Danke." for
  "Vielen Dank!" drops no meaning. The detail names what went missing. With the model's word
  links, also a source word the unconstrained translation has a counterpart for and the fitted
  one has not ("no counterpart for shoes"; `fitsub.pipeline.assemble.flag_segments`,
  `fitsub.quality.links.lost_by_fitting`).
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

from fitsub.quality.lexicon import Lexicon, unknown_words
from fitsub.quality.numbers import compound_values, number_words
from fitsub.quality.registry import (
    CUT_WORD,
    DROPPED_CONTENT,
    FLAG_NAMES,
    NUMBER_CHANGED,
    OVER_BUDGET,
    REPEATED_TOKEN,
    UNKNOWN_WORD,
    UNTRANSLATED,
)
from fitsub.units import char_length

DROP_RATIO = 0.6  # fitted below 60 % of the unconstrained characters ...
ROOM_SHARE = 0.8  # ... while using less than 80 % of the budget
COPY_SHARE = 0.7  # share of output words copied from the source that reads as untranslated
SHORT_LINE = 2  # a line this short kept as is by the unconstrained translation too: a name
DROP_WORDS = 2  # content words the fitted text must lack for the length rule to flag a drop
CONTENT_LETTERS = 4  # shortest content word (shorter ones: articles, prepositions, "Dank")
INTERJECTIONS = frozenset(
    "ok okay hey hi oh ah aah eh uh um hmm hm mm wow whoa yeah yay ouch oops ha haha shh psst "
    "bravo ciao hallo hello bye".split()
)
STEM = 4  # letters a stem shares with its unconstrained word (see `mangled_of`)
MIN_CUT = 3  # shortest word checked for a cut (shorter ones are articles, prepositions)

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
_TIME = re.compile(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?\s?m\b\.?", re.IGNORECASE)
_WHOLE_HOUR = re.compile(r"\b(\d{1,2})[:.h]00\b")
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
    """One flag on a segment: its name (`fitsub.quality.registry`) and what it saw."""

    name: str
    detail: str

    def to_dict(self) -> dict[str, str]:
        """A JSON-ready dict."""
        return {"name": self.name, "detail": self.detail}


def words(text: str) -> list[str]:
    """The lower-cased words of `text` (letters; apostrophes inside words kept)."""
    return [unicodedata.normalize("NFC", w).lower() for w in _WORD.findall(text)]


def _clock(m: re.Match[str]) -> str:
    """ "3 pm" -> "15", "12 am" -> "0", "10:30 am" -> "10:30" (a 24-hour time)."""
    hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "p" else 0)
    return f"{hour}:{m.group(2)}" if m.group(2) and m.group(2) != "00" else str(hour)


def numbers(text: str, lang: str | None = None) -> list[str]:
    """The numbers of `text` as digit strings, thousands separators removed: the digit runs in
    order (12-hour times as 24-hour, whole hours without ":00"), then, with `lang`, the numbers
    written as words (`fitsub.quality.numbers`)."""
    text = _WHOLE_HOUR.sub(r"\1", _TIME.sub(_clock, text))
    digits = [
        str(int(re.sub(r"\D", "", m))) if m.strip("0") else "0" for m in _NUMBER.findall(text)
    ]
    return digits + (number_words(text, lang) if lang else [])


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
    search cut "costru-" and the model closed the stem with an ending of its own). A word as long as its reference or longer
    is never a mangled one (inflections: "annoiavo" / "annoiato"). Only asked of words the model does not know (`cut_words`).
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
    """The fitted words that look like cut or mangled words of the unconstrained output;
    `known`: lower-cased words that are never cut (the vocabulary's whole words: read as they
    are, not copied, as this runs for every candidate of every fitted segment)."""
    if not unconstrained:
        return []
    free = words(unconstrained)
    seen = set(free) | set(words(source))
    out = []
    for w in words(fitted):
        if w in seen or w in known or w in out:
            continue
        if any(mangled_of(w, u) for u in free):
            out.append(w)
    return out


def number_changes(
    source: str, output: str, src_lang: str | None = None, tgt_lang: str | None = None
) -> tuple[list[str], list[str]]:
    """(numbers of the source missing from the output, numbers the output adds); number words
    read in `src_lang` / `tgt_lang` when given.

    A number word the output copies from the source ("ten" left in English, as `--model
    identity` leaves every word) is read in the source's language too: it is not missing.
    """
    src, out = Counter(numbers(source, src_lang)), Counter(numbers(output, tgt_lang))
    kept = out | Counter(numbers(output, src_lang)) if src_lang != tgt_lang else out
    inside = compound_values(output, tgt_lang) if tgt_lang else set()
    lost = [n for n in sorted((src - kept).elements()) if n not in inside]
    return lost, sorted((out - src).elements())


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


def kept_as_is(source: str, output: str, unconstrained: str | None) -> bool:
    """Whether every word `output` copies from the source is one a translation keeps: an
    interjection, or, in a line of at most `SHORT_LINE` words, a word the unconstrained
    translation kept too (a name, a borrowed word)."""
    src = set(words(source))
    copied = [w for w in words(output) if w in src]
    free = set(words(unconstrained or "")) if len(words(source)) <= SHORT_LINE else set()
    return all(w in INTERJECTIONS or w in free for w in copied)


def is_untranslated(source: str, output: str, unconstrained: str | None = None) -> bool:
    """Whether `output` is the source itself, or mostly copies it (see the module docstring)."""
    src, out = words(source), words(output)
    if not out or _names_only(source):
        return False
    copied = out == src or (len(out) >= 3 and copied_share(source, output) >= COPY_SHARE)
    return copied and not kept_as_is(source, output, unconstrained)


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


def content_words(text: str) -> list[str]:
    """The words of `text` with at least `CONTENT_LETTERS` letters (articles, prepositions,
    pronouns and most function words are shorter)."""
    return [w for w in words(text) if len(w) >= CONTENT_LETTERS]


_OPENS = re.compile(r"[.!?:;…\"“”«»(\[—–-]\s*$")


def names_of(source: str) -> list[str]:
    """Capitalised words of the source that do not open a sentence, a quotation or a
    parenthesis (those are capitalised anyway), lower-cased."""
    out = []
    for m in _WORD.finditer(source):
        before = source[: m.start()]
        if m.group()[:1].isupper() and len(m.group()) > 1 and before.strip():
            if not _OPENS.search(before):
                out.append(m.group().lower())
    return out


def dropped_tokens(
    source: str, fitted: str, unconstrained: str | None, tgt_lang: str | None = None
) -> list[str]:
    """Numbers and names the unconstrained translation keeps and the fitted one lacks."""
    if not unconstrained:
        return []
    free_words, fitted_words = set(words(unconstrained)), set(words(fitted))
    lost = [n for n in names_of(source) if n in free_words and n not in fitted_words]
    free_n, fitted_n = Counter(numbers(unconstrained, tgt_lang)), Counter(numbers(fitted, tgt_lang))
    src_n = Counter(numbers(source))
    lost += sorted(((free_n & src_n) - fitted_n).elements())
    return list(dict.fromkeys(lost))


def dropped_content(
    source: str,
    fitted: str,
    unconstrained: str | None,
    budget_chars: int | None,
    tgt_lang: str | None = None,
) -> str | None:
    """What the fitted text dropped (see the module docstring), or None."""
    lost = dropped_tokens(source, fitted, unconstrained, tgt_lang)
    if lost:
        return "lost " + ", ".join(lost)
    if unconstrained is None:
        return None
    n, free_n = char_length(fitted), char_length(unconstrained)
    ratio = dropped_ratio(n, free_n, budget_chars)
    missing = len(content_words(unconstrained)) - len(content_words(fitted))
    if ratio is None or missing < DROP_WORDS:
        return None
    return f"{ratio:.2f} of unconstrained ({n}/{free_n}, budget {budget_chars})"


def segment_flags(
    source: str,
    fitted: str,
    unconstrained: str | None,
    budget_chars: int | None,
    model_fits: bool = True,
    known: Collection[str] = (),
    src_lang: str | None = "en",
    tgt_lang: str | None = None,
) -> list[Flag]:
    """Every flag of one fitted segment, in `FLAG_NAMES` order (`tgt_lang`: the target
    language, for numbers written as words)."""
    flags: list[Flag] = []
    cut = cut_words(source, fitted, unconstrained, known)
    if cut:
        flags.append(Flag(CUT_WORD, ", ".join(cut)))
    lost, added = number_changes(source, fitted, src_lang if tgt_lang else None, tgt_lang)
    if lost or added:
        parts = ([f"missing {' '.join(lost)}"] if lost else []) + (
            [f"added {' '.join(added)}"] if added else []
        )
        flags.append(Flag(NUMBER_CHANGED, "; ".join(parts)))
    if is_untranslated(source, fitted, unconstrained):
        flags.append(Flag(UNTRANSLATED, f"{100 * copied_share(source, fitted):.0f} % copied"))
    n = char_length(fitted)
    dropped = dropped_content(
        source=source,
        fitted=fitted,
        unconstrained=unconstrained,
        budget_chars=budget_chars,
        tgt_lang=tgt_lang,
    )
    if dropped is not None:
        flags.append(Flag(DROPPED_CONTENT, dropped))
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


def unknown_word_flag(
    fitted: str, sources: Sequence[str], lexicon: Lexicon, terms: Collection[str] = ()
) -> Flag | None:
    """`unknown-word` naming the words of `fitted` outside `lexicon`, `sources` and `terms`.

    The search keeps every word to the lexicon (`fitsub.nmt.lexicon_mask`); only a segment that
    nothing within its bounds satisfies gets a word from outside it, and this flag names it. The
    same test runs on every fitted segment, so a word from anywhere else (a backend without the
    constraint but with a lexicon) is named too. Words of the sentence's other cues' sources and
    glossary targets count as copied."""
    found = unknown_words(fitted, sources, lexicon, terms)
    return Flag(UNKNOWN_WORD, ", ".join(found)) if found else None
