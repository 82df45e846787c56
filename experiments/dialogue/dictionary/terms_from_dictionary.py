"""Decoding-time terms from the Wiktionary dictionary: a glossary for the content words a
translation left untranslated (issue 54, item 3).

Input: the `fitsub translate --report` JSON of a first, plain run over a file (its `source`
and `unconstrained` text per segment), the dictionary TSV of `build.py`, and the model's word
links (`models/en-LL/links.txt.gz`, read with `fitsub.quality.links.read_links`). Output: a
glossary file for `fitsub translate --glossary` (`source<TAB>target`), and beside it a JSON
of every candidate word and why it was or was not taken.

Which source words are candidates (all automatic; no word is listed by hand):

* a word of letters (hyphens inside allowed: "mother-in-law") of at least 3 letters; an
  apostrophe ending ("dog's", "there's") is cut off;
* not a name: a capitalised word is taken only at the start of a sentence (the segment's start,
  after . ! ? : or a dialogue dash, an opening quote after a comma), and then in lower case;
* not a function word: not one of the word links' function words (the 400 most frequent
  English words of the model's training text, which have no links: "people", "back", "dog"),
  no entry of the word in the dictionary has a closed-class part of speech (pron, prep, conj,
  article, determiner, particle, contraction, interj), and it is not an English auxiliary or
  modal verb (`AUXILIARIES`); not an -ing or -ed form of a dictionary verb; not a "n't" word;
* of a part of speech in `--pos` (default: nouns): the word, or its singular by the simple
  rules of `singulars` ("bees" -> "bee", "strawberries" -> "strawberry", "leaves" -> "leaf";
  irregular plurals are not handled), is a headword of that part of speech. A word the
  dictionary also lists as a verb, adjective or adverb is taken as a noun only outside a verb
  context (not after a pronoun, a modal or "to"; not before an article, a possessive or an
  object pronoun: "to feed the cat", "knock it off" are verbs); after "to" or a modal no word
  but a regular plural is taken ("to deal with": the Italian list has no verb "deal"); an -ing or -ed word after one of those is a verb; a sentence-initial
  word the dictionary lists as a verb is taken for an imperative and skipped; a word listed as
  an adjective and followed by a noun is an adjective ("red wine"); an -s word whose singular
  is also a verb is a verb after a noun, a name or a pronoun ("your father wants").

A candidate is **untranslated** in a segment when no word of the unconstrained output is a form
of any translation of any sense of the word (or of its singular) in the dictionary
(`same_stem`: a shared prefix allowing an inflected ending, or in German a compound part), nor
one of the model's word links for it, nor the word itself (copied). A word untranslated in at
least half of the segments that hold it goes into the glossary, for each spelling it has in the
file (a glossary matches case-sensitively): the target is the first translation of
Wiktionary's first sense of that part of speech (the sense the list marks with the
pronunciation; without one, the sense whose first translation is most frequent in the target
language by wordfreq), skipping translations a glossary cannot write as they are
("compagno/a"). The target is a lemma: a plural English word gets the singular target
unless `--plural` applies simple target plural rules (`pluralise`).

    .venv/bin/python experiments/dialogue/dictionary/terms_from_dictionary.py \\
        --report build/dictexp/it/base/terms.it.json --lang it \\
        --dictionary build/dictionary/en-it.tsv --links models/en-it/links.txt.gz \\
        --out build/dictexp/it/terms.glossary.tsv
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build import read_dictionary  # noqa: E402

from fitsub.quality.lexicon import words_of  # noqa: E402
from fitsub.quality.links import read_links  # noqa: E402

CLOSED = {"pron", "prep", "conj", "article", "determiner", "particle", "contraction", "interj"}
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


@dataclass
class Entry:
    """The dictionary's senses of one headword and part of speech, first sense first."""

    senses: list[tuple[bool, str, list[str], list[str]]] = field(default_factory=list)


def load_dictionary(path: Path) -> dict[str, dict[str, Entry]]:
    """headword -> pos -> its senses (first, gloss, targets, genders)."""
    out: dict[str, dict[str, Entry]] = defaultdict(dict)
    for r in read_dictionary(path):
        e = out[r["en"]].setdefault(r["pos"], Entry())
        e.senses.append(
            (r["first"] == "1", r["gloss"], r["targets"].split("|"), r["genders"].split("|"))
        )
    return out


def singulars(word: str) -> list[str]:
    """Candidate singulars of an English word by the regular plural rules (first is best)."""
    out = []
    if word.endswith("ies") and len(word) > 4:
        out.append(word[:-3] + "y")
    if word.endswith("ves") and len(word) > 4:
        out += [word[:-3] + "f", word[:-3] + "fe"]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        out.append(word[:-1])  # before -es: "lies" is "lie", not "li"; "horses" is "horse"
    if word.endswith("es") and len(word) > 3:
        out.append(word[:-2])  # "potatoes", "boxes"
    return out


