"""Real words from a dictionary made for the job: wordfreq's large word lists (issue 43).

The model's lexicon (`fitsub.quality.lexicon`: its training words seen twice) misses real words a
translation may need ("apiari", "accediamo", "impia"). Beside it, fitsub reads the word
frequency list of the target language and of English from wordfreq (Speer 2022, "wordfreq
v3.0", built from subtitles, Wikipedia, books, news and web text; pinned in pyproject.toml, its
data inside the wheel, so nothing is downloaded at run time):

* a word of the target list is **real**: never `unknown-word`, and the search may write it
  (`Dictionary.search_words`, merged into the lexicon by `with_dictionary`);
* a word is **English** when its frequency in the English list is at least `ENGLISH_MARGIN`
  zipf above its frequency in the target list ("blade": it 3.28, en 4.19; "computer": it 4.86,
  en 4.97 is Italian) and it is not a loanword of `LOANWORDS`; English words are not search
  words, and a line that holds one is not in its target language (`english_words`);
* German compounds are split: "Bienenstockwaage" is real when it is a run of listed words of
  at least `COMPOUND_PART` letters each, joined directly or by a linking "s" ("Arbeitszeit").

Words are compared as `fitsub.quality.lexicon.words_of` spells them (NFKC, lower case, letter runs):
a list entry with an apostrophe ("dell'anno") gives its parts.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import math
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from fitsub.errors import InputError
from fitsub.io.unpack import gunzip_bounded
from fitsub.quality import lexicon as lexicon_module
from fitsub.quality import word_cache
from fitsub.quality.lexicon import Lexicon, words_of

WORDLIST = "large"  # wordfreq's list with every word seen at least once in 10^8
ENGLISH_MARGIN = 0.5  # zipf: English when en - target >= this ("blade" 0.91, "computer" 0.11)
HOMOGRAPH_ZIPF = 4.0  # a target word this common is English only beside English ("tu as")
# English titles: capitalised mid-sentence, yet no name ("Mein Nachbar, Mr. Okafor, lachte")
HONORIFICS = frozenset({"mr", "mrs", "ms", "miss", "mister", "sir"})
NAME_ZIPF = 3.0  # a capitalised source word rarer than this in English reads as a name
LIST_LIMIT = 32 << 20  # bytes a decompressed word list may hold (the largest, ru: 12.5 MiB)
COMPOUND_PART = 4  # shortest part of a split German compound ...
COMPOUND_ZIPF = 2.5  # ... and its least frequency (the large list holds fragments: "blab", "lub")
LANGUAGES = ("it", "de", "fr", "es")
# words the target language borrowed from English, written as in English, that the lists see
# more often in English text (compared in lower case); and "varroa", the mite's Latin name, used
# as it is in every language
LOANWORDS: Mapping[str, frozenset[str]] = {
    "it": frozenset(
        "ok okay weekend week sport bar club team manager marketing online email mail web "
        "software hardware computer internet social show star fan selfie smartphone leader "
        "hobby jeans shopping stop sexy cool baby killer thriller gay trend business "
        "partner privacy chat computer file link post blog varroa".split()
    ),
    "de": frozenset(
        "ok okay team job computer internet email online software fan baby cool show star "
        "party handy meeting manager training trend shopping stop sexy blog link chat varroa".split()
    ),
    "fr": frozenset(
        "ok okay week weekend email mail internet online software fan baby cool show star "
        "parking shopping stop sexy blog chat manager football club bar varroa".split()
    ),
    "es": frozenset(
        "ok okay email internet online software fan baby cool show star club bar fútbol "
        "marketing stop sexy blog chat manager varroa".split()
    ),
}


def _zipf_by_word(buckets: Sequence[Sequence[str]]) -> dict[str, float]:
    """A wordfreq cBpack list (bucket `i` holds the words of frequency 10^(-i/100), Speer 2022)
    as zipf frequencies (log10 of the frequency per billion words), keyed by fitsub's words (an
    entry's letter runs, the highest frequency kept).

    Built bucket by bucket from the rarest up, so that a word's most frequent bucket is written
    last, with `dict.fromkeys` for the entries that are one word already (most of them): a
    third of the time of a loop over 300,000 entries."""
    out: dict[str, float] = {}
    for i in range(len(buckets) - 1, -1, -1):
        bucket = buckets[i]
        if not bucket:
            continue
        z = math.log10(10.0 ** (-i / 100.0)) + 9.0  # wordfreq's cB_to_freq, as zipf
        simple = [w for w in bucket if w.isalpha() and w.islower()]
        if len(simple) < len(bucket):
            plain = set(simple)
            out.update(dict.fromkeys((p for w in bucket if w not in plain for p in words_of(w)), z))
        out.update(dict.fromkeys(simple, z))
    return out


@dataclass(frozen=True)
class Dictionary:
    """The target language's word list and English's, as zipf frequencies by word."""

    language: str
    target: Mapping[str, float]
    english: Mapping[str, float]
    source: str = ""
    cache_key: str = ""  # a digest of the lists read (`fitsub.quality.word_cache`); "": no cache

    def zipf(self, word: str) -> float:
        """The word's zipf frequency in the target list (0: not listed)."""
        return self.target.get(word, 0.0)

    def knows(self, word: str) -> bool:
        """Whether `word` (normalised) is a listed word of the target language or, in German,
        a compound of listed words."""
        if word in self.target:
            return True
        return self.language == "de" and self.compound(word) is not None

    def compound(self, word: str) -> list[str] | None:
        """The parts of a German compound of listed words (a linking "s" allowed), or None."""
        return _split(word, self.target)

    def is_english(self, word: str) -> bool:
        """Whether `word` reads as English rather than the target language (module docstring)."""
        if word in LOANWORDS.get(self.language, frozenset()):
            return False
        en = self.english.get(word, 0.0)
        if en == 0.0:
            return False
        if self.language == "de" and word not in self.target and self.compound(word):
            return False
        return en - self.target.get(word, 0.0) >= ENGLISH_MARGIN

    @functools.cached_property
    def search_list(self) -> tuple[str, ...]:
        """The listed words the search may write, sorted: every target word that is not English
        (built on first use, `is_english` inlined over the words both lists hold; read from the
        cache when `cache_key` names the lists it was derived from)."""
        if not self.cache_key:
            return self._search_list()
        inputs = [self.cache_key.encode(), *word_cache.sources(__file__)]
        return word_cache.cached_words(f"search-{self.language}", inputs, self._search_list)

    def _search_list(self) -> tuple[str, ...]:
        loan, en, target = LOANWORDS.get(self.language, frozenset()), self.english, self.target
        english = {
            w
            for w in target.keys() & en.keys()
            if en[w] - target[w] >= ENGLISH_MARGIN and w not in loan
        }
        return tuple(sorted(target.keys() - english))

    @functools.cached_property
    def search_words(self) -> frozenset[str]:
        """`search_list` as a set."""
        return frozenset(self.search_list)


