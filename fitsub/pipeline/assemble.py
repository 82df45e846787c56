"""Assemble: per-segment results, the output document and the warnings, from what each cue got.

Fitted text is reflowed into the cue's slot (`fitsub.reflow`) and its markup restored; timings,
ids and cue count never change (the output document is `doc.with_texts(...)`). Each translated
segment then gets its quality flags (`fitsub.quality.flags.segment_flags`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from fitsub.budget import Budget, SpeechWindow, line_room
from fitsub.document import Document
from fitsub.formats.markdown import escape_translation, opens_line
from fitsub.lengthpred.policy import Requested, combine
from fitsub.markup import Protected
from fitsub.markup.project import project
from fitsub.pipeline.alternatives import Alternative
from fitsub.pipeline.names import file_names, inconsistent_names
from fitsub.pipeline.plan import PlannedSegment, TranslateOptions
from fitsub.pipeline.share import SINGLE, CueTexts
from fitsub.pipeline.typeset import typeset
from fitsub.quality.dictionary import Dictionary, english_left
from fitsub.quality.flags import Flag, segment_flags, unknown_word_flag, words
from fitsub.quality.lexicon import Lexicon, words_of
from fitsub.quality.links import WordLinks, lost_by_fitting
from fitsub.quality.polarity import reversed_words, tokens
from fitsub.quality.registry import (
    CUT_SENTENCE,
    DROPPED_CONTENT,
    FLAG_NAMES,
    MEANING_REVERSED,
    OVER_BUDGET,
    UNTRANSLATED,
)
from fitsub.quality.sentence_end import dangling_end
from fitsub.reflow import reflow
from fitsub.units import char_length


@dataclass(frozen=True)
class SegmentResult:
    """One segment's budget, fitted and unconstrained translations, and whether each fits."""

    index: int
    id: str | None
    source: str
    budget: Budget | None  # None: segment not translated (blank line, empty cue)
    fitted: str
    unconstrained: str | None = None
    group: int = -1  # index of the sentence group (the cues of one sentence share it)
    group_path: str = SINGLE  # how the sentence was fitted: one of `share.GROUP_PATHS`
    markup_lost: tuple[str, ...] = ()  # mid-sentence markup the output could not carry
    markup_moved: tuple[str, ...] = ()  # inline tags not placed on their words: around the line
    terms_lost: tuple[str, ...] = ()  # glossary terms the translation lost (not restored)
    model_fits: bool = True  # False: the backend found no hypothesis within the hard budget
    flags: tuple[Flag, ...] = ()  # quality flags of the fitted text (`fitsub.quality.flags`)
    requested: Requested | None = None  # the length asked of the model and where it came from
    refitted: bool = False  # translated again under the budget (False: unconstrained kept)
    quality: float | None = None  # estimated quality in [0, 1] (`fitsub.quality.score`); None: none
    window: SpeechWindow | None = None  # dubbing budgets: the cue's speaking window
    syllables: int | None = None  # dubbing budgets: the fitted text's syllables (espeak-ng)
    spoken: bool | None = None  # dubbing budgets: whether the window takes the fitted text
    alternatives: tuple[Alternative, ...] = ()  # what the reviewer may pick instead (one cue)

    @property
    def translated(self) -> bool:
        """Whether the segment was sent to the model."""
        return self.budget is not None

    @property
    def fitted_chars(self) -> int:
        """Characters of the fitted translation (line breaks not counted)."""
        return char_length(self.fitted)

    @property
    def unconstrained_chars(self) -> int | None:
        """Characters of the unconstrained translation, if computed."""
        return None if self.unconstrained is None else char_length(self.unconstrained)

    @property
    def fits(self) -> bool:
        """Whether the fitted translation is within its budget (dubbing: its window, `spoken`)."""
        if self.budget is not None and self.window is not None and self.spoken is not None:
            chars = not self.window.capped or self.fitted_chars <= self.budget.chars  # narrow
            return self.spoken and chars
        return self.budget is None or self.fitted_chars <= self.budget.chars

    @property
    def unconstrained_fits(self) -> bool | None:
        """Whether the unconstrained translation would have been within the budget."""
        n = self.unconstrained_chars
        return None if n is None or self.budget is None else n <= self.budget.chars


@dataclass(frozen=True)
class TranslationResult:
    """The translated document and the per-segment comparison."""

    document: Document
    segments: list[SegmentResult] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # markup dropped in mid-sentence, etc.


