"""`meaning-reversed`: a translation whose polarity is not its source's (a negation added or lost).

Each side is read as a list of negations in its language, not a raw count of negative words:

* *strict* negations: "not", "n't", "no", "never", "nothing"; it "non", "mai", "nessuno", "né";
  de "nicht", "kein", "nie", "nichts"; fr "ne … pas / rien / jamais / plus / personne / aucun",
  spoken "pas" alone ("c'est pas"); es "no", "nunca", "nada", "nadie", "ni". Negative concord
  ("non ho visto nessuno") makes one negation: only whether a side has one counts.
* *soft* ones, that read as a negation in some sentences and not in others, which therefore never
  raise the flag and never leave a side without a negation: French `ne` alone after "que"
  (expletive: "avant qu'il ne parte") and `ne … que` ("only"); Italian "mai" in a question
  ("Hai mai visto …?": "ever") or after "se", "come", "più che"; Italian "finché non", "a meno che
  non" (expletive); "non … che", es "no … más que / sino" when the source says "only"; tag
  questions ("isn't it?", ", no?", "nicht wahr?", "n'est-ce pas?"); "de nada" / "de rien";
  "never mind", "nothing but".
* words that are none of these although they look like one: "non appena" (as soon as),
  "n'importe" (any), "la personne", "un pas" (nouns), "pas mal de", "à jamais", "come mai" (why).
* *lexical* negatives, whose meaning holds the negation: "fail", "forget", "lack", "refuse",
  "impossible", "without", "hardly" and their translations ("fallire", "dimenticare", "senza").

The flag fires only when one side has no negation, strict or soft, the other a strict one, and
the lexical negatives do not account for it (their count has the same parity on both sides):
"I have failed." → "Non ho fallito." (a negation added; "fail" on both sides), "We have no
time." → "Wir haben Zeit." (lost); not "I forgot." → "Non ricordo." (the verb carries it), nor
"It's not impossible." → "È possibile." (double negation). A rule of thumb, not a parser: it
asks for a look.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = {
    "en": re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|[.!?…;:,¿¡]"),
    # Romance elision split off: "n'avez" -> "n'", "avez"; German as English
    "romance": re.compile(r"[^\W\d_]+['’]?|[.!?…;:,¿¡]"),
}
_ADDRESS = re.compile(r"(?:https?://|www\.)\S+|\S+@\S+\.\w+", re.IGNORECASE)
_NUMBER_NO = re.compile(r"\b(?:no|n°)\.?\s*(?=\d)", re.IGNORECASE)
_STOP = frozenset(".!?…;:,¿¡")
_ONLY = frozenset("only just merely solely simply but".split())

STRICT: dict[str, frozenset[str]] = {
    "en": frozenset("not no never nothing nobody none nowhere neither nor cannot non".split()),
    "it": frozenset(
        "non mai nessuno nessuna nessun niente nulla né neanche nemmeno neppure mica no".split()
    ),
    "de": frozenset(
        "nicht kein keine keinen keinem keiner keines nie niemals nichts niemand niemanden "
        "niemandem nirgends nirgendwo weder nein".split()
    ),
    "fr": frozenset("pas rien jamais aucun aucune ni non".split()),
    "es": frozenset("no nunca jamás nada nadie ninguno ninguna ningún ni tampoco".split()),
}
# the second word of a French negation: `ne` with one of them is a negation
_FR_SECOND = frozenset(
    "pas rien jamais plus personne aucun aucune guère point ni nul nulle".split()
)
_FR_DETERMINERS = frozenset(
    "un une le la les l' des du de d' ce cette ces mon ma mes son sa ses "
    "ton ta tes notre votre leur leurs au aux premier chaque toute".split()
)

_NOT_UN = tuple(
    "und under unit univers uniq uniform unio until unless unter uns unser unten unfall ungef "
    "unternehm unterricht unterschied".split()
)
_NOT_UN_WORDS = frozenset("uncle uncles unless".split())
_NOT_LESS = frozenset("nevertheless nonetheless regardless unless".split())
_EVER = frozenset("mai jamais jamás nunca".split())  # "ever" in a superlative or a question
# stems (a trailing "." for a whole word) of the words whose meaning holds a negation
LEXICAL: dict[str, tuple[str, ...]] = {
    "en": tuple(
        "fail forget forgets forgetting forgot forgotten lack refus deny denie unable impossibl "
        "unless without hardly barely scarcely rarely seldom except insuffic incapab inabil "
        "invisib incorrect incomplet inaccura inadequa indistinguish dislik disagree disapprov "
        "instead".split()
    ),
    "it": tuple(
        "fallit fallir fallisc falliment fallì dimentic manc rifiut negare negato incapac "
        "impossib senza. malapena raramente insufficien inadeguat invisibil incomplet "
        "inaffidabil eccetto tranne salvo invece anziché".split()
    ),
    "de": tuple(
        "scheiter gescheitert versag vergess vergaß vergiss vergisst fehlen fehlt gefehlt "
        "mangel weiger verweiger ablehn leugn unfähig ohne. kaum selten außer statt. anstatt. "
        "stattdessen.".split()
    ),
    "fr": tuple(
        "échou échec oubli manqu refus nier incapab impossib sans. rarement peine insuffis "
        "inadéqua invisib incomplet sauf excepté plutôt".split()
    ),
    "es": tuple(
        "fracas fallar falló fallado fallé olvid falt carec rechaz negar incapa imposib sin. "
        "apenas raramente insuficien inadecua invisib incomplet excepto salvo".split()
    ),
}


@dataclass(frozen=True)
class Polarity:
    """A text's negations: `strict`, `soft` (never decisive) and `lexical` (meaning-borne)."""

    strict: tuple[str, ...] = ()
    soft: tuple[str, ...] = ()
    lexical: tuple[str, ...] = ()

    @property
    def negated(self) -> bool:
        """Whether the text holds any negation, strict or soft."""
        return bool(self.strict or self.soft)


