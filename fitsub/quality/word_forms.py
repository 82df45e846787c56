"""Word forms by simple rules, for `--terms dictionary` (`fitsub.quality.dictionary_terms`):
an English word's regular singulars, whether a target word may be a form of a dictionary word,
and a target plural (ported from `experiments/dialogue/dictionary/terms_from_dictionary.py`;
docs/results/dialogue.md, "Rare words").

The rules are regular endings only: irregular English plurals ("mice") are missed, and a
target plural is made in Italian, Spanish and French alone (German stays singular, as does a
form the rules are unsure of: Italian -co / -go).
"""

from __future__ import annotations


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
    return lang == "de" and len(t) >= 4 and len(o) >= 4 and (t in o or o in t)  # compounds


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
