"""One name, one translation within a file (issue 43, part 4).

A small model renders a recurring name several ways in one file ("Scales" kept in three cues,
"Scala" in three others). The file's names are found in the source, each gets one rendering,
the per-file glossary entry, and every other rendering of it in the file is replaced by it:

* a **recurring name** is a capitalised word of 4+ letters that occurs in at least two cues,
  at least once not at the start of its cue, and never in lower case in the file (so "The",
  "Then" or a word that opens a sentence are not names);
* a translation **renders** the name by a capitalised word that is the name itself or shares
  its first `STEM` letters ("London" / "Londra", "Scales" / "Scala"), in lower case compared;
* the **entry** is the name as written when some translation keeps it so (a name copied is the
  model's confident choice, and names are kept across languages), else the first rendering in
  the file; an explicit glossary term is never touched (the glossary already fixes it);
* a translation that already writes the entry is left as it is: the name is rendered there, and
  another capitalised word sharing its first letters is another word (German nouns: "Herr Marks
  öffnete den Markt." keeps its "Markt").

Pure functions over texts; the pipeline applies them cue by cue within each cue's budget
(`fitsub.pipeline.assemble.consistent_names`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

STEM = 4  # letters a rendering shares with its name (as `fitsub.quality.score`'s names)
_WORD = re.compile(r"[^\W\d_]+")


def recurring_names(sources: Sequence[str], exempt: Collection[str] = ()) -> list[str]:
    """The recurring names of a file's cue sources (module docstring), in order of first
    appearance; names in `exempt` (glossary terms, lower case) left out."""
    lower = {m.group() for s in sources for m in _WORD.finditer(s) if m.group().islower()}
    cues: dict[str, int] = {}
    inside: set[str] = set()
    for s in sources:
        seen = set()
        for k, m in enumerate(_WORD.finditer(s)):
            w = m.group()
            if len(w) < STEM or not w[0].isupper() or w.lower() in lower or w in seen:
                continue
            seen.add(w)
            cues[w] = cues.get(w, 0) + 1
            if k > 0:
                inside.add(w)
    return [w for w, n in cues.items() if n >= 2 and w in inside and w.lower() not in exempt]


def renderings(name: str, translation: str) -> list[str]:
    """The words of `translation` that render `name` (module docstring), in order."""
    stem = name[:STEM].lower()
    return [
        m.group()
        for m in _WORD.finditer(translation)
        if m.group()[0].isupper() and m.group().lower()[:STEM] == stem
    ]


def entries(names: Sequence[str], translations: Sequence[str]) -> dict[str, str]:
    """Each name's one rendering for the file: the name itself when a translation keeps it,
    else its first rendering (names no translation renders get none)."""
    out: dict[str, str] = {}
    for name in names:
        found = [r for t in translations for r in renderings(name, t)]
        if found:
            out[name] = name if name in found else found[0]
    return out


def unify(translation: str, entry_of: Mapping[str, str]) -> str:
    """`translation` with every other rendering of each name replaced by its entry, unless it
    already writes the entry (module docstring)."""
    for name, entry in entry_of.items():
        if any(m.group() == entry for m in _WORD.finditer(translation)):
            continue
        stem = name[:STEM].lower()

        def swap(m: re.Match[str], stem: str = stem, entry: str = entry) -> str:
            w = m.group()
            return entry if w[0].isupper() and w.lower()[:STEM] == stem else w

        translation = _WORD.sub(swap, translation)
    return translation
