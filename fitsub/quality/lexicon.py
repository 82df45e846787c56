"""The target-language lexicon a model ships with: the words it may write (issue 28).

A word is a maximal run of letters (`[^\\W\\d_]+`) of the NFKC-normalised text, lower-cased:
"dell'anno" holds "dell" and "anno", "COVID-19" holds "covid", "mp3" holds "mp". Digits,
punctuation and spaces are not words (numbers are `number-changed`'s concern, `fitsub.quality.flags`).
NFKC is what SentencePiece's default normaliser applies to the model's training text, so the
lexicon's words are spelled as the model's pieces spell them.

File (`lexicon.txt.gz` in a checkpoint directory; gzip of UTF-8 text, written with a fixed
mtime so that the same counts give the same bytes):

    # fitsub-lexicon 1
    # language: it
    # source: ../shared/data/en-it/train: tatoeba, gettext-ui, ...
    # min-count: 2
    # lines: 744,112
    # words: 61,204
    di	1204311
    ...

The first line names the format and its version (a reader refuses any other); `# key: value`
lines follow; then one `word<TAB>count` line per word, most frequent first. `build_counts`
counts the words of the model's training target text; `write_lexicon` keeps those seen at least
`min_count` times (docs/lexicon.md says why 2).
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from fitsub.errors import InputError
from fitsub.io.atomic import atomic_write_bytes
from fitsub.io.text import gzip_text, read_headed_text

LEXICON_FILE = "lexicon.txt.gz"
FORMAT = "fitsub-lexicon"
VERSION = 1
MIN_COUNT = 2  # a word seen once is as often a typo or a machine-translation artefact as a word
_WORD = re.compile(r"[^\W\d_]+")


def normalize(text: str) -> str:
    """NFKC, lower-cased: the form words are compared in."""
    return unicodedata.normalize("NFKC", text).lower()


def words_of(text: str) -> list[str]:
    """The words of `text` (module docstring), in order."""
    return _WORD.findall(normalize(text))


class WordList(Protocol):
    """A language's word list beside a lexicon (`fitsub.quality.dictionary.Dictionary`)."""

    @property
    def search_words(self) -> frozenset[str]:
        """The listed words the search may write."""
        ...

    @property
    def search_list(self) -> tuple[str, ...]:
        """`search_words`, sorted."""
        ...

    def knows(self, word: str) -> bool:
        """Whether `word` (normalised) is a real word of the language."""
        ...


@dataclass(frozen=True)
class Lexicon:
    """A word list with counts; `knows` a word, `has_prefix` a beginning of one."""

    counts: Mapping[str, int]
    language: str = ""
    source: str = ""
    min_count: int = 1
    path: Path | None = None
    # the language's word list (`fitsub.quality.dictionary`): its words are real, its search words
    # (every listed word that is not English) may be written too
    dictionary: WordList | None = field(default=None, compare=False)

    @functools.cached_property
    def _sorted(self) -> tuple[str, ...]:
        """Every word the search may write, sorted (built on first use: a run that re-fits no
        line never sorts 300,000 words)."""
        if self.dictionary is None:
            return tuple(sorted(self.counts))
        listed, ordered = self.dictionary.search_words, self.dictionary.search_list
        # two sorted runs: Timsort merges them in one pass
        return tuple(sorted([*ordered, *sorted(w for w in self.counts if w not in listed)]))

    def __len__(self) -> int:
        return len(self.counts)

    def knows(self, word: str) -> bool:
        """Whether `word` (normalised) may be written: a word of the lexicon, or of the
        dictionary's search words."""
        return word in self.counts or (
            self.dictionary is not None and word in self.dictionary.search_words
        )

    def real(self, word: str) -> bool:
        """Whether `word` (normalised) is a real word: the lexicon's, or the dictionary's (an
        English-looking one included: `untranslated` judges those; a German compound split)."""
        return word in self.counts or (self.dictionary is not None and self.dictionary.knows(word))

    def has_prefix(self, prefix: str) -> bool:
        """Whether some word of the lexicon starts with `prefix` (normalised); a binary search."""
        i = bisect.bisect_left(self._sorted, prefix)
        return i < len(self._sorted) and self._sorted[i].startswith(prefix)

    def starting_with(self, prefix: str) -> Sequence[str]:
        """The words that start with `prefix` (normalised), in sorted order."""
        lo = bisect.bisect_left(self._sorted, prefix)
        return self._sorted[lo : bisect.bisect_left(self._sorted, prefix + "\U0010ffff", lo)]

    def describe(self) -> str:
        """`lexicon.txt.gz (61,204 words, it)`: for messages."""
        name = self.path.name if self.path is not None else "lexicon"
        return f"{name} ({len(self):,} words{', ' + self.language if self.language else ''})"


