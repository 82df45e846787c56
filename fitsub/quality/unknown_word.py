"""The `unknown-word` flag: a fitted word that is in neither the model's lexicon nor the source.

The search keeps every word to the lexicon (`fitsub.nmt.lexicon_mask`); only a segment that
nothing within its bounds satisfies gets a word from outside it, and this flag names the word.
The same test runs on every fitted segment, so a word from anywhere else (a backend without the
constraint but with a lexicon) is named too. Words of the sentence's other cues' sources and
glossary targets count as copied.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from fitsub.quality.flags import UNKNOWN_WORD, Flag
from fitsub.quality.lexicon import Lexicon, unknown_words


def unknown_word_flag(
    fitted: str, sources: Sequence[str], lexicon: Lexicon, terms: Collection[str] = ()
) -> Flag | None:
    """`unknown-word` naming the words of `fitted` outside `lexicon`, `sources` and `terms`."""
    found = unknown_words(fitted, sources, lexicon, terms)
    return Flag(UNKNOWN_WORD, ", ".join(found)) if found else None