def layout(text: str, doc: Document, opts: TranslateOptions, cpl: int | None = None) -> str:
    """Reflow fitted text into the subtitle slot (`cpl`: the line's room, default the limit's);
    slides keep one line per segment."""
    if not doc.timed:
        return text
    width = opts.limits.cpl if cpl is None else cpl
    return "\n".join(reflow(text, width, opts.limits.lines, lang=opts.lang))


T = TypeVar("T")


def in_order(by_turn: Mapping[int, T]) -> list[T]:
    """A cue's per-turn values in turn order."""
    return [by_turn[t] for t in sorted(by_turn)]


def _output_text(
    prot: Protected,
    turns: list[str],
    doc: Document,
    opts: TranslateOptions,
    line_start: bool,
    tagged: Mapping[str, Sequence[str]],
) -> tuple[str, tuple[str, ...]]:
    """A cue's new text: its turns, reflowed into the slot unless a dialogue, markup restored
    (in Markdown, the translation's own markup characters escaped first), inline tags projected
    on their words (`fitsub.markup.project`, with `tagged`: the tagged words translated alone);
    and the inline tags that could not be placed (kept around their turn)."""
    if doc.format == "markdown":
        turns = [
            escape_translation(text, line_start, t.kept_texts)
            for t, text in zip(prot.turns, turns, strict=True)
        ]
    if not prot.is_dialogue:
        turns = [layout(turns[0], doc, opts, line_room(prot, opts.limits))]
    placed = [
        project(t.plain, t.inline, text, tagged) for t, text in zip(prot.turns, turns, strict=True)
    ]
    moved = tuple(
        t.inline[k].markup for t, p in zip(prot.turns, placed, strict=True) for k in p.unplaced
    )
    return prot.restore_turns(turns, [p.spans for p in placed]), moved


def unchanged(turns: Sequence[str], prot: Protected) -> bool:
    """Whether a cue's translation is its source text word for word (line breaks aside): the
    cue then keeps its source text as written, its line breaks and markup included."""
    return " ".join(turns).split() == " ".join(prot.turn_texts).split()


def _result(i: int, p: PlannedSegment, prot: Protected, got: CueTexts) -> SegmentResult:
    asked = got.asked.get(i)
    return SegmentResult(
        index=i,
        id=p.id,
        source=prot.plain,
        budget=p.budget,
        fitted=" ".join(in_order(got.turns[i])),
        unconstrained=" ".join(in_order(got.free[i])) if i in got.free else None,
        group=got.group[i],
        group_path=got.path[i],
        markup_lost=prot.lost,
        terms_lost=got.terms_lost.get(i, ()),
        model_fits=got.model_fits[i],
        requested=combine(in_order(asked)) if asked else None,
        refitted=got.refitted.get(i, False),
        alternatives=() if prot.is_dialogue else got.alternatives.get(i, ()),
    )


def _warnings(
    planned: Sequence[PlannedSegment], got: CueTexts, results: Sequence[SegmentResult]
) -> list[str]:
    warnings = [
        f"segment {p.id or p.index + 1}: markup in mid-sentence dropped: {' '.join(p.protected.lost)}"
        for i, p in enumerate(planned)
        if p.protected is not None
        and p.protected.lost
        and not (i in got.turns and unchanged(in_order(got.turns[i]), p.protected))
    ]
    warnings += [
        f"segment {r.id or r.index + 1}: markup not placed on its words, kept around the whole "
        f"line: {' '.join(r.markup_moved)}"
        for r in results
        if r.markup_moved
    ]
    warnings += [
        f"segment {planned[i].id or i + 1}: glossary term(s) lost in translation: "
        + ", ".join(repr(t) for t in lost)
        for i, lost in sorted(got.terms_lost.items())
    ]
    said = [(r.id or str(r.index + 1), r.source, r.fitted) for r in results if r.translated]
    return warnings + inconsistent_names(said)  # a name kept here, translated there


