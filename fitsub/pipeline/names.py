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
* a cue is changed only where that is certain (issue 55): never a cue copied word for word
  from its source, never a cue whose translation (all its turns together) already writes the
  entry, nor, for an entry other than the name, one whose source writes the entry; never a word
  of the cue's own source ("Is that Mr Johnson? No, it is Johnny." keeps "Johnson", "San
  Diegoans" stays beside "San Diegans": a word copied from the source is that word, not a
  rendering of the name); and only when the renderings left are exactly as many as the cue's
  source writes the name (German nouns: "Herr Markus öffnete den Markt." for "Mr. Marks opened
  the market." has two candidates for one name and is left as it is). A word is replaced whole,
  by the entry; words are letters only (`_WORD`).

Pure functions over texts; the pipeline applies them cue by cue within each cue's budget
(`fitsub.pipeline.typeset.typeset`). `file_names` gives the flags the file's names (recurring,
said to someone, alone with "!" / "?"): kept as they are, they are no English left
(`fitsub.pipeline.assemble.flag_segments`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

from fitsub.quality.dictionary import title_case

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


_SAID_TO = re.compile(  # a word alone with "!" / "?", or said to someone at a sentence's end
    r"^\W*([^\W\d_]+)\s*[!?]+\W*$|,\s*([^\W\d_]+)\s*[.!?…]+\W*$"
)


def file_names(sources: Sequence[str]) -> set[str]:
    """The names of a file's cue sources, lower-cased, for the flags: its recurring names, and
    a capitalised word alone with "!" or "?" ("Scales!") or said to someone ("Come here,
    Scales."), never written in lower case in the file. Title-Case lines (slide headings) give
    none: their capitals name nothing."""
    texts = [s for s in sources if not title_case(s)]
    lower = {w for s in sources for w in _WORD.findall(s) if w.islower()}
    found = {n.lower() for n in recurring_names(texts)}
    for s in texts:
        for line in s.splitlines():
            m = _SAID_TO.search(line)
            word = m and (m.group(1) or m.group(2))
            if word and word[0].isupper() and len(word) >= 3 and word.lower() not in lower:
                found.add(word.lower())
    return found


def inconsistent_names(cues: Sequence[tuple[str, str, str]]) -> list[str]:
    """One warning per recurring name that the translation keeps (or renders) in some of its
    cues and writes in no form in others ("Scales" kept, "Échelles" elsewhere: translated
    there, or lost), naming those cues; `cues`: (id, source, translation) of the translated
    cues. A file-level note: which rendering is right is the reviewer's call."""
    out = []
    for name in recurring_names([s for _, s, _ in cues]):
        said = [(i, t) for i, s, t in cues if name in _WORD.findall(s)]
        missing = [i for i, t in said if not renderings(name, t)]
        if missing and len(missing) < len(said):
            out.append(
                f"name {name!r} kept in {len(said) - len(missing)} cue(s), in no form in "
                f"segment(s) {', '.join(missing)} (translated or dropped there): one name, one rendering"
            )
    return out


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


def unify(turns: Sequence[str], source: str, entry_of: Mapping[str, str]) -> list[str]:
    """A cue's translated `turns` with the other renderings of each name replaced by its entry,
    where that is certain (module docstring); `source`: the cue's source text, all turns."""
    src_words = [m.group() for m in _WORD.finditer(source)]
    if src_words == [m.group() for t in turns for m in _WORD.finditer(t)]:
        return list(turns)  # a copy of the source
    out = list(turns)
    for name, entry in entry_of.items():
        words = [m.group() for t in out for m in _WORD.finditer(t)]
        if entry in words or (entry != name and entry in src_words):
            continue
        stem = name[:STEM].lower()
        swap = {w for w in words if w[0].isupper() and w.lower()[:STEM] == stem}
        swap -= set(src_words)
        wanted = src_words.count(name)
        if not swap or sum(w in swap for w in words) != wanted:
            continue

        def sub(m: re.Match[str], swap: Collection[str] = swap, entry: str = entry) -> str:
            return entry if m.group() in swap else m.group()

        out = [_WORD.sub(sub, t) for t in out]
    return out
