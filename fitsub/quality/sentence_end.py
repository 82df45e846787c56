"""Whole sentences: does a translation end mid-phrase? (issue 43, part 3; the `cut-sentence` flag)

A budget can cut a sentence after a whole word and leave the phrase open: "Each of them lives
only a few weeks." → "Ciascuna di loro vive solo qualche", "… venti kilos in un", "nelle quadri
del". Every word is whole, so `cut-word` says nothing. A translation **ends mid-phrase** when
the source closes a sentence (its last character, quotes and brackets aside, is ".", "!" or
"?", and not an ellipsis) and the translation's last word is one that cannot end a sentence in
its language: an article, a preposition (with its contracted forms), a determiner or a
coordinating conjunction (`DANGLING`, per language). Words that often close a sentence in
their language are left out of the lists on purpose: German separable particles ("an", "auf",
"mit", "zu": "Hör auf!"), demonstratives and possessives that are pronouns too ("das",
"diese", "questo", "mio", "nuestro"), Italian "loro", "perché", "come", Spanish "lo"; a French
pronoun after a hyphen ("Prends-le.") ends its sentence.

The fitting step (`fitsub.pipeline.run.choose`) never lets such a candidate win over one that
ends well; the flag marks every fitted sentence that still ends so (`cut_sentence`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from fitsub.quality.lexicon import words_of

DANGLING: Mapping[str, frozenset[str]] = {
    "it": frozenset(
        "il lo la i gli le l un uno una di a da in con su per tra fra "
        "del dello della dei degli delle dell al allo alla ai agli alle all dal dallo dalla "
        "dai dagli dalle dall nel nello nella nei negli nelle nell sul sullo sulla sui sugli "
        "sulle sull col coi qualche ogni alcuni alcune quel quei quegli e ed o ma che se".split()
    ),
    "de": frozenset(
        "des einen einem einer eines für zum zur im am ins vom beim jedes jeden und oder "
        "dass weil".split()
    ),
    "fr": frozenset(
        "le la les l un une des du de d au aux à dans sur pour par avec sans chez vers entre "
        "ce cet cette ces mon ma mes ton ta tes son sa ses notre votre nos vos leurs chaque "
        "quelques et ou mais que qu si".split()
    ),
    "es": frozenset(
        "el la los las un una unos unas a de del al en con por para sin sobre entre hacia "
        "desde estos estas esos esas mi mis tus su sus cada algunos algunas y e o u pero "
        "que si".split()
    ),
}
_CLOSERS = "\"'”’»)]}"
_ELLIPSIS = re.compile(r"(\.\.\.|…)$")
_LAST_WORD = re.compile(r"[^\W_]+")  # letters or digits: a sentence may end on a number


def closes_sentence(source: str) -> bool:
    """Whether `source` ends a sentence: ".", "!" or "?" last (closing quotes and brackets
    aside), not an ellipsis (a sentence left open on purpose)."""
    text = source.rstrip().rstrip(_CLOSERS).rstrip()
    return bool(text) and text[-1] in ".!?" and not _ELLIPSIS.search(text)


# Words that cannot close a sentence in French or Spanish unless a hyphen joins them to their
# verb ("Prends-le.", "Où est-il ?", handled in `dangling_end`): the negation particle and
# subject clitics in French, object clitics in Spanish (written onto the verb when they follow
# it: "dámelo"), and "ni". Failing lines, issue 43's de/fr/es measurements: "…et un prix qu'ils
# ne", "El invierno había estado demasiado larga y nos". No dev reference line that closes a
# sentence ends on one of them (0 of 1,967 en-fr, 0 of 2,160 en-es lines).
CLITICS: Mapping[str, frozenset[str]] = {
    "fr": frozenset("ne je il ils se ni".split()),
    "es": frozenset("me te se nos os le les ni".split()),
}
_NO_END = {lang: words | CLITICS.get(lang, frozenset()) for lang, words in DANGLING.items()}


def dangling_end(source: str, text: str, lang: str | None) -> str | None:
    """The word `text` ends on when it ends mid-phrase (module docstring), else None."""
    dangling = _NO_END.get(lang or "")
    if dangling is None or not closes_sentence(source):
        return None
    found = list(_LAST_WORD.finditer(text))
    if not found:
        return None
    last = found[-1]
    word = words_of(last.group())[-1] if words_of(last.group()) else ""
    if text[: last.start()].endswith("-"):  # "Prends-le.": a pronoun after its verb
        return None
    return word if word in dangling else None
