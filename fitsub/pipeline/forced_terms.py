"""`fitsub translate --terms dictionary`: a dictionary term forced where the plain translation
left a noun untranslated, and every such line flagged (issue 54, item 3).

1. The file is translated as without the option (the plain pass; its quality not yet scored).
2. `fitsub.quality.dictionary_terms.choose_terms` reads each segment's source and unconstrained
   translation and picks the nouns left untranslated in at least half of the segments that
   hold them, each with the shipped dictionary's first translation (`fitsub.quality.bilingual`),
   plural targets by simple rules (it, fr; German stays singular): the choice of
   `experiments/dialogue/dictionary/` (its `n-plural` variant, which its README recommends:
   the same term, bees and BLEU figures as the lemma targets in it and fr, none of their 23
   singular-for-plural errors on the bees talk). docs/results/dialogue.md, "Rare words", has
   what it measured: the bees talk's core words 0-2 → 12-17 of 17 right, but close to half
   of the inserted terms in the wrong number or with the wrong article, and a third of the
   touched subtitle lines worse (a wrong first sense, an idiom).
3. No term: the plain pass is the result, byte for byte. Otherwise the file is translated
   again with the terms in the glossary (`fitsub.glossary`: placeholders the model copies;
   a term of the user's glossary for the same word, in any case, wins), the model asked only
   for what the plain pass did not ask (`Remembered`): the segments without a term come back
   as they were.
4. Each translated segment whose source holds a forced term carries the flag `dictionary-term`
   (severity note), naming each term with its sense ("hive → alveare (home of bees)"): the
   review page, the report and the table show which lines to read. A term the translation
   lost is not named (the glossary's warning says it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from fitsub.backend import Candidate, Request, TranslationBackend
from fitsub.document import Document
from fitsub.glossary import Glossary, Term
from fitsub.pipeline.assemble import SegmentResult, TranslationResult
from fitsub.pipeline.estimate import with_quality
from fitsub.pipeline.plan import TranslateOptions
from fitsub.pipeline.run import Progress
from fitsub.quality import dictionary_terms
from fitsub.quality.bilingual import BilingualDictionary
from fitsub.quality.flags import Flag
from fitsub.quality.registry import DICTIONARY_TERM

Translate = Callable[
    [Document, TranslationBackend, TranslateOptions, Progress | None], TranslationResult
]


class Remembered:
    """A backend that remembers its answers and, once `replay` is set, answers a request it
    was asked before (with the same n-best) from memory, passing the others on in their order:
    the second pass asks the model only for the segments a term changed. Before, every request
    goes to the backend as it came (the plain pass is the plain pipeline's). Everything else is
    the wrapped backend's."""

    def __init__(self, backend: TranslationBackend) -> None:
        self.backend = backend
        self.name = backend.name
        self.lexicon = backend.lexicon
        self.links = backend.links
        self.replay = False
        self._answers: dict[tuple[Request, int], list[Candidate]] = {}

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        """The backend's answers (from memory where `replay` allows)."""
        new = [r for r in requests if not self.replay or (r, n_best) not in self._answers]
        if len(new) == len(requests):
            got = self.backend.translate(requests, n_best=n_best)
            self._answers.update(((r, n_best), list(g)) for r, g in zip(requests, got, strict=True))
            return got
        if new:
            for r, g in zip(new, self.backend.translate(new, n_best=n_best), strict=True):
                self._answers[(r, n_best)] = list(g)
        return [list(self._answers[(r, n_best)]) for r in requests]

    def __getattr__(self, name: str) -> object:
        if name == "backend":  # not yet set (a copy): no recursion
            raise AttributeError(name)
        return getattr(self.backend, name)


def merged(user: Glossary | None, terms: Sequence[dictionary_terms.Term]) -> Glossary:
    """The user's glossary with the dictionary terms added, less those for a word the user's
    glossary names (compared in lower case): the user's term wins."""
    kept = () if user is None else user.terms
    named = {t.source.lower() for t in kept}
    added = tuple(Term(t.source, t.target.strip()) for t in terms if t.source.lower() not in named)
    return Glossary((*kept, *added), "" if user is None else user.path)


def term_flag(
    r: SegmentResult, glossary: Glossary, forced: dict[Term, dictionary_terms.Term]
) -> Flag | None:
    """`dictionary-term` naming the forced terms (of `forced`) the segment's source holds and
    its translation kept, each once: "source → target (gloss)"; None without one."""
    if not r.translated:
        return None
    named: list[str] = []
    for _, term in glossary.shield(r.source).slots:
        got = forced.get(term)
        if got is None or term.source in r.terms_lost:
            continue
        gloss = got.gloss.rsplit(" > ", 1)[-1]  # a resolved redirect: the sense's own gloss
        said = f"{term.source} → {term.target}" + (f" ({gloss})" if gloss else "")
        if said not in named:
            named.append(said)
    return Flag(DICTIONARY_TERM, "; ".join(named)) if named else None


def with_dictionary_terms(
    doc: Document,
    backend: TranslationBackend,
    opts: TranslateOptions,
    dictionary: BilingualDictionary,
    translate: Translate,
    progress: Progress | None = None,
) -> TranslationResult:
    """`doc` translated with the dictionary's terms forced (module docstring); `translate`: the
    pipeline without them (`fitsub.pipeline.translate_document`)."""
    remembered = Remembered(backend)
    plain_opts = dataclasses.replace(opts, compare=True, quality=False)
    plain = translate(doc, remembered, plain_opts, progress)
    links = backend.links
    terms, _ = dictionary_terms.choose_terms(
        ((r.source, r.unconstrained or "") for r in plain.segments),
        dictionary,
        None if links is None else links.links,
        frozenset() if links is None else links.function,
        plural=True,
    )
    glossary = merged(opts.glossary, terms)
    forced = {Term(t.source, t.target.strip()): t for t in terms}
    forced = {k: v for k, v in forced.items() if k in glossary.terms}
    if not forced:  # the plain pass is the result: as `translate` would have finished it
        result = plain
        if opts.quality:
            result = with_quality(result, backend, lang=opts.lang, threshold=opts.quality_threshold)
        if not opts.compare:
            segments = [dataclasses.replace(r, unconstrained=None) for r in result.segments]
            result = dataclasses.replace(result, segments=segments)
        return result
    asked = dataclasses.replace(opts, glossary=glossary)
    remembered.replay = True
    result = translate(doc, remembered, asked, progress)
    segments = []
    for r in result.segments:
        flag = term_flag(r, glossary, forced)
        segments.append(r if flag is None else dataclasses.replace(r, flags=(*r.flags, flag)))
    return dataclasses.replace(result, segments=segments)