def same_stem(t: str, o: str, lang: str) -> bool:
    """Whether output word `o` may be a form of dictionary word `t` (both normalised)."""
    if t == o:
        return True
    cp = 0
    for a, b in zip(t, o, strict=False):
        if a != b:
            break
        cp += 1
    if len(t) <= 4:
        if cp >= len(t) - 1 and cp >= 2 and len(o) <= len(t) + 3:
            return True
    elif cp >= max(4, len(t) - 3):
        return True
    if lang == "de" and len(t) >= 4 and len(o) >= 4 and (t in o or o in t):
        return True  # compounds: Honigbiene / Biene, Stock / Bienenstock
    return False


def pluralise(word: str, gender: str, lang: str) -> str:
    """A target plural by simple rules (it, es, fr; German and anything unsure: unchanged)."""
    if " " in word or not word.isalpha():
        return word
    w = word
    if lang == "it":
        if w[-1] in "àèéìòù" or w[-1] not in "aeio":
            return w
        if w.endswith(("ca", "ga")) and gender.startswith("f"):
            return w[:-1] + "he"
        if w.endswith("a"):
            return w[:-1] + ("e" if gender.startswith("f") else "i")
        if w.endswith(("co", "go")):
            return w  # amici / fuochi: unsure
        if w.endswith("io"):
            return w[:-1]
        return w[:-1] + "i"
    if lang == "es":
        if w[-1] in "aeiouáéó":
            return w + "s"
        if w.endswith("z"):
            return w[:-1] + "ces"
        if w[-1] in "sx":
            return w
        return w + "es"
    if lang == "fr":
        if w[-1] in "sxz":
            return w
        if w.endswith(("au", "eu")):
            return w + "x"
        if w.endswith("al"):
            return w[:-2] + "aux"
        return w + "s"
    return w


@dataclass
class Candidate:
    form: str  # as written in the source
    word: str  # lower case
    lemma: str
    pos: str
    plural: bool


def verb_form(word: str, dic: dict[str, dict[str, Entry]]) -> bool:
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
    return any("v" in dic.get(s, {}) for s in stems)


def plural_form(word: str, dic: dict[str, dict[str, Entry]]) -> bool:
    """Whether `word` is the regular plural of a noun of the dictionary (and no headword)."""
    return word not in dic and any("n" in dic.get(s, {}) for s in singulars(word))