def assemble(
    doc: Document,
    planned: Sequence[PlannedSegment],
    got: CueTexts,
    opts: TranslateOptions,
    known: Collection[str],
    lexicon: Lexicon | None = None,
    tagged: Mapping[str, Sequence[str]] | None = None,
    links: WordLinks | None = None,
) -> TranslationResult:
    """The output document, each segment's result (flagged) and the warnings; `tagged`: the
    words under inline tags translated alone (`fitsub.pipeline.inline`); `links`: the model's
    word links (`fitsub.quality.links`), for `dropped-content`."""
    glossary = opts.glossary.terms if opts.glossary is not None else ()
    typeset(planned, got, {w.lower() for t in glossary for w in t.source.split()}, lang=opts.lang)
    results: list[SegmentResult] = []
    new_texts: list[str] = []
    for i, (seg, p) in enumerate(zip(doc.segments, planned, strict=True)):
        prot = p.protected
        if prot is None or i not in got.turns:
            new_texts.append(seg.text)
            results.append(
                SegmentResult(index=i, id=seg.id, source=seg.text, budget=None, fitted=seg.text)
            )
            continue
        turns = in_order(got.turns[i])
        if unchanged(turns, prot):  # nothing translated (`--model identity`): the source's bytes
            new_texts.append(seg.text)
            results.append(dataclasses.replace(_result(i, p, prot, got), markup_lost=()))
            continue
        line_start = doc.format == "markdown" and opens_line(doc.gaps[i] if doc.gaps else "")
        text, moved = _output_text(prot, turns, doc, opts, line_start, tagged or {})
        new_texts.append(text)
        results.append(dataclasses.replace(_result(i, p, prot, got), markup_moved=moved))
    terms = [t.target for t in opts.glossary.terms] if opts.glossary is not None else []
    if opts.speech is not None:
        speech = opts.speech
        results = [
            r
            if p.window is None or r.budget is None
            else dataclasses.replace(r, window=p.window, syllables=speech.syllables(r.fitted))
            for r, p in zip(results, planned, strict=True)
        ]
        accepts = speech.accepts  # whether the window takes each fitted line
        results = [
            dataclasses.replace(r, spoken=accepts(r.source, r.fitted, r.window)) if r.window else r
            for r in results
        ]
    flagged = flag_segments(results, known, lexicon, terms, lang=opts.lang, links=links)
    return TranslationResult(doc.with_texts(new_texts), flagged, _warnings(planned, got, results))


def flag_segments(
    results: Sequence[SegmentResult],
    known: Collection[str] = (),
    lexicon: Lexicon | None = None,
    terms: Collection[str] = (),
    lang: str | None = None,
    links: WordLinks | None = None,
) -> list[SegmentResult]:
    """Each translated segment with its quality flags (`fitsub.quality.flags.segment_flags`).

    The words the model knows, for `cut-word`, are `known` (the backend's vocabulary) and every
    word of the document's unconstrained translations. With the model's `lexicon`, a fitted
    word outside it, the sentence's sources and the glossary `terms` is `unknown-word`. With
    the model's word `links`, a source word the sentence's unconstrained translation has a
    counterpart for and its fitted one has not is `dropped-content` on the cue it is in.
    """
    sources: dict[int, list[str]] = {}
    for r in results:
        sources.setdefault(r.group, []).append(r.source)
    vocab = set(known)
    lost_words = _lost_in_sentences(results, links) if links is not None else {}
    cut = _cut_sentences(results, lang)
    reversed_ = _reversed_sentences(results, lang)
    names = sorted(file_names([r.source for r in results if r.budget is not None]))
    for r in results:
        if r.unconstrained is not None:
            vocab.update(words(r.unconstrained))
    out = []
    for r in results:
        if r.budget is None:
            out.append(r)
            continue
        flags = segment_flags(
            source=r.source,
            fitted=r.fitted,
            unconstrained=r.unconstrained,
            budget_chars=r.budget.chars if r.window is None or r.window.capped else None,
            model_fits=r.model_fits or r.fits,  # a fallback that fits is over no budget
            known=vocab,
            tgt_lang=lang,
        )
        if r.window is not None and not r.window.capped:  # a band window: said in seconds
            note = f"outside the speaking window {r.window.describe('seconds')}"
            flags = [Flag(OVER_BUDGET, note) if f.name == OVER_BUDGET else f for f in flags]
        lost = [w for w in lost_words.get(r.group, []) if w in words_of(r.source)]
        if links is not None and r.group < 0 and r.unconstrained is not None:
            lost = lost_by_fitting(r.source, r.fitted, r.unconstrained, links)
        if lost:
            flags = _with_lost(flags, lost)
        if r.index in cut:
            flags = _merged(flags, CUT_SENTENCE, f"ends on {cut[r.index]!r}")
        if r.index in reversed_:
            flags = _merged(flags, MEANING_REVERSED, reversed_[r.index])
        english = _english(r, lexicon, [*terms, *names])  # the file's names are no English
        if english:
            flags = _merged(flags, UNTRANSLATED, "English left: " + ", ".join(english))
        elif lexicon is not None and isinstance(lexicon.dictionary, Dictionary):
            flags = [f for f in flags if f.name != UNTRANSLATED]  # copied: names, target words
        if lexicon is not None:
            own = [r.source] if r.group < 0 else sources[r.group]
            unknown = unknown_word_flag(r.fitted, own, lexicon, terms)
            flags += [unknown] if unknown is not None else []
        out.append(dataclasses.replace(r, flags=tuple(flags)))
    return out


