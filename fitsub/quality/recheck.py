"""The flags a line can be checked for again without the model: `fitsub apply` on edited lines.

A reviewer's edit changes the words the translation's flags were computed on; the flags that
read only the source and the line are recomputed exactly as `fitsub translate` computes them
(`fitsub.quality.flags.segment_flags`, `fitsub.pipeline.assemble.flag_segments`):

* `untranslated`: the line copies the source, or keeps English words (wordfreq's lists,
  `fitsub.quality.dictionary.english_left`; names of the source and of the file exempt, and
  with the lists a copy without an English word left is none). A line of one or two words kept
  as it is (a name: "Scales?") is the reviewer's choice, as the unconstrained translation's
  keeping it is at translation time;
* `number-changed`: the numbers differ from the source's (digits, times, number words);
* `meaning-reversed`: a negation added or lost (`fitsub.quality.polarity`).

The quality score, `low-quality`, `unknown-word`, `cut-word` and `dropped-content` need the
model, its lexicon or the unconstrained translation, and are not recomputed.
"""

from __future__ import annotations

from collections.abc import Collection

from fitsub.quality.dictionary import Dictionary, english_left
from fitsub.quality.flags import (
    SHORT_LINE,
    Flag,
    copied_share,
    is_untranslated,
    number_changes,
    words,
)
from fitsub.quality.polarity import reversed_words
from fitsub.quality.registry import MEANING_REVERSED, NUMBER_CHANGED, UNTRANSLATED


def text_flags(
    source: str,
    text: str,
    lang: str | None,
    dictionary: Dictionary | None = None,
    names: Collection[str] = (),
) -> list[Flag]:
    """The flags `fitsub.quality.registry.RECHECKED` names of `text`, a translation of English
    `source` into `lang`, in `FLAG_NAMES` order (English left only with a `dictionary`; `names`:
    the file's names, lower case, `fitsub.pipeline.names.file_names`)."""
    flags = []
    lost, added = number_changes(source, text, "en" if lang else None, lang)
    if lost or added:
        parts = ([f"missing {' '.join(lost)}"] if lost else []) + (
            [f"added {' '.join(added)}"] if added else []
        )
        flags.append(Flag(NUMBER_CHANGED, "; ".join(parts)))
    reversed_ = reversed_words(source, text, lang)
    if reversed_ is not None:
        flags.append(Flag(MEANING_REVERSED, reversed_))
    notes = []
    kept = text if len(words(source)) <= SHORT_LINE else None  # a name kept: the reviewer's
    english = english_left(source, text, dictionary, names) if dictionary is not None else []
    if is_untranslated(source, text, kept) and (dictionary is None or english):
        notes.append(f"{100 * copied_share(source, text):.0f} % copied")
    if english:
        notes.append("English left: " + ", ".join(english))
    if notes:
        flags.append(Flag(UNTRANSLATED, "; ".join(notes)))
    return flags
