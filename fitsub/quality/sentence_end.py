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

**Possessive determiners** ("Saluta i tuoi" for "Say hello to your friends.", "mit seinen",
"con nuestro"; `POSSESSIVE`) end a phrase too, but most of them are possessive pronouns as well
("del mio", "salvammo la sua", "als meiner", "ihres": the only ones among the 9,415 dev reference
lines of the four pairs that close a sentence, each for an English "mine", "hers" or "me"). One
counts only when the English sentence does not end on a possessive pronoun (`EN_POSSESSIVE`:
"…than did mine.") and, in Italian and Spanish, where the possessive may follow its noun ("colpa
mia", "un amigo nuestro"), only after an article or a preposition of `DANGLING` ("i tuoi", "con
nuestro"). Possessives that are only determiners sit in `DANGLING` itself (French "leurs",
"ses"; Spanish "tu", "sus"); pronoun look-alikes stay out of both lists (German "sein", the
verb, and "ihr", "her"; Italian "loro"; French "leur").

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
        "desde estos estas esos esas mi mis tu tus su sus cada algunos algunas y e o u pero "
        "que si".split()
    ),
}
POSSESSIVE: Mapping[str, frozenset[str]] = {
    "it": frozenset(
        "mio mia miei mie tuo tua tuoi tue suo sua suoi sue nostro nostra nostri nostre "
        "vostro vostra vostri vostre".split()
    ),
    "de": frozenset(
        "mein meine meinen meinem meiner meines dein deine deinen deinem deiner deines "
        "seine seinen seinem seiner seines ihre ihren ihrem ihrer ihres unsere unseren "
        "unserem unserer unseres eure euren eurem eurer eures".split()
    ),
    "es": frozenset("nuestro nuestra nuestros nuestras vuestro vuestra vuestros vuestras".split()),
}
EN_POSSESSIVE = frozenset("mine yours his hers its ours theirs own me".split())
_AFTER_ARTICLE = frozenset({"it", "es"})  # a possessive there may follow its noun
_NE = frozenset("uno una alcuni alcune".split())  # after "ne": a pronoun, "ne trovo una"
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
    if word in dangling and not _pronoun(text[: last.start()], word, lang or ""):
        return word
    return word if possessive_end(source, text[: last.start()], word, lang or "") else None


def _pronoun(before: str, word: str, lang: str) -> bool:
    """Whether a listed last `word` is a pronoun there: Italian "nessuno ne ha mai vista
    una", "ne ho individuati alcuni" ("ne" among the four words before); French "quelqu'un" (4 of the 7 dev reference lines the lists called cut)."""
    prev = words_of(before)
    if lang == "it":
        return word in _NE and "ne" in prev[-4:]
    return lang == "fr" and word == "un" and before.lower().rstrip("'’").endswith("quelqu")


def possessive_end(source: str, before: str, word: str, lang: str) -> bool:
    """Whether `word`, the last of a translation of `source` (`before` it: the rest), is a
    possessive determiner left without its noun (module docstring)."""
    if word not in POSSESSIVE.get(lang, ()):
        return False
    src = words_of(source)
    if src and src[-1] in EN_POSSESSIVE:  # "…than did mine." → "…del mio."
        return False
    if lang in _AFTER_ARTICLE:
        prev = words_of(before)
        return bool(prev) and prev[-1] in DANGLING[lang]
    return True


STRAY_MARKS = frozenset("#♪♫*~|_^")
"""Signs a subtitle corpus leaves in a model's output (music, markup) that no one speaks: the
pipeline refuses a candidate holding one its source has not (`stray_marks`; "Per tutti. #")."""


def stray_marks(source: str, text: str) -> bool:
    """Whether `text` holds a `STRAY_MARKS` sign that `source` does not."""
    return any(ch in STRAY_MARKS and ch not in source for ch in text)


# Degenerate lines (issue 60: dubbing lines of the right spoken length that no one can say):
# a Spanish "¿" / "¡" or a bracket left open (any line); and for a line to be spoken, a word or a
# group of up to `REPEAT_SPAN` words said twice in a row inside one clause ("sull'immigrazione
# sull'immigrazione", "la la"; "lo facciamo, lo facciamo" is rhetoric) and, where the source
# closes its sentence, a line with no closing mark at all ("…que la semana", "- Nein, das": the
# search's budget ended it, not the model). The last two hold only under dubbing's windows:
# for subtitles and slides they were not measured (a dropped full stop is a subtitler's choice).
REPEAT_SPAN = 3
_PAIRS = (("¿", "?"), ("¡", "!"), ("(", ")"), ("«", "»"), ("[", "]"))
_END_MARKS = ".!?…:;"
_CLAUSE = re.compile(r"[,.;:!?…—–]|\s-\s")


def repeated_words(source: str, text: str) -> str | None:
    """The words `text` says twice in a row when `source` repeats none ("No, no!" may be "No,
    no!"; "Sail away, sail away" too), else None."""
    if _doubled(words_of(source)) is not None:
        return None
    for clause in _CLAUSE.split(text):  # "lo facciamo, lo facciamo": said so on purpose
        again = _doubled(words_of(clause))
        if again is not None:
            return again
    return None


def _doubled(words: list[str]) -> str | None:
    """The first group of up to `REPEAT_SPAN` words said twice in a row, else None."""
    for n in range(1, REPEAT_SPAN + 1):
        for i in range(len(words) - 2 * n + 1):
            if words[i : i + n] == words[i + n : i + 2 * n]:
                return " ".join(words[i : i + n])
    return None


def unbalanced_marks(source: str, text: str) -> str | None:
    """An opening mark (`¿ ¡ ( « [`) `text` leaves without its closing one, where `source` has
    none left open, else None."""
    for opening, closing in _PAIRS:
        if text.count(opening) > text.count(closing) and not (
            source.count(opening) > source.count(closing)
        ):
            return opening
    return None


def open_end(source: str, text: str) -> bool:
    """Whether `source` closes its sentence and `text` ends with no closing mark at all."""
    end = text.rstrip().rstrip(_CLOSERS).rstrip()
    return closes_sentence(source) and bool(end) and end[-1] not in _END_MARKS


def degenerate(source: str, text: str, lang: str | None, speech: bool = False) -> str | None:
    """Why `text` cannot stand as the translation of `source` (a phrase or a mark left open;
    under `speech`, dubbing's windows, also a repeat or a line with no end), else None."""
    word = dangling_end(source, text, lang)
    if word is not None:
        return f"ends on {word!r}"
    mark = unbalanced_marks(source, text)
    if mark is not None:
        return f"leaves {mark!r} open"
    if not speech:
        return None
    again = repeated_words(source, text)
    if again is not None:
        return f"repeats {again!r}"
    return "has no end" if open_end(source, text) else None