def tokens(text: str, lang: str) -> list[str]:
    """Lower-cased words and clause punctuation; French and Italian elisions split off, English
    clitics other than "n't" dropped ("nobody's" -> "nobody"); "No. 1" is no negation, nor a
    word of a web or e-mail address ("…/has-no-space")."""
    text = _NUMBER_NO.sub(" ", _ADDRESS.sub(" ", text))
    pattern = _TOKEN["romance"] if lang in ("fr", "it") else _TOKEN["en"]
    toks = [t.lower().replace("’", "'") for t in pattern.findall(text)]
    if lang == "en":
        toks = [t if t.endswith("n't") or "'" not in t else t.split("'")[0] for t in toks]
    return toks


def _clause(toks: list[str], i: int, step: int, most: int = 8) -> list[str]:
    """Up to `most` tokens after (`step` 1) or before (`step` -1) token `i`, within its clause."""
    out: list[str] = []
    j = i + step
    while 0 <= j < len(toks) and toks[j] not in _STOP and len(out) < most:
        out.append(toks[j])
        j += step
    return out


def _question(toks: list[str], i: int) -> bool:
    """Whether token `i` is in a sentence that ends with "?" (or opens with "¿")."""
    j = i
    while j < len(toks) and toks[j] not in ".!…?":
        j += 1
    return (j < len(toks) and toks[j] == "?") or "¿" in _clause(toks, i, -1, most=30)


def _tag(toks: list[str], i: int) -> bool:
    """Whether token `i` is in a tag question after a statement ("…, isn't it?", ", no?")."""
    start = i
    while start > 0 and toks[start - 1] not in _STOP:
        start -= 1
    end = i
    while end < len(toks) and toks[end] not in _STOP:
        end += 1
    if start > 0 and toks[start - 1] == "¿":
        start -= 1
    return 0 < start and end < len(toks) and toks[end] == "?" and end - start <= 4


def _lexical(toks: list[str], lang: str) -> tuple[str, ...]:
    """The words whose meaning holds a negation: `LEXICAL`'s stems, and negative prefixes and
    suffixes ("unreliable", "priceless", "non-profit"; de "unmöglich")."""
    stems = LEXICAL.get(lang, ())
    out = []
    for i, t in enumerate(toks):
        if t in _STOP:
            continue
        morph = (
            lang in ("en", "de")
            and _un_word(t)
            or lang == "en"
            and (
                t.endswith("less")
                and len(t) > 6
                and t not in _NOT_LESS
                or t == "non"
                and i + 1 < len(toks)
                and toks[i + 1] not in _STOP
            )
        )
        if morph or any(t == s[:-1] if s.endswith(".") else t.startswith(s) for s in stems):
            out.append(t)
    return tuple(out)


def _un_word(t: str) -> bool:
    """An English or German word negated by "un-" ("unlikely", "unzuverlässig")."""
    return (
        len(t) >= 6 and t.startswith("un") and not t.startswith(_NOT_UN) and t not in _NOT_UN_WORDS
    )


def _french(toks: list[str], i: int, t: str) -> str | None:
    """ "strict", "soft" or None for French token `i`."""
    before, after = _clause(toks, i, -1), _clause(toks, i, 1)
    if t in ("ne", "n'"):
        if after[:1] == ["importe"]:
            return None
        if after[:3] == ["est", "ce", "pas"]:
            return "soft"  # "n'est-ce pas?"
        second = [w for w in after if w in _FR_SECOND]
        if second and not (second[0] == "plus" and "que" in after):
            return "strict"
        if any(w in ("personne", "rien", "aucun", "aucune", "jamais", "nul") for w in before[:1]):
            return "strict"  # "Personne ne sait", "Rien ne va"
        return "soft"  # ne … que ("only"), or expletive after "que"
    if any(w in ("ne", "n'") for w in before):
        return None  # the second word of a `ne` already counted
    if t == "pas" and (before[:1] and before[0] in _FR_DETERMINERS or after[:1] == ["mal"]):
        return None  # "un pas" (a step), "pas mal"
    if (t == "rien" and before[:1] in (["de"], ["un"])) or (
        t == "jamais" and before[:1] in (["à"], ["si"], ["que"])
    ):
        return "soft"
    return "strict" if t in STRICT["fr"] else None


