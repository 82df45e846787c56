"""The shipped bilingual dictionaries: English → Italian, German and French from the English
Wiktionary (issue 54, item 3), read for `fitsub translate --terms dictionary`.

`dictionaries/en-LL.tsv.gz` beside the `fitsub` package (as `models/`): Matthias Buchmeier's
English-Wiktionary translation lists (version 20150102), converted by
`experiments/dialogue/dictionary/build.py`, each under its own licence, CC BY-SA 3.0 Unported
or the GFDL (`dictionaries/LICENSE`, `dictionaries/README.md`): not fitsub's code licence, and
never part of a model folder. Spanish has none: its terms cost 0.49 BLEU on fitted subtitle
lines (docs/results/dialogue.md, "Rare words").

Format: gzip of UTF-8 text; lines starting with ``# `` are comments, then a header line and one
row per sense, tab-separated (`COLUMNS`): the English headword, its part of speech (n, v, adj,
adv, prop, …), the sense number, ``1`` for Wiktionary's first sense, the sense's gloss, the
translations and their gender marks (``|``-separated, parallel) and the headword a ``SEE:``
redirect was resolved to. A headword's senses are kept in file order, the first sense first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from fitsub.errors import InputError
from fitsub.io.unpack import gunzip_bounded

DICTIONARIES = Path(__file__).resolve().parents[2] / "dictionaries"
COLUMNS = ("en", "pos", "sense", "first", "gloss", "targets", "genders", "via")
SIZE_LIMIT = 64 << 20  # bytes a decompressed list may hold (the largest, de: 4.6 MiB)


@dataclass(frozen=True)
class Sense:
    """One sense of a headword: whether it is Wiktionary's first, its gloss, its translations
    and their gender marks (parallel; a mark may be empty)."""

    first: bool
    gloss: str
    targets: tuple[str, ...]
    genders: tuple[str, ...]


Senses = Mapping[str, tuple[Sense, ...]]  # part of speech → senses, the first sense first
NO_SENSES: Senses = {}


@dataclass(frozen=True)
class BilingualDictionary:
    """English headword → part of speech → senses, into language `lang`."""

    lang: str
    entries: Mapping[str, Senses]
    path: Path | None = None

    def of(self, word: str) -> Senses:
        """The parts of speech and senses of headword `word` (none: empty)."""
        return self.entries.get(word, NO_SENSES)


def dictionary_path(lang: str) -> Path:
    """Where the shipped dictionary into `lang` lies (it may not exist)."""
    return DICTIONARIES / f"en-{lang}.tsv.gz"


def shipped_languages() -> tuple[str, ...]:
    """The target languages a dictionary is shipped for, sorted."""
    return tuple(sorted(p.name[3:-7] for p in DICTIONARIES.glob("en-*.tsv.gz")))


def parse_bilingual(text: str, lang: str, path: Path | None = None) -> BilingualDictionary:
    """A dictionary from its text (module docstring); `InputError` for another header."""
    lines = [line for line in text.splitlines() if not line.startswith("# ")]
    if not lines or tuple(lines[0].split("\t")) != COLUMNS:
        raise InputError(path, f"not a bilingual dictionary (expected the header {COLUMNS})")
    entries: dict[str, dict[str, list[Sense]]] = {}
    for number, line in enumerate(lines[1:], start=2):
        cells = line.split("\t")
        if len(cells) != len(COLUMNS):
            raise InputError(path, f"expected {len(COLUMNS)} columns, found {len(cells)}", number)
        en, pos, _, first, gloss, targets, genders, _ = cells
        sense = Sense(first == "1", gloss, tuple(targets.split("|")), tuple(genders.split("|")))
        entries.setdefault(en, {}).setdefault(pos, []).append(sense)
    frozen = {w: {p: tuple(s) for p, s in by_pos.items()} for w, by_pos in entries.items()}
    return BilingualDictionary(lang, frozen, path)


def read_bilingual(path: Path, lang: str) -> BilingualDictionary:
    """A dictionary file (gzip when named ``.gz``, else plain UTF-8 text)."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise InputError(path, f"cannot read the dictionary: {err.strerror or err}") from None
    if path.suffix == ".gz":
        raw = gunzip_bounded(raw, SIZE_LIMIT, path, "dictionary")
    return parse_bilingual(raw.decode("utf-8"), lang, path)


def load_bilingual(lang: str, src_lang: str = "en") -> BilingualDictionary:
    """The shipped dictionary into `lang`; `InputError` about `terms` (one line naming the
    languages that have one) when there is none."""
    shipped = shipped_languages()
    if src_lang != "en":
        raise InputError(
            None,
            f"dictionary: the dictionaries translate from English, not {src_lang}",
            setting="terms",
        )
    path = dictionary_path(lang)
    if not path.is_file():
        have = ", ".join(shipped) if shipped else "none"
        raise InputError(
            None,
            f"dictionary: no dictionary into {lang}; dictionaries/ has one into {have}",
            setting="terms",
        )
    return read_bilingual(path, lang)
