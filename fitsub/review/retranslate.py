"""One segment translated again as the run did, with a new budget or a forced term.

The review server (`fitsub.review.serve`) asks for it: the source cue alone (a one-cue
document, its timing kept) goes through `translate_document` with the run's options, its budget
in characters set by hand (`TranslateOptions.budget_chars`) and, for a forced term, one more
glossary entry (`fitsub.glossary`); what comes back is the segment's result with its
alternatives (`fitsub.pipeline.alternatives`). A step is `STEP` of the budget (at least one
character), shorter or longer.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from fitsub.backend import TranslationBackend
from fitsub.document import Document
from fitsub.glossary import Glossary, Term
from fitsub.pipeline import SegmentResult, TranslateOptions, translate_document
from fitsub.pipeline.plan import plan

STEP = 0.10  # a step shorter or longer: 10 % of the budget's characters
SHORTER, LONGER = "shorter", "longer"


def budgets_of(source: Document, opts: TranslateOptions) -> dict[int, int]:
    """Each translated segment's budget in characters, as the run planned it."""
    return {p.index: p.budget.chars for p in plan(source, opts) if p.budget is not None}


def stepped(chars: int, step: str | int) -> int:
    """The budget a step asks: `shorter` / `longer` (`STEP` of `chars`, at least one
    character, never under 1), or a number of characters as given."""
    if isinstance(step, int):
        return max(1, step)
    delta = max(1, math.floor(chars * STEP + 0.5))
    return max(1, chars - delta) if step == SHORTER else chars + delta


def with_term(glossary: Glossary | None, term: tuple[str, str] | None) -> Glossary | None:
    """The run's glossary with one more term (`source`, `target`) forced."""
    if term is None:
        return glossary
    kept: Sequence[Term] = () if glossary is None else glossary.terms
    others = tuple(t for t in kept if t.source != term[0])
    path = "" if glossary is None else glossary.path
    return Glossary(terms=(*others, Term(term[0], term[1])), path=path)


def retranslate(
    source: Document,
    index: int,
    *,
    backend: TranslationBackend,
    opts: TranslateOptions,
    chars: int,
    term: tuple[str, str] | None = None,
) -> SegmentResult:
    """Segment `index` of `source` translated alone into `chars` characters (module docstring)."""
    seg = dataclasses.replace(source.segments[index], index=0)
    one = dataclasses.replace(source, segments=(seg,), gaps=())
    asked = dataclasses.replace(
        opts,
        budget_chars={0: chars},
        glossary=with_term(opts.glossary, term),
        quality=False,  # the score is not what the reviewer asked for; it costs a model pass
    )
    result = translate_document(one, backend, asked)
    return result.segments[0]