def build_counts(paths: Sequence[Path]) -> tuple[Counter[str], int]:
    """(word counts, lines read) over UTF-8 text files; InputError naming an unreadable file."""
    counts: Counter[str] = Counter()
    lines = 0
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    counts.update(words_of(line))
                    lines += 1
        except (OSError, UnicodeDecodeError) as err:
            raise InputError(path, f"cannot read training text: {err}") from err
    return counts, lines


def lexicon_bytes(
    counts: Mapping[str, int], *, min_count: int, language: str, source: str, lines: int
) -> bytes:
    """The gzip file of the words seen at least `min_count` times, most frequent first."""
    kept = sorted(
        ((w, n) for w, n in counts.items() if n >= min_count), key=lambda x: (-x[1], x[0])
    )
    head = [
        f"# {FORMAT} {VERSION}",
        f"# language: {language}",
        f"# source: {source}",
        f"# min-count: {min_count}",
        f"# lines: {lines}",
        f"# words: {len(kept)}",
    ]
    return gzip_text("\n".join(head + [f"{w}\t{n}" for w, n in kept]) + "\n")


def write_lexicon(
    path: Path,
    counts: Mapping[str, int],
    *,
    min_count: int = MIN_COUNT,
    language: str,
    source: str,
    lines: int,
) -> Lexicon:
    """Write the lexicon file atomically and return what a reader will load from it."""
    data = lexicon_bytes(counts, min_count=min_count, language=language, source=source, lines=lines)
    atomic_write_bytes(path, data)
    return read_lexicon(path)


def read_lexicon(path: Path) -> Lexicon:
    """Load a lexicon file; a missing, corrupt or foreign one is an InputError (one line)."""
    path = Path(path)
    meta, body = read_headed_text(path, "lexicon", f"# {FORMAT} {VERSION}")
    counts: dict[str, int] = {}
    for no, line in body:
        word, tab, count = line.partition("\t")
        # a lower-case ASCII run of letters is one word as `words_of` spells it (most lines):
        # only the others pay for NFKC and the regex
        plain = word.isascii() and word.isalpha() and word.islower()
        if not tab or not count.isdigit() or not (plain or words_of(word) == [word]):
            raise InputError(
                path, f"corrupt lexicon: expected 'word<TAB>count', got {line[:40]!r}", line=no
            )
        counts[word] = int(count)
    declared = meta.get("words")
    if declared is not None and declared.isdigit() and int(declared) != len(counts):
        raise InputError(
            path, f"corrupt lexicon: header says {declared} words, file holds {len(counts)}"
        )
    min_count = meta.get("min-count", "1")
    return Lexicon(
        counts,
        language=meta.get("language", ""),
        source=meta.get("source", ""),
        min_count=int(min_count) if min_count.isdigit() else 1,
        path=path,
    )


def model_lexicon(model_dir: Path) -> Lexicon | None:
    """The lexicon shipped in a checkpoint directory (`lexicon.txt.gz`), None without one."""
    path = Path(model_dir) / LEXICON_FILE
    return read_lexicon(path) if path.is_file() else None


def unknown_words(
    text: str, sources: Iterable[str], lexicon: Lexicon, extra: Collection[str] = ()
) -> list[str]:
    """The words of `text` that are neither in `lexicon`, nor in any of `sources`, nor words of
    `extra` (glossary terms), each once, in order of appearance (as `text` spells them); a
    word of the lexicon's dictionary is real (`Lexicon.real`)."""
    allowed = {w for s in sources for w in words_of(s)} | {w for e in extra for w in words_of(e)}
    out: list[str] = []
    seen: set[str] = set()
    for m in _WORD.finditer(unicodedata.normalize("NFKC", text)):
        w = m.group().lower()
        if w in seen or lexicon.real(w) or w in allowed:
            continue
        seen.add(w)
        out.append(m.group())
    return out


def build_lexicon(
    data: Path, corpora: Sequence[str], language: str, out: Path, min_count: int = MIN_COUNT
) -> Lexicon:
    """Count the words of `data/CORPUS.LANGUAGE` for each corpus and write the lexicon to `out`."""
    if not corpora:
        raise InputError(None, "name at least one training corpus", setting="corpus")
    if min_count < 1:
        raise InputError(None, f"must be at least 1, got {min_count}", setting="min_count")
    paths = [Path(data) / f"{c}.{language}" for c in corpora]
    for p in paths:
        if not p.is_file():
            raise InputError(p, "no such training text (corpus names are file stems in --data)")
    counts, lines = build_counts(paths)
    source = f"{data}: {', '.join(corpora)}"
    return write_lexicon(
        out, counts, min_count=min_count, language=language, source=source, lines=lines
    )
