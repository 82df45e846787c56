"""Decoding-time terms from a bilingual dictionary: the nouns a translation left untranslated,
each with the dictionary's first translation (issue 54, item 3; `fitsub translate --terms
dictionary`, `fitsub.pipeline.forced_terms`).

Ported from `experiments/dialogue/dictionary/terms_from_dictionary.py`, which now calls this
module; its README has every table, docs/results/dialogue.md ("Rare words: decoding-time terms
from a Wiktionary dictionary") the summary. Forced this way, the terms fixed the words the
issue was about (the bees talk's core words 0-2 → 12-17 of 17 right, the 200-term list +16 to
+47), left subtitle BLEU unchanged (no change significant), but close to half of the inserted
terms have the wrong number or article ("il alveare") and a third of the subtitle lines a term
touched read worse (a wrong first sense: "deal" → "part"; idioms: "What the hell" → "la
enfer"): an opt-in, every forced term shown to the subtitler.

Input: each segment's source and unconstrained translation, the dictionary
(`fitsub.quality.bilingual`) and the model's word links (`fitsub.quality.links`). Everything
is automatic; no word is listed by hand.

Which source words are candidates (`candidates`):

* a word of letters (hyphens inside allowed: "mother-in-law") of at least 3 letters; an
  apostrophe ending ("dog's", "there's") is cut off;
* not a name: a capitalised word is taken only at the start of a sentence (the segment's start,
  after . ! ? : or a dialogue dash, an opening quote after a comma), and then in lower case;
* not a function word: not one of the word links' function words (the 400 most frequent
  English words of the model's training text, which have no links: "people", "back", "dog"),
  no entry of the word in the dictionary has a closed-class part of speech (`CLOSED`), and it
  is not an English auxiliary or modal verb (`AUXILIARIES`); not an -ing or -ed form of a
  dictionary verb; not a "n't" word;
* of a part of speech in `pos` (default: nouns): the word, or its singular by the simple
  rules of `fitsub.quality.word_forms.singulars` ("bees" → "bee", "strawberries" →
  "strawberry", "leaves" → "leaf"; irregular plurals are not handled), is a headword of that part of speech. A word the
  dictionary also lists as a verb, adjective or adverb is taken as a noun only outside a verb
  context (not after a pronoun, a modal or "to"; not before an article, a possessive or an
  object pronoun: "to feed the cat", "knock it off" are verbs); after "to" or a modal no word
  but a regular plural is taken ("to deal with": the Italian list has no verb "deal"); an -ing
  or -ed word after one of those is a verb; a sentence-initial word the dictionary lists as a
  verb is taken for an imperative and skipped; a word listed as an adjective and followed by a
  noun is an adjective ("red wine"); an -s word whose singular is also a verb is a verb after
  a noun, a name or a pronoun ("your father wants").

A candidate is **untranslated** in a segment when no word of the unconstrained translation is a
form of any translation of any sense of the word (or of its singular) in the dictionary
(`fitsub.quality.word_forms.same_stem`: a shared prefix allowing an inflected ending, or in German a compound part), nor
one of the model's word links for it, nor the word itself (copied). A word untranslated in at
least half (`MIN_SHARE`) of the segments that hold it becomes a term (`choose_terms`), for each
spelling it has in the file (a glossary matches case-sensitively): the target is the first
usable translation of Wiktionary's first sense of that part of speech (without one, the sense
whose first translation is most frequent in the target language by wordfreq), skipping
translations a glossary cannot write as they are ("compagno/a"). The target is a lemma: a
plural English word gets the singular target unless `plural` applies simple target plural
rules (`fitsub.quality.word_forms.pluralise`: it, es, fr; German stays singular).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from fitsub.quality.bilingual import BilingualDictionary, Sense
from fitsub.quality.lexicon import words_of
from fitsub.quality.word_forms import pluralise, same_stem, singulars

MIN_SHARE = 0.5  # a word becomes a term when untranslated in at least this share of its segments
CLOSED = frozenset(
    {"pron", "prep", "conj", "article", "determiner", "particle", "contraction", "interj"}
)
# English auxiliaries and modals (a grammar list, not a term list): nouns in the dictionary
# too ("can" a tin, "will" a testament, "must" new wine), never meant as them in dialogue
AUXILIARIES = frozenset(
    "be am is are was were been being have has had having do does did done doing can could "
    "will would shall should may might must ought need dare used".split()
)
# before a word: it is a verb here ("I keep", "to feed", "can go")
VERB_BEFORE = (
    frozenset(
        "i you he she it we they who to never always just also often don doesn didn won "
        "can could will would shall should may might must let please".split()
    )
    | AUXILIARIES
)
# after a word: it is a verb here ("feed the cat", "love my…")
VERB_AFTER = frozenset(
    "the a an my your his her its our their this these those me him us them it you "
    "myself yourself himself herself itself ourselves yourselves themselves".split()
)
# before a word: it is a verb here whatever the dictionary says ("to deal with", "can't stand")
INFINITIVE_BEFORE = frozenset(
    "to can could will would shall should may might must don doesn didn won let".split()
)
WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")
START = re.compile(r"(?:^|[.!?:…]|(?:^|\n)\s*[-–—]|,\s*[\"“«])(?:[\s\"'“”«»]|<[^>]*>)*$")

Zipf = Callable[[str, str], float]  # (word, language) → zipf frequency


@dataclass(frozen=True)
class Candidate:
    """A candidate word of a source text: as written, in lower case, its headword (the
    singular of a regular plural), its part of speech and whether it is a plural."""

    form: str
    word: str
    lemma: str
    pos: str
    plural: bool


def verb_form(word: str, dic: BilingualDictionary) -> bool:
    """Whether `word` is an -ing or -ed form of a verb of the dictionary ("howling", "landed")."""
    stems: list[str] = []
    if word.endswith("ing") and len(word) > 5:
        b = word[:-3]
        stems += [b, b + "e"] + ([b[:-1]] if len(b) > 2 and b[-1] == b[-2] else [])
    if word.endswith("ed") and len(word) > 4:
        b = word[:-2]
        stems += [b, b + "e", word[:-1]] + ([b[:-1]] if len(b) > 2 and b[-1] == b[-2] else [])
        if word.endswith("ied"):
            stems.append(word[:-3] + "y")
    return any("v" in dic.of(s) for s in stems)


def plural_form(word: str, dic: BilingualDictionary) -> bool:
    """Whether `word` is the regular plural of a noun of the dictionary (and no headword)."""
    return word not in dic.entries and any("n" in dic.of(s) for s in singulars(word))


def candidates(
    text: str,
    dic: BilingualDictionary,
    pos_set: Collection[str] = ("n",),
    function: Collection[str] = frozenset(),
) -> list[Candidate]:
    """The candidate content words of one source text (module docstring)."""
    toks = [(m.group(0), m.start()) for m in WORD.finditer(text)]
    out = []
    for i, (tok, start) in enumerate(toks):
        parts = re.split(r"['’]", tok)
        if len(parts) > 1 and parts[-1].lower() == "t":
            continue  # "haven't", "won't"
        form = parts[0]
        if len(form) < 3:
            continue
        initial = bool(START.search(text[:start]))
        if form[0].isupper() and not initial:
            continue  # a name
        if form[1:] != form[1:].lower():
            continue  # ALL CAPS, CamelCase
        word = form.lower()
        if word in AUXILIARIES or word in function:
            continue
        if verb_form(word, dic):
            continue  # "howling", "landed": a participle, however the dictionary lists it
        entries = dic.of(word)
        if any(p in CLOSED for p in entries):
            continue
        prev = toks[i - 1][0].lower().split("'")[0] if i > 0 else ""
        nxt = toks[i + 1][0].lower() if i + 1 < len(toks) else ""
        verb_context = prev in VERB_BEFORE or nxt in VERB_AFTER
        if prev in INFINITIVE_BEFORE and not plural_form(word, dic):
            continue  # "to deal with": a verb, even where the dictionary lacks its verb entry
        if prev in VERB_BEFORE and word.endswith(("ing", "ed")):
            continue  # "is getting", "has landed"
        if initial and "v" in entries:
            continue  # a sentence-initial verb: an imperative ("Look, ...", "Fear is" lost)
        nxt_noun = "n" in dic.of(nxt) or any("n" in dic.of(s) for s in singulars(nxt))
        if "adj" in entries and nxt_noun and nxt not in VERB_AFTER:
            continue  # an adjective before its noun ("red wine", "sore throat")
        after_subject = (
            "n" in dic.of(prev) or prev in VERB_BEFORE or (i > 0 and toks[i - 1][0][0].isupper())
        )
        chosen = _chosen(
            Candidate(form, word, word, "", False),
            entries=entries,
            dic=dic,
            pos_set=pos_set,
            verb_context=verb_context,
            after_subject=after_subject,
        )
        if chosen:
            out.append(chosen)
    return out


def _chosen(
    seen: Candidate,
    *,
    entries: Mapping[str, tuple[Sense, ...]],
    dic: BilingualDictionary,
    pos_set: Collection[str],
    verb_context: bool,
    after_subject: bool,
) -> Candidate | None:
    """Word `seen` as the candidate of the first part of speech of `pos_set` (n, adj, adv, v in
    that order) it is one of in its context (module docstring; `after_subject`: after a noun,
    a pronoun, a modal or a capitalised word); None if none."""
    word = seen.word
    for pos in ("n", "adj", "adv", "v"):
        if pos not in pos_set:
            continue
        if pos in entries:
            lemma, plural = word, False
        else:
            lemma = next((s for s in singulars(word) if pos == "n" and pos in dic.of(s)), "")
            plural = bool(lemma)
            if not lemma:
                continue
        others = set(dic.of(lemma)) | set(entries)
        if pos == "n" and others & {"v", "adj", "adv"} and verb_context:
            continue
        if pos == "n" and plural and any(p in CLOSED for p in dic.of(lemma)):
            continue
        if pos == "n" and plural and "v" in dic.of(lemma) and after_subject:
            continue  # "your father wants": a verb after its subject
        return Candidate(seen.form, word, lemma, pos, plural)
    return None


def all_targets(dic: BilingualDictionary, *heads: str) -> set[str]:
    """Every translation of every sense of the headwords, as its longest word (normalised)."""
    out = set()
    for h in heads:
        for senses in dic.of(h).values():
            for sense in senses:
                for t in sense.targets:
                    ws = words_of(t)
                    if ws:
                        out.add(max(ws, key=len))
    return out


def usable(target: str) -> bool:
    """A translation a glossary can write as it is (not "compagno/a", "10 %", "-ista")."""
    return bool(target) and not re.search(r"[/\d…]|\.\.\.|^-|-$", target)


def wordfreq_zipf(word: str, lang: str) -> float:
    """The zipf frequency of `word` in `lang` by wordfreq's large list (Speer 2022)."""
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, lang, wordlist="large"))


