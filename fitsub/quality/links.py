"""Word links a model ships with: which target words go with each English word (issue 28).

A translation that lost part of its source often reads well; what gives it away is an English
content word that no word of the output translates ("A dangerous quest for a lone hunter." →
"Un americano per un cacciatore": nothing for "dangerous", "quest", "lone"). The links say which
target words translate an English word, learnt from the model's training text by the Dice
coefficient of the two words over sentence pairs,

    dice(e, f) = 2 c(e, f) / (c(e) + c(f)),

c(e) the number of sentence pairs whose English side holds e, c(e, f) those holding e on the
English side and f on the target side (Smadja, McKeown & Hatzivassiloglou 1996, "Translating
Collocations for Bilingual Lexicons: A Statistical Approach", Computational Linguistics 22(1),
eq. 1). A pair is a link when dice >= `MIN_DICE` and it was seen in at least `MIN_PAIR` sentence
pairs; words seen in fewer than `MIN_COUNT` are left out, and so are the `FUNCTION_WORDS` most
frequent English words (articles, prepositions: they need no counterpart). Words are those of
`fitsub.quality.lexicon.words_of` (NFKC, lower-cased letters).

The quality signal (`link_signals`, used by `fitsub.quality.score`): `src_unlinked`, the number of the
source's content words that neither occur in the output (copied: names) nor have a link there.
The thresholds were chosen on the marked dev lines (experiments/quality-estimation/qe_dice.py;
docs/results/quality.md).

File (`links.txt.gz` in a checkpoint directory; gzip of UTF-8 text, fixed mtime):

    # fitsub-links 1
    # languages: en it
    # source: ../shared/data/en-it/train: tatoeba, gettext-ui, ...
    # measure: dice >= 0.02; words in >= 3 sentence pairs, links in >= 2
    # function: the to a of and ...
    # entries: 30,894
    dangerous<TAB>pericoloso pericolosa pericolosi ...

one line per English content word, its links best first. A reader refuses another first line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path

import numpy as np

from fitsub.errors import InputError
from fitsub.io.atomic import atomic_write_bytes
from fitsub.io.text import gzip_text, read_headed_text
from fitsub.quality.lexicon import words_of

LINKS_FILE = "links.txt.gz"
FORMAT = "fitsub-links"
VERSION = 1
MIN_COUNT = 3  # a word seen in fewer sentence pairs has no links (too few to tell)
MIN_PAIR = 2  # a pair of words seen together once is not a link
MIN_DICE = 0.02  # chosen on the marked dev lines: 0.01-0.02 best, 0.05 and up lose recall
FUNCTION_WORDS = 400  # the most frequent English words: no counterpart expected
_CHUNK = 20_000  # sentence pairs counted at once (memory: a few hundred MB)
LINK_SIGNALS = ("src_unlinked",)


@dataclass(frozen=True)
class Measure:
    """What makes a link (the defaults are the shipped models')."""

    min_count: int = MIN_COUNT
    min_pair: int = MIN_PAIR
    min_dice: float = MIN_DICE
    function_words: int = FUNCTION_WORDS

    def describe(self) -> str:
        return (
            f"dice >= {self.min_dice}; words in >= {self.min_count} sentence pairs, "
            f"links in >= {self.min_pair}"
        )


@dataclass(frozen=True)
class WordLinks:
    """English content word → the target words that translate it (space-separated, best
    first: split when looked up, so that loading stays fast); the function words."""

    links: Mapping[str, str]
    function: frozenset[str]
    languages: tuple[str, str] = ("en", "")
    source: str = ""
    path: Path | None = None

    def unlinked(self, source: str, output: str) -> list[str]:
        """The content words of `source`, each once, that neither occur in `output` nor have a
        link there (as normalised words, in order)."""
        out = set(words_of(output))
        seen: set[str] = set()
        missing = []
        for w in words_of(source):
            if w in seen or w in self.function:
                continue
            seen.add(w)
            if w not in out and not out.intersection(self.links.get(w, "").split(" ")):
                missing.append(w)
        return missing

    def describe(self) -> str:
        name = self.path.name if self.path is not None else "links"
        return f"{name} ({len(self.links):,} English words, en-{self.languages[1]})"


def _are_words(text: str) -> bool:
    """Words of letters only (as `words_of` gives them) one space apart: a cheap check of the
    file, one call per line (loading is in the start-up time of every `fitsub translate`)."""
    return text.replace(" ", "").isalpha() and "  " not in text and text.strip(" ") == text


def lost_by_fitting(source: str, fitted: str, unconstrained: str, links: WordLinks) -> list[str]:
    """The source words the unconstrained translation has a counterpart for and the fitted one
    has not: what fitting the line into its budget removed (`dropped-content`)."""
    kept = set(links.unlinked(source, unconstrained))
    return [w for w in links.unlinked(source, fitted) if w not in kept]


def link_signals(source: str, output: str, links: WordLinks | None) -> dict[str, float | None]:
    """`src_unlinked`: the number of source content words without a counterpart in `output`
    (None without links: the score then takes the calibration mean)."""
    if links is None:
        return dict.fromkeys(LINK_SIGNALS)
    return {"src_unlinked": float(len(links.unlinked(source, output)))}


def _word_sets(path: Path) -> Iterator[set[str]]:
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                yield set(words_of(line))
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(path, f"cannot read training text: {err}") from err


def _pairs(
    en_paths: Sequence[Path], xx_paths: Sequence[Path]
) -> Iterator[tuple[set[str], set[str]]]:
    for e, x in zip(en_paths, xx_paths, strict=True):
        for a, b in zip_longest(_word_sets(e), _word_sets(x)):
            if a is None or b is None:
                raise InputError(x, f"not line-aligned with {e.name} (different line counts)")
            yield a, b


def _merge(keys: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    uniq, inverse = np.unique(keys, return_inverse=True)
    return uniq, np.bincount(inverse, weights=counts).astype(np.int64)


def count_links(
    en_paths: Sequence[Path], xx_paths: Sequence[Path], measure: Measure = Measure()
) -> tuple[dict[str, list[str]], list[str], int]:
    """(English word → its links, best first; the function words; sentence pairs read)."""
    ce: Counter[str] = Counter()
    cx: Counter[str] = Counter()
    n_pairs = 0
    for a, b in _pairs(en_paths, xx_paths):
        ce.update(a)
        cx.update(b)
        n_pairs += 1
    # most frequent first, ties alphabetical: the same text gives the same file
    ev = [
        w for w, c in sorted(ce.items(), key=lambda wc: (-wc[1], wc[0])) if c >= measure.min_count
    ]
    xv = [
        w for w, c in sorted(cx.items(), key=lambda wc: (-wc[1], wc[0])) if c >= measure.min_count
    ]
    ei, xi = {w: i for i, w in enumerate(ev)}, {w: i for i, w in enumerate(xv)}
    keys, counts = np.zeros(0, np.int64), np.zeros(0, np.int64)
    buf: list[np.ndarray] = []

    def flush() -> None:
        nonlocal keys, counts
        if buf:
            k, c = np.unique(np.concatenate(buf), return_counts=True)
            keys, counts = _merge(np.concatenate([keys, k]), np.concatenate([counts, c]))
            buf.clear()

    for a, b in _pairs(en_paths, xx_paths):
        ea = np.array([ei[w] for w in a if w in ei and ei[w] >= measure.function_words], np.int64)
        xb = np.array([xi[w] for w in b if w in xi], np.int64)
        if len(ea) and len(xb):
            buf.append((ea[:, None] * len(xv) + xb[None, :]).ravel())
        if len(buf) >= _CHUNK:
            flush()
    flush()
    e_idx, x_idx = keys // len(xv), keys % len(xv)
    e_count = np.array([ce[w] for w in ev], np.int64)
    x_count = np.array([cx[w] for w in xv], np.int64)
    dice = 2 * counts / (e_count[e_idx] + x_count[x_idx]) if len(keys) else np.zeros(0)
    keep = (counts >= measure.min_pair) & (dice >= measure.min_dice)
    links: dict[str, list[tuple[float, str]]] = {}
    for e, x, d in zip(
        e_idx[keep].tolist(), x_idx[keep].tolist(), dice[keep].tolist(), strict=True
    ):
        links.setdefault(ev[e], []).append((-d, xv[x]))
    ordered = {
        w: [x for _, x in sorted(v)] for w, v in sorted(links.items(), key=lambda kv: ei[kv[0]])
    }
    return ordered, ev[: measure.function_words], n_pairs


def links_bytes(
    links: Mapping[str, Sequence[str]],
    function: Sequence[str],
    *,
    language: str,
    source: str,
    measure: Measure = Measure(),
) -> bytes:
    """The gzip file (module docstring); the same links give the same bytes."""
    head = [
        f"# {FORMAT} {VERSION}",
        f"# languages: en {language}",
        f"# source: {source}",
        f"# measure: {measure.describe()}",
        f"# function: {' '.join(function)}",
        f"# entries: {len(links)}",
    ]
    return gzip_text("\n".join(head + [f"{w}\t{' '.join(xs)}" for w, xs in links.items()]) + "\n")


def build_links(
    data: Path, corpora: Sequence[str], language: str, out: Path, measure: Measure = Measure()
) -> WordLinks:
    """Count `data/CORPUS.en` against `data/CORPUS.LANGUAGE` and write the links to `out`."""
    if not corpora:
        raise InputError(None, "name at least one training corpus", setting="corpus")
    en = [Path(data) / f"{c}.en" for c in corpora]
    xx = [Path(data) / f"{c}.{language}" for c in corpora]
    for p in (*en, *xx):
        if not p.is_file():
            raise InputError(p, "no such training text (corpus names are file stems in --data)")
    links, function, _ = count_links(en, xx, measure)
    source = f"{data}: {', '.join(corpora)}"
    data_ = links_bytes(links, function, language=language, source=source, measure=measure)
    atomic_write_bytes(out, data_)
    return read_links(out)


def read_links(path: Path) -> WordLinks:
    """Load a links file; a missing, corrupt or foreign one is an InputError (one line)."""
    path = Path(path)
    meta, body = read_headed_text(path, "word links file", f"# {FORMAT} {VERSION}")
    links: dict[str, str] = {}
    for no, line in body:
        word, tab, rest = line.partition("\t")
        if not (tab and word.isalpha() and _are_words(rest)):
            raise InputError(
                path, f"corrupt word links: expected 'word<TAB>words', got {line[:40]!r}", line=no
            )
        links[word] = rest
    if "function" not in meta:
        raise InputError(path, "corrupt word links: no '# function:' line")
    declared = meta.get("entries", "")
    if declared.isdigit() and int(declared) != len(links):
        raise InputError(
            path, f"corrupt word links: header says {declared} entries, file holds {len(links)}"
        )
    langs = meta.get("languages", "en ").split()
    return WordLinks(
        links,
        frozenset(meta["function"].split()),
        languages=("en", langs[1] if len(langs) > 1 else ""),
        source=meta.get("source", ""),
        path=path,
    )


def links_note(model_dir: Path) -> str:
    """What to say once for a checkpoint without word links."""
    return (
        f"{model_dir}: no {LINKS_FILE} (a checkpoint from before word links): the quality score "
        "goes without them and `low-quality` names no words; `fitsub links` builds them"
    )


def pair_links(model_dir: Path | None, shipped: Path, src: str, tgt: str) -> WordLinks | None:
    """Links for a model that is not a fitsub checkpoint (a Hugging Face model): the file beside
    it (`model_dir`, when local), else the shipped en-`tgt` model's (`shipped/en-TGT`): links are
    a fact of the language pair's text, not of one model. None when neither exists or the
    source language `src` is not English (links are English → target)."""
    if src.strip().lower().replace("_", "-").split("-")[0] not in ("en", "eng"):
        return None
    for folder in ((model_dir,) if model_dir is not None else ()) + (shipped / f"en-{tgt}",):
        links = model_links(folder, (tgt,))
        if links is not None:
            return links
    return None


def model_links(model_dir: Path, languages: tuple[str, ...] = ()) -> WordLinks | None:
    """The links shipped in a checkpoint directory (`links.txt.gz`), None without them; links
    of another target language than `languages` (the model's) are an InputError."""
    path = Path(model_dir) / LINKS_FILE
    if not path.is_file():
        return None
    links = read_links(path)
    if languages and links.languages[1] and links.languages[1] not in languages:
        raise InputError(
            path,
            f"word links for en-{links.languages[1]}, but the model writes {', '.join(languages)}",
        )
    return links
