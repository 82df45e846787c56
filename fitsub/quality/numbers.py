"""Numbers written as words in English, Italian, German, French and Spanish, read as values.

For the `number-changed` flag (`fitsub.quality.flags`): "fifty thousand" and "cinquantamila" both read
50000, "twenty-one" / "ventuno" / "einundzwanzig" / "vingt et un" / "veintiuno" 21. A number is
a run of number words (hyphens and the connectors "and", "e", "und", "et", "y" inside it); a
word may be a compound of number morphemes ("duecento", "fünfzigtausend", "dieciséis"), split
by longest match. Words that are also common non-number words read as a number only inside a
longer number: the articles and pronouns meaning one ("one", "un", "uno", "ein", "une"...),
Italian "sei" (you are) and French "neuf" (new). Plurals of the scales ("thousands",
"migliaia") are amounts, not numbers, and are not read.
"""

from __future__ import annotations

import re

_UNITS = {
    "en": "zero:0 one:1 two:2 three:3 four:4 five:5 six:6 seven:7 eight:8 nine:9 ten:10 "
    "eleven:11 twelve:12 thirteen:13 fourteen:14 fifteen:15 sixteen:16 seventeen:17 "
    "eighteen:18 nineteen:19 twenty:20 thirty:30 forty:40 fifty:50 sixty:60 seventy:70 "
    "eighty:80 ninety:90",
    "it": "zero:0 uno:1 un:1 una:1 due:2 tre:3 tré:3 quattro:4 cinque:5 sei:6 sette:7 otto:8 "
    "nove:9 dieci:10 undici:11 dodici:12 tredici:13 quattordici:14 quindici:15 sedici:16 "
    "diciassette:17 diciotto:18 diciannove:19 venti:20 vent:20 trenta:30 trent:30 "
    "quaranta:40 quarant:40 cinquanta:50 cinquant:50 sessanta:60 sessant:60 settanta:70 "
    "settant:70 ottanta:80 ottant:80 novanta:90 novant:90",
    "de": "null:0 eins:1 ein:1 eine:1 einen:1 einem:1 einer:1 zwei:2 drei:3 vier:4 fünf:5 "
    "sechs:6 sech:6 sieben:7 sieb:7 acht:8 neun:9 zehn:10 elf:11 zwölf:12 zwanzig:20 "
    "dreißig:30 dreissig:30 vierzig:40 fünfzig:50 sechzig:60 siebzig:70 achtzig:80 neunzig:90",
    "fr": "zéro:0 un:1 une:1 deux:2 trois:3 quatre:4 cinq:5 six:6 sept:7 huit:8 neuf:9 dix:10 "
    "onze:11 douze:12 treize:13 quatorze:14 quinze:15 seize:16 vingt:20 vingts:20 trente:30 "
    "quarante:40 cinquante:50 soixante:60 quatrevingt:80 quatrevingts:80",
    "es": "cero:0 uno:1 un:1 una:1 dos:2 tres:3 trés:3 cuatro:4 cinco:5 seis:6 séis:6 siete:7 "
    "ocho:8 nueve:9 diez:10 dieci:10 once:11 doce:12 trece:13 catorce:14 quince:15 veinte:20 "
    "veinti:20 treinta:30 cuarenta:40 cincuenta:50 sesenta:60 setenta:70 ochenta:80 "
    "noventa:90 cien:100 ciento:100 doscientos:200 doscientas:200 trescientos:300 "
    "trescientas:300 cuatrocientos:400 cuatrocientas:400 quinientos:500 quinientas:500 "
    "seiscientos:600 seiscientas:600 setecientos:700 setecientas:700 ochocientos:800 "
    "ochocientas:800 novecientos:900 novecientas:900",
}
# multipliers: hundred multiplies what precedes it; the others close a group
_SCALES = {
    "en": "hundred:100 thousand:1000 million:1000000 billion:1000000000",
    "it": "cento:100 mille:1000 mila:1000 milione:1000000 milioni:1000000 "
    "miliardo:1000000000 miliardi:1000000000",
    "de": "hundert:100 tausend:1000 million:1000000 millionen:1000000 "
    "milliarde:1000000000 milliarden:1000000000",
    "fr": "cent:100 cents:100 mille:1000 million:1000000 millions:1000000 "
    "milliard:1000000000 milliards:1000000000",
    "es": "mil:1000 millón:1000000 millones:1000000",
}
_CONNECTORS = {"en": {"and"}, "it": {"e"}, "de": {"und"}, "fr": {"et"}, "es": {"y"}}
# read as a number only inside a longer one ("one of us", "un libro", "tu sei", "un livre neuf")
_AMBIGUOUS = {
    "en": {"one"},
    "it": {"uno", "un", "una", "sei"},
    "de": {"ein", "eins", "eine", "einen", "einem", "einer"},
    "fr": {"un", "une", "neuf"},
    "es": {"uno", "un", "una"},
}
_PERCENT = re.compile(r"(?i)\b(?:per cento|pour cent|por ciento|per cent)\b")
# thanks in which a number word means "many", not a quantity ("Grazie mille." = "Thanks.")
_IDIOMS = {
    "it": re.compile(r"(?i)\b(grazie\s+mille|mille\s+grazie)\b"),
    "fr": re.compile(r"(?i)\b(mille\s+mercis?|merci\s+mille\s+fois)\b"),
    "es": re.compile(r"(?i)\b(mil\s+gracias)\b"),
    "de": re.compile(r"(?i)\b(tausend\s+dank)\b"),
}
_TOKEN = re.compile(r"[^\W\d_]+|\d+|\S")