def choose_target(
    senses: Sequence[Sense], lang: str, zipf: Zipf = wordfreq_zipf
) -> tuple[str, str, str] | None:
    """(target, gender, gloss): the first usable translation of the first sense (module
    docstring); None when the dictionary has none."""
    usable_senses = [s for s in senses if any(usable(t) for t in s.targets)]
    if not usable_senses:
        return None
    firsts = [s for s in usable_senses if s.first]
    if firsts:
        sense = firsts[0]
    else:
        sense = max(
            usable_senses, key=lambda s: zipf(next(t for t in s.targets if usable(t)), lang)
        )
    k = next(i for i, t in enumerate(sense.targets) if usable(t))
    return sense.targets[k], (sense.genders[k] if k < len(sense.genders) else ""), sense.gloss


@dataclass(frozen=True)
class Term:
    """One forced term: the source word as the file spells it, its target and the sense's gloss."""

    source: str
    target: str
    gloss: str


@dataclass
class WordRecord:
    """One candidate word of a file: how often it was seen and left untranslated, and the
    target chosen for it (`taken`: made a term)."""

    word: str
    lemma: str
    pos: str
    plural: bool
    forms: Counter[str] = field(default_factory=Counter)  # spellings, each with its count
    segments: int = 0  # segments that hold it
    untranslated: int = 0  # of those, segments whose unconstrained translation has no form of it
    by_links: int = 0  # segments where only the word links found its translation
    examples: list[dict[str, str]] = field(default_factory=list)  # up to 3 untranslated
    target: str = ""
    gender: str = ""
    gloss: str = ""
    taken: bool = False