def _split(word: str, target: Mapping[str, float]) -> list[str] | None:
    """`word` as 2-4 listed words of `COMPOUND_PART`+ letters and zipf `COMPOUND_ZIPF`+ (each
    but the last may take a linking "s"), the longest first part first; None if none."""

    def part(w: str) -> bool:
        return len(w) >= COMPOUND_PART and target.get(w, 0.0) >= COMPOUND_ZIPF

    def go(rest: str, depth: int) -> list[str] | None:
        if depth > 0 and part(rest):
            return [rest]
        if depth >= 3:
            return None
        for cut in range(len(rest) - COMPOUND_PART, COMPOUND_PART - 1, -1):
            head, tail = rest[:cut], rest[cut:]
            heads = [head] + ([head[:-1]] if head.endswith("s") and len(head) > 4 else [])
            for h in heads:
                if part(h):
                    found = go(tail, depth + 1)
                    if found is not None:
                        return [h, *found]
        return None

    return go(word, 0)


def english_words(
    text: str, dictionary: Dictionary, exempt: Iterable[str] = (), known: Collection[str] = ()
) -> list[str]:
    """The words of `text` that read as English (`Dictionary.is_english`), each once, in order;
    words of `exempt` (names and proper nouns kept from the source, glossary terms: any text)
    are not counted, nor words of `known` (lower-cased words the caller accepts).

    A common word of the target language spelled as an English one (target zipf at least
    `HOMOGRAPH_ZIPF`: French "tu as", "trop long", Spanish "he oído", "has pensado", German
    "jeden Stock", "fair") is English only beside another English word ("and" in "bread and
    butter", "the" in "the bell"): alone, it is the target language's word. English titles
    (`HONORIFICS`: "Mr.") are no target word however often the lists see them."""
    free = {w for e in exempt for w in words_of(e)} | set(known)
    words = words_of(text)
    english = [w not in free and dictionary.is_english(w) for w in words]
    out: list[str] = []
    for i, w in enumerate(words):
        if not english[i] or w in out:
            continue
        if dictionary.zipf(w) >= HOMOGRAPH_ZIPF and w not in HONORIFICS:
            beside = (i > 0 and english[i - 1]) or (i + 1 < len(words) and english[i + 1])
            if not beside:
                continue
        out.append(w)
    return out


def list_path(lang: str) -> Path:
    """Where wordfreq's large list of `lang` lies inside its package (found without importing
    wordfreq, whose import costs 0.2-0.4 s: it walks the stack to find its own folder)."""
    spec = importlib.util.find_spec("wordfreq")
    if spec is None or spec.origin is None:
        raise InputError(None, "word lists: wordfreq is not installed (pip install wordfreq)")
    return Path(spec.origin).parent / "data" / f"{WORDLIST}_{lang}.msgpack.gz"


