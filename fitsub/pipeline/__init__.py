"""segments + budgets → backend → fitted segments (+ the unconstrained run for the comparison).

For each translatable segment the pipeline removes markup (`fitsub.markup`), computes the
character budget (`fitsub.budget`: slot or isometric mode), groups cues that share a sentence
(`fitsub.pipeline.across_cues`), asks the backend for the unconstrained translation, keeps it where it
fits, and only elsewhere asks for the natural length capped by the budget with the budget as a
hard limit (`fitsub.pipeline.run`). Fitted text is shared back among the grouped cues,
reflowed into the slot (`fitsub.reflow`) and the markup restored. The output never depends on
whether the comparison is shown (`TranslateOptions.compare`).
Timings, ids and cue count never change: the output document is `doc.with_texts(...)`.

A sentence across cues is translated once and its words shared among the cues; the path it
took is `SegmentResult.group_path`:

* `whole`: the words split in proportion to the cues' budgets fit every cue (budget and lines);
* `re-split`: they did not, but moving words between the cues makes every cue fit
  (`fitsub.pipeline.across_cues.resplit`);
* `re-translated`: no split of any candidate fits, so the sentence is translated again with
  a tighter total budget (`RETRANSLATE_STEPS`), and the first of the n-best candidates that
  splits into fitting parts is kept;
* `per-cue`: none did (or `--per-cue` was asked): each cue is translated alone.

A sentence in one cue is `single`. Glossary terms (`fitsub.glossary`) are replaced by
placeholders before translation and restored before any length check.

The steps, each a module: `plan` (segments → budgets, sentence groups), `work` (units of work:
one request each), `run` (backend calls, n-best, re-translation, the per-cue last resort),
`share` (a translation split back over its cues), `assemble` (results, the output document)
and `summary` (before / after figures). With `TranslateOptions.dictionary` (`--terms
dictionary`), `forced_terms` runs these twice: plain, then with the dictionary's terms.
"""

from __future__ import annotations

import dataclasses

from fitsub.backend import TranslationBackend
from fitsub.document import Document
from fitsub.pipeline.assemble import SegmentResult, TranslationResult, assemble, flag_segments
from fitsub.pipeline.estimate import with_quality
from fitsub.pipeline.fitter import Fitter
from fitsub.pipeline.forced_terms import with_dictionary_terms
from fitsub.pipeline.inline import translate_tagged
from fitsub.pipeline.plan import PlannedSegment, TranslateOptions, plan, sentence_groups
from fitsub.pipeline.respeak import respeak
from fitsub.pipeline.run import (
    Progress,
    Runner,
    per_cue,
    retranslate,
    settle,
)
from fitsub.pipeline.share import (
    GROUP_PATHS,
    KEPT_WHOLE,
    PER_CUE,
    RESPLIT,
    RETRANSLATED,
    SINGLE,
    WHOLE,
    CueFit,
    CueTexts,
)
from fitsub.pipeline.summary import Summary, summarize_results
from fitsub.pipeline.work import known_words, units_of

__all__ = [
    "GROUP_PATHS",
    "KEPT_WHOLE",
    "PER_CUE",
    "RESPLIT",
    "RETRANSLATED",
    "SINGLE",
    "WHOLE",
    "PlannedSegment",
    "Progress",
    "SegmentResult",
    "Summary",
    "TranslateOptions",
    "TranslationResult",
    "flag_segments",
    "plan",
    "summarize_results",
    "translate_document",
]


def translate_document(
    doc: Document,
    backend: TranslationBackend,
    opts: TranslateOptions,
    progress: Progress | None = None,
) -> TranslationResult:
    """Translate every translatable segment of `doc` into its budget, keeping every
    unconstrained translation that already fits (`fitsub.pipeline.run`); with
    `opts.dictionary`, its terms forced where the plain translation left a noun untranslated
    (`fitsub.pipeline.forced_terms`)."""
    if opts.dictionary is not None:
        plain = dataclasses.replace(opts, dictionary=None)
        return with_dictionary_terms(
            doc, backend, plain, opts.dictionary, translate_document, progress
        )
    if opts.speech is not None:  # dubbing: each cue is an actor's line, timed on its own
        opts = dataclasses.replace(opts, per_cue=True)
    # plan: budgets, sentence groups, one unit of work per request
    planned = plan(doc, opts)
    groups = sentence_groups(planned, doc)
    units = units_of(planned, groups, doc, opts)
    # run: every unit unconstrained; those that do not fit again within their budget
    runner = Runner(backend, opts.batch_size, progress, 2 * len(units))
    free = runner.free(units)
    fit = CueFit(planned, doc.timed, opts.limits, opts.lang)
    terms = tuple(t.target for t in opts.glossary.terms) if opts.glossary is not None else ()
    fitter = Fitter(
        fit,
        opts.min_ratio,
        known_words(backend, free),
        backend.lexicon,
        terms,
        speech=opts.speech,
    )
    got = CueTexts()
    multi = {gi for gi, g in enumerate(groups) if len(g) > 1}
    pending, fitter = settle(runner, units, opts, fitter, got, multi, free)
    # dubbing: a cue that missed its speaking window asked again, its characters corrected
    respeak(Runner(backend, opts.batch_size), units, fitter, got)
    # sentences no split fits: tighter budgets, then cue by cue (no progress reported)
    later = Runner(backend, opts.batch_size)
    pending = retranslate(later, pending, opts.min_ratio, fitter.known, fit, got)
    fitter = per_cue(later, pending, planned, opts, fitter, got)
    # inline tags: the tagged words translated alone, to find them in each cue's translation
    tagged = translate_tagged(later, planned, got)
    # assemble: the output document and each segment's result
    result = assemble(doc, planned, got, opts, fitter.known, backend.lexicon, tagged, backend.links)
    # quality estimation: a score per sentence, `low-quality` under the threshold
    if opts.quality:
        result = with_quality(result, backend, lang=opts.lang, threshold=opts.quality_threshold)
    if not opts.compare:  # the comparison hidden: the output, its flags and scores stay the same
        segments = [dataclasses.replace(r, unconstrained=None) for r in result.segments]
        result = dataclasses.replace(result, segments=segments)
    return result