def choose_terms(
    segments: Iterable[tuple[str, str]],
    dic: BilingualDictionary,
    links: Mapping[str, str] | None,
    function: Collection[str],
    *,
    pos: Collection[str] = ("n",),
    plural: bool = False,
    min_share: float = MIN_SHARE,
    zipf: Zipf = wordfreq_zipf,
) -> tuple[list[Term], list[WordRecord]]:
    """The terms of a file of (source, unconstrained translation) `segments` into
    `dic.lang` (module docstring), each spelling of a taken word once, in order of first
    appearance; and a record per candidate word. `links`: the model's word links
    (`WordLinks.links`; None: none); `function`: its function words."""
    lang = dic.lang
    seen: dict[str, WordRecord] = {}
    for src, out in segments:
        owords = set(words_of(out))
        for c in candidates(src, dic, pos, function):
            rec = seen.setdefault(c.word, WordRecord(c.word, c.lemma, c.pos, c.plural))
            rec.forms[c.form] += 1
            rec.segments += 1
            targets = all_targets(dic, c.word, c.lemma)
            by_dict = any(same_stem(t, o, lang) for t in targets for o in owords)
            link_words: set[str] = set()
            if links is not None:
                for w in {c.word, c.lemma}:
                    link_words |= set(links.get(w, "").split())
            by_links = bool(owords & link_words)
            copied = c.word in owords or c.lemma in owords
            if not (by_dict or by_links or copied):
                rec.untranslated += 1
                if len(rec.examples) < 3:
                    rec.examples.append({"source": src, "unconstrained": out})
            elif by_links and not by_dict:
                rec.by_links += 1
    terms: list[Term] = []
    for rec in seen.values():
        chosen = choose_target(dic.of(rec.lemma)[rec.pos], lang, zipf)
        if chosen is None:
            continue
        target, gender, gloss = chosen
        if rec.plural and plural:
            target = pluralise(target, gender, lang)
        rec.target, rec.gender, rec.gloss = target, gender, gloss
        rec.taken = rec.untranslated > 0 and rec.untranslated >= min_share * rec.segments
        if rec.taken:
            for form in rec.forms:
                t = target
                if form[0].isupper() and lang != "de":
                    t = t[0].upper() + t[1:]
                terms.append(Term(form, t, gloss))
    return terms, list(seen.values())