def read_cbpack(path: Path) -> list[list[str]]:
    """The buckets of a cBpack file (gzip of msgpack: a header {"format": "cB", "version": 1},
    then one list of words per centibel of frequency; wordfreq's `read_cBpack`), decompressed
    within `LIST_LIMIT`; InputError naming the file when it is missing, corrupt or not cBpack."""
    import msgpack  # wordfreq's own dependency

    try:
        raw = path.read_bytes()
    except OSError as err:
        raise InputError(path, f"cannot read the word list: {err.strerror or err}") from err
    data = gunzip_bounded(raw, LIST_LIMIT, path, "word list")
    try:
        packed = msgpack.unpackb(data, raw=False)
    except (ValueError, msgpack.UnpackException) as err:
        raise InputError(path, f"cannot read the word list: {err}") from err
    header = packed[0] if isinstance(packed, list) and packed else None
    if not isinstance(header, dict) or header.get("format") != "cB" or header.get("version") != 1:
        raise InputError(path, "not a word list of wordfreq's cBpack format (bad header)")
    buckets: list[list[str]] = packed[1:]
    if not all(isinstance(b, list) and all(isinstance(w, str) for w in b) for b in buckets):
        raise InputError(
            path, "not a word list of wordfreq's cBpack format (a bucket is not words)"
        )
    if not any(buckets):
        raise InputError(path, "the word list is empty")
    return buckets


def _list_bytes(lang: str) -> bytes:
    path = list_path(lang)
    try:
        return path.read_bytes()
    except OSError as err:
        raise InputError(path, f"cannot read the word list: {err.strerror or err}") from err


def _wordfreq_list(lang: str) -> dict[str, float]:
    """wordfreq's large list of `lang` as zipf by fitsub word; InputError naming the list.
    Derived once per list and code (`fitsub.quality.word_cache`), then read back."""
    inputs = [_list_bytes(lang), *word_cache.sources(__file__, lexicon_module.__file__)]
    return word_cache.cached_table(
        f"zipf-{lang}", inputs, lambda: _zipf_by_word(read_cbpack(list_path(lang)))
    )


@functools.lru_cache(maxsize=2)
def _cached_list(lang: str) -> dict[str, float]:
    return _wordfreq_list(lang)


@functools.lru_cache(maxsize=4)
def load_dictionary(lang: str) -> Dictionary | None:
    """The dictionary of target language `lang` (None for a language without one: only
    `LANGUAGES`); read once per process. A missing or corrupt list is an InputError."""
    if lang not in LANGUAGES:
        return None
    target, english = _cached_list(lang), _cached_list("en")
    from importlib.metadata import version

    key = word_cache.digest(_list_bytes(code) for code in (lang, "en"))
    return Dictionary(
        language=lang,
        target=target,
        english=english,
        source=f"wordfreq {version('wordfreq')}",
        cache_key=key,
    )


def with_dictionary(lexicon: Lexicon, lang: str | None = None) -> Lexicon:
    """`lexicon` with the dictionary of its language (or `lang`) beside it: its words are real
    and the search may write the listed words that are not English; unchanged for a language
    without one."""
    dictionary = load_dictionary(lang or lexicon.language)
    if dictionary is None:
        return lexicon
    return dataclasses.replace(lexicon, dictionary=dictionary)


def title_case(text: str) -> bool:
    """Whether `text` is written in Title Case (a slide heading: "The Library Of Bees"): two
    words of 4+ letters or more, every one capitalised, and no sentence's closing mark."""
    long = [w for w in re.findall(r"[^\W\d_]+", text) if len(w) >= 4]
    closed = text.rstrip().endswith((".", "!", "?", "…"))
    return len(long) >= 2 and all(w[0].isupper() for w in long) and not closed


def english_left(
    source: str, output: str, dictionary: Dictionary, terms: Collection[str] = ()
) -> list[str]:
    """English words of `output` (`english_words`), names and proper nouns of the source
    exempt (`fitsub.quality.flags.names_of`: capitalised words that open no sentence; and any
    capitalised source word rarer than `NAME_ZIPF` in English: "Okafor" after "Mr."; not a word
    written in capitals: "THE BAKERY - OPEN AT SIX" names nothing), and so are
    interjections ("OK", "hey") and glossary `terms`: the words a translation left in English."""
    from fitsub.quality.flags import INTERJECTIONS, names_of

    found = re.findall(r"[^\W\d_]+", source)
    shouted = {w.lower() for w in found if len(w) > 1 and w.isupper()}  # a sign in capitals
    capitalised = [w.lower() for w in found if w[:1].isupper() and w.lower() not in shouted]
    rare = [w for w in capitalised if dictionary.english.get(w, 0.0) < NAME_ZIPF]
    names = [w for w in names_of(source) if w not in shouted and w not in HONORIFICS]
    if title_case(source) and not rare:  # "The Library Of Bees": its capitals name nothing
        names = []
    return english_words(output, dictionary, exempt=terms, known=[*names, *rare, *INTERJECTIONS])