def _italian(toks: list[str], i: int, t: str, only: bool) -> str | None:
    before, after = _clause(toks, i, -1), _clause(toks, i, 1)
    if t == "non":
        if after[:1] == ["appena"]:
            return None
        if before[:1] in (["finché"], ["finche"], ["quanto"]) or before[:2] in (
            ["che", "meno"],
            ["quando", "a"],
            ["che", "a"],
        ):
            return "soft"
        if only and ("che" in after or "se" in after):
            return "soft"  # "non … che" / "non … se non": only
    if t == "mai" and "non" not in before:
        if before[:1] == ["come"]:
            return None  # why
        if _question(toks, i) or before[:1] in (["se"], ["che"], ["caso"], ["quanto"]):
            return "soft"
    if t == "no" and _tag(toks, i):
        return "soft"
    return "strict" if t in STRICT["it"] else None


def _english_soft(toks: list[str], i: int, t: str) -> bool:
    """ "isn't it?", "never mind", "nothing but", "not surprisingly", "nowhere near", "no more
    than", and an answer "No, …" opening a longer line: negations a translation may drop."""
    after = toks[i + 1 : i + 3]
    if t.endswith("n't") and _tag(toks, i) or after[:1] in (["mind"], ["but"], ["surprisingly"]):
        return True
    before = toks[max(0, i - 2) : i]
    if before[-1:] in (["why"], ["or"]) or after[:1] == ["until"] or "until" in toks[i + 1 : i + 8]:
        return True  # "why not …?", "believe it or not", "it wasn't until …" ("only when")
    if t == "nowhere" and after[:1] == ["near"] or t == "no" and after == ["more", "than"]:
        return True
    opens = i == 0 or toks[i - 1] in ".!?…"
    return t == "no" and opens and after[:1] != [] and after[0] in _STOP and len(toks) > i + 3


def _other(toks: list[str], i: int, t: str, lang: str, only: bool) -> str | None:
    """English, German and Spanish token `i`."""
    before, after = _clause(toks, i, -1), _clause(toks, i, 1)
    strict = t in STRICT.get(lang, frozenset()) or (lang == "en" and t.endswith("n't"))
    if not strict:
        return None
    if lang == "en" and _english_soft(toks, i, t):
        return "soft"
    if lang == "de" and (
        after[:1] == ["wahr"] or t == "nicht" and _tag(toks, i) or after[:1] == ["als"]
    ):
        return "soft"  # "nicht wahr?", ", nicht?", "nichts als"
    if lang == "es":
        if t == "no" and _tag(toks, i) or t == "nada" and before[:1] == ["de"]:
            return "soft"  # ", ¿no?", "de nada"
        if before[:2] == ["que", "hasta"]:
            return "soft"  # "hasta que no": expletive
        if t == "no" and only and ("sino" in after or "más" in after):
            return "soft"  # "no … más que / sino": only
    return "strict"


def polarity(text: str, lang: str, source: frozenset[str] = frozenset()) -> Polarity:
    """The negations of `text` in `lang` (see the module docstring); `source`: the English
    source's words, when `text` translates it: with "only" / "just" / "but" a restrictive
    "non … che" is soft, with "ever" (and no "never") so are "mai", "jamais", "jamás", "nunca"."""
    toks = tokens(text, lang)
    source_says_only = bool(_ONLY & source)
    ever = "ever" in source and "never" not in source
    strict: list[str] = []
    soft: list[str] = []
    for i, t in enumerate(toks):
        if t in _STOP:
            continue
        if lang == "fr":
            kind = _french(toks, i, t)
        elif lang == "it":
            kind = _italian(toks, i, t, source_says_only)
        else:
            kind = _other(toks, i, t, lang=lang, only=source_says_only)
        if kind == "strict" and lang == "fr" and t in ("ne", "n'"):
            second = [w for w in toks[i + 1 : i + 9] if w in _FR_SECOND]
            t = f"ne … {second[0]}" if second else t
        if kind == "strict" and ever and t in _EVER:
            kind = "soft"
        if kind == "strict":
            strict.append(t)
        elif kind == "soft":
            soft.append(t)
    return Polarity(tuple(strict), tuple(soft), _lexical(toks, lang))


def reversed_words(source: str, output: str, tgt_lang: str | None) -> str | None:
    """The `meaning-reversed` detail for `output`, a translation of English `source` into
    `tgt_lang`: the negation it adds ("non"), or "lost …" and the source's; None when the
    polarities agree, the language is not one of `STRICT`'s, or the output is the source."""
    if tgt_lang not in STRICT or tgt_lang == "en":
        return None
    src_toks = tokens(source, "en")
    if tokens(output, "en") == src_toks:
        return None
    src = polarity(source, "en")
    out = polarity(output, tgt_lang, source=frozenset(src_toks))
    if len(src.lexical) != len(out.lexical):
        return None  # a word carries the negation on one side only ("forgot" / "non ricordo")
    if not src.negated and out.strict:
        return ", ".join(dict.fromkeys(out.strict))
    if src.strict and not out.negated:
        return "lost " + ", ".join(dict.fromkeys(src.strict))
    return None