def candidates(
    text: str,
    dic: dict[str, dict[str, Entry]],
    pos_set: set[str],
    function: frozenset[str] = frozenset(),
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
        entries = dic.get(word, {})
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
        nxt_noun = "n" in dic.get(nxt, {}) or any("n" in dic.get(s, {}) for s in singulars(nxt))
        if "adj" in entries and nxt_noun and nxt not in VERB_AFTER:
            continue  # an adjective before its noun ("red wine", "sore throat")
        chosen = None
        for pos in ("n", "adj", "adv", "v"):
            if pos not in pos_set:
                continue
            if pos in entries:
                lemma, plural = word, False
            else:
                lemma = next(
                    (s for s in singulars(word) if pos == "n" and pos in dic.get(s, {})), ""
                )
                plural = bool(lemma)
                if not lemma:
                    continue
            others = set(dic.get(lemma, {})) | set(entries)
            if pos == "n" and others & {"v", "adj", "adv"} and verb_context:
                continue
            if pos == "n" and plural and any(p in CLOSED for p in dic.get(lemma, {})):
                continue
            if (
                pos == "n"
                and plural
                and "v" in dic.get(lemma, {})
                and (
                    "n" in dic.get(prev, {})
                    or prev in VERB_BEFORE
                    or (i > 0 and toks[i - 1][0][0].isupper())
                )
            ):
                continue  # "your father wants": a verb after its subject
            chosen = Candidate(form, word, lemma, pos, plural)
            break
        if chosen:
            out.append(chosen)
    return out


def all_targets(dic: dict[str, dict[str, Entry]], *heads: str) -> set[str]:
    """Every word (of 2+ letters) of every translation of the headwords, normalised."""
    out = set()
    for h in heads:
        for e in dic.get(h, {}).values():
            for _, _, targets, _ in e.senses:
                for t in targets:
                    ws = words_of(t)
                    if ws:
                        out.add(max(ws, key=len))
    return out


def usable(target: str) -> bool:
    """A translation a glossary can write as it is (not "compagno/a", "10 %", "-ista")."""
    return bool(target) and not re.search(r"[/\d…]|\.\.\.|^-|-$", target)


def choose_target(entry: Entry, lang: str, zipf) -> tuple[str, str, str] | None:
    """(target, gender, gloss): the first usable translation of the first sense (module
    docstring); None when the dictionary has none."""
    senses = [s for s in entry.senses if any(usable(t) for t in s[2])]
    if not senses:
        return None
    firsts = [s for s in senses if s[0]]
    if firsts:
        sense = firsts[0]
    else:
        sense = max(senses, key=lambda s: zipf(next(t for t in s[2] if usable(t)), lang))
    k = next(i for i, t in enumerate(sense[2]) if usable(t))
    return sense[2][k], (sense[3][k] if k < len(sense[3]) else ""), sense[1]


def make_glossary(
    segments: list[dict[str, Any]],
    dic: dict[str, dict[str, Entry]],
    links: dict[str, str] | None,
    function: frozenset[str],
    lang: str,
    pos_set: set[str],
    plural_rules: bool,
    min_share: float = 0.5,
) -> tuple[list[tuple[str, str]], list[dict[str, Any]]]:
    """(glossary entries, a record per candidate word)."""
    from wordfreq import zipf_frequency

    def zipf(w: str, lg: str) -> float:
        return zipf_frequency(w, lg, wordlist="large")

    seen: dict[str, dict[str, Any]] = {}
    for seg in segments:
        src = seg.get("source") or ""
        out = seg.get("unconstrained") or ""
        owords = set(words_of(out))
        for c in candidates(src, dic, pos_set, function):
            rec = seen.setdefault(
                c.word,
                {
                    "word": c.word,
                    "lemma": c.lemma,
                    "pos": c.pos,
                    "plural": c.plural,
                    "forms": Counter(),
                    "segments": 0,
                    "untranslated": 0,
                    "by_links": 0,
                    "examples": [],
                },
            )
            rec["forms"][c.form] += 1
            rec["segments"] += 1
            targets = all_targets(dic, c.word, c.lemma)
            by_dict = any(same_stem(t, o, lang) for t in targets for o in owords)
            link_words = set()
            if links is not None:
                for w in {c.word, c.lemma}:
                    link_words |= set(links.get(w, "").split())
            by_links = bool(owords & link_words)
            copied = c.word in owords or c.lemma in owords
            if not (by_dict or by_links or copied):
                rec["untranslated"] += 1
                if len(rec["examples"]) < 3:
                    rec["examples"].append({"source": src, "unconstrained": out})
            elif by_links and not by_dict:
                rec["by_links"] += 1
    entries: list[tuple[str, str]] = []
    records = []
    for rec in seen.values():
        entry = dic[rec["lemma"]][rec["pos"]]
        chosen = choose_target(entry, lang, zipf)
        if chosen is None:
            rec.update(target="", gender="", gloss="", taken=False, forms=dict(rec["forms"]))
            records.append(rec)
            continue
        target, gender, gloss = chosen
        if rec["plural"] and plural_rules:
            target = pluralise(target, gender, lang)
        rec.update(target=target, gender=gender, gloss=gloss)
        rec["taken"] = (
            rec["untranslated"] > 0 and rec["untranslated"] >= min_share * rec["segments"]
        )
        if rec["taken"]:
            for form in rec["forms"]:
                t = target
                if form[0].isupper() and lang != "de":
                    t = t[0].upper() + t[1:]
                entries.append((form, t))
        rec["forms"] = dict(rec["forms"])
        records.append(rec)
    return entries, records


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--report", type=Path, required=True, help="fitsub translate --report JSON")
    p.add_argument("--lang", required=True, choices=("it", "de", "fr", "es"))
    p.add_argument("--dictionary", type=Path, required=True, help="en-LL.tsv[.gz] of build.py")
    p.add_argument("--links", type=Path, required=True, help="the model's links.txt.gz")
    p.add_argument(
        "--dict-only",
        action="store_true",
        help="the links give only the function words, not evidence of a translation",
    )
    p.add_argument("--pos", default="n", help="parts of speech, comma-separated (default: n)")
    p.add_argument("--plural", action="store_true", help="plural targets by simple rules")
    p.add_argument("--out", type=Path, required=True, help="the glossary file to write")
    args = p.parse_args(argv)
    data = json.loads(args.report.read_text(encoding="utf-8"))
    if "files" in data:
        data = data["files"][0]
    segments = data["segments"]
    dic = load_dictionary(args.dictionary)
    wl = read_links(args.links)
    links = None if args.dict_only else dict(wl.links)
    entries, records = make_glossary(
        segments, dic, links, wl.function, args.lang, set(args.pos.split(",")), args.plural
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    head = (
        f"# decoding-time terms from the Wiktionary dictionary ({args.dictionary.name}) for "
        f"{args.report.name}: {len(entries)} entries\n"
    )
    args.out.write_text(head + "".join(f"{s}\t{t}\n" for s, t in entries), encoding="utf-8")
    side = args.out.with_suffix(".json")
    side.write_text(json.dumps(records, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    taken = sum(r["taken"] for r in records)
    print(
        f"{args.report.name}: {len(records)} candidate words, {taken} untranslated -> "
        f"{len(entries)} glossary entries ({args.out}); "
        f"{sum(r['by_links'] > 0 for r in records)} found only through the word links",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