def _lost_in_sentences(results: Sequence[SegmentResult], links: WordLinks) -> dict[int, list[str]]:
    """Per sentence spread over cues (group >= 0): the source words its fitting removed
    (`fitsub.quality.links.lost_by_fitting` over the cues joined: a word may move to a neighbour)."""
    groups: dict[int, list[SegmentResult]] = {}
    for r in results:
        if r.group >= 0 and r.budget is not None:
            groups.setdefault(r.group, []).append(r)
    out = {}
    for g, rs in groups.items():
        if all(r.unconstrained is not None for r in rs):
            src, fit = " ".join(r.source for r in rs), " ".join(r.fitted for r in rs)
            free = " ".join(r.unconstrained or "" for r in rs)
            out[g] = lost_by_fitting(src, fit, free, links)
    return out


def _with_lost(flags: Sequence[Flag], lost: Sequence[str]) -> list[Flag]:
    """`flags` with "no counterpart for ..." in `dropped-content`."""
    return _merged(flags, DROPPED_CONTENT, "no counterpart for " + ", ".join(lost))


def _merged(flags: Sequence[Flag], name: str, note: str) -> list[Flag]:
    """`flags` with `note` in flag `name` (added, or appended to the detail of one already
    there), in `FLAG_NAMES` order."""
    old = next((f for f in flags if f.name == name), None)
    new = Flag(name, note if old is None else f"{old.detail}; {note}")
    out = [f for f in flags if f.name != name] + [new]
    return sorted(out, key=lambda f: FLAG_NAMES.index(f.name))


def _sentences(results: Sequence[SegmentResult]) -> list[list[SegmentResult]]:
    """The translated segments by sentence (a cue alone, or the cues of one group)."""
    groups: dict[int, list[SegmentResult]] = {}
    for r in results:
        if r.budget is not None:
            groups.setdefault(r.group if r.group >= 0 else -1 - r.index, []).append(r)
    return list(groups.values())


def _reversed_sentences(results: Sequence[SegmentResult], lang: str | None) -> dict[int, str]:
    """The cue of each translated sentence whose polarity is not its source's
    (`fitsub.quality.polarity.reversed_words`, judged on the sentence's cues joined: a negation
    may move to a neighbour) → the flag's detail; on the cue holding the words it names, else
    the last."""
    out = {}
    for rs in _sentences(results):
        src, fit = " ".join(r.source for r in rs), " ".join(r.fitted for r in rs)
        detail = reversed_words(src, fit, lang)
        if detail is None:
            continue
        lost = detail.startswith("lost ")
        named = set(detail.removeprefix("lost ").replace("…", ",").replace(" ", "").split(","))
        holds = [
            r
            for r in rs
            if named & set(tokens(r.source if lost else r.fitted, "en" if lost else lang or ""))
        ]
        out[(holds[0] if holds else rs[-1]).index] = detail
    return out


def _cut_sentences(results: Sequence[SegmentResult], lang: str | None) -> dict[int, str]:
    """The last cue of each translated sentence whose fitted text ends mid-phrase
    (`fitsub.quality.sentence_end.dangling_end`, judged on the sentence's cues joined) → that word."""
    out = {}
    for rs in _sentences(results):
        src, fit = " ".join(r.source for r in rs), " ".join(r.fitted for r in rs)
        word = dangling_end(src, fit, lang)
        if word is not None:
            out[rs[-1].index] = word
    return out


def _english(r: SegmentResult, lexicon: Lexicon | None, terms: Collection[str]) -> list[str]:
    """The English words left in a fitted segment (`fitsub.quality.dictionary.english_left`; none
    without the lexicon's dictionary)."""
    if lexicon is None or not isinstance(lexicon.dictionary, Dictionary):
        return []
    return english_left(r.source, r.fitted, lexicon.dictionary, terms)