def _table(spec: str) -> dict[str, int]:
    return {k: int(v) for k, v in (item.split(":") for item in spec.split())}


UNITS = {lang: _table(spec) for lang, spec in _UNITS.items()}
SCALES = {lang: _table(spec) for lang, spec in _SCALES.items()}
LANGS: tuple[str, ...] = tuple(UNITS)


def morphemes(word: str, lang: str) -> list[tuple[str, int]] | None:
    """A word split into number morphemes by longest match ("cinquantamila" -> cinquanta,
    mila; "einundzwanzig" -> ein, und, zwanzig), each with its value (0 for a connector); None
    when the word is not a number word of `lang`."""
    units, scales = UNITS[lang], SCALES[lang]
    links = _CONNECTORS[lang]
    pieces: list[tuple[str, int]] = []
    i = 0
    while i < len(word):
        for j in range(len(word), i, -1):
            part = word[i:j]
            if part in units or part in scales or (part in links and pieces and j < len(word)):
                value = units.get(part, scales.get(part, 0))
                pieces.append((part, value))
                i = j
                break
        else:
            return None
    return pieces


def _value(pieces: list[tuple[str, int]], lang: str) -> int:
    """The value of a run of morphemes (hundreds multiply, larger scales close a group)."""
    scales = SCALES[lang]
    total, current = 0, 0
    for part, value in pieces:
        if part in scales:
            if value == 100:
                current = max(current, 1) * 100
            else:
                total += max(current, 1) * value
                current = 0
        else:
            current += value
    return total + current


def number_words(text: str, lang: str) -> list[str]:
    """The numbers written as words in `text`, as digit strings, in order (`lang`: one of
    `LANGS`; another language reads none)."""
    lang = lang.strip().lower().replace("_", "-").split("-")[0]
    if lang not in UNITS:
        return []
    text = re.sub(r"(?i)quatre-vingt", "quatrevingt", text)
    text = _PERCENT.sub(" ", text)
    if lang in _IDIOMS:
        text = _IDIOMS[lang].sub(" ", text)
    tokens = [t.lower() for t in _TOKEN.findall(text)]
    out: list[str] = []
    run: list[list[tuple[str, int]]] = []
    words: list[str] = []

    def close() -> None:
        while words and words[-1] in _CONNECTORS[lang] | {"-"}:  # "two and" ends before "and"
            words.pop()
            run.pop()
        if run and not all(w in _AMBIGUOUS[lang] for w in words):
            out.append(str(_value([p for w in run for p in w], lang)))
        run.clear()
        words.clear()

    for word in tokens:
        if word == "-" and run:
            run.append([])
            words.append(word)
            continue
        if word in _CONNECTORS[lang] and run:
            run.append([(word, 0)])
            words.append(word)
            continue
        pieces = [(word, UNITS[lang][word])] if word in UNITS[lang] else morphemes(word, lang)
        if pieces is None:
            close()
            continue
        if words and words[-1] in _CONNECTORS[lang]:
            # "twenty-one", "hundred and five", "vingt et un", "treinta y dos" join;
            # "two and three" are two numbers
            last = run[-2][-1][1] if len(run) > 1 and run[-2] else 0
            if not (last >= 20 and pieces[0][1] < last):
                close()
        run.append(pieces)
        words.append(word)
    close()
    return out


def compound_values(text: str, lang: str) -> set[str]:
    """Values `number_words` does not read but a number may hide in: number words that begin a
    longer word ("zweijährige", "duecentesimo") and the ambiguous words ("sei", "un")."""
    lang = lang.strip().lower().replace("_", "-").split("-")[0]
    if lang not in UNITS:
        return set()
    table = {**UNITS[lang], **SCALES[lang]}
    found = set()
    for word in _TOKEN.findall(text.lower()):
        if word in _AMBIGUOUS[lang]:  # "sei altre": maybe six, so six is not missing
            found.add(str(table[word]))
        for n in range(len(word) - 1, 2, -1):
            if word[:n] in table:
                found.add(str(table[word[:n]]))
                break
    return found


def reader_tables(lang: str) -> dict[str, object] | None:
    """What `number_words` reads in `lang`, as JSON for the review page's own reader (its
    script recounts the numbers of an edited line as this module does); None for a language
    it does not read. Patterns are given without their `(?i)` flag (the page adds `i`)."""
    lang = lang.strip().lower().replace("_", "-").split("-")[0]
    if lang not in UNITS:
        return None
    idiom = _IDIOMS.get(lang)
    return {
        "units": UNITS[lang],
        "scales": SCALES[lang],
        "connectors": sorted(_CONNECTORS[lang]),
        "ambiguous": sorted(_AMBIGUOUS[lang]),
        "percent": _PERCENT.pattern.removeprefix("(?i)"),
        "idiom": None if idiom is None else idiom.pattern.removeprefix("(?i)"),
    }
