"""segments + budgets → backend → fitted segments (+ the unconstrained run for the comparison).

For each translatable segment the pipeline removes markup (`fitsub.markup`), computes the
character budget (`fitsub.budget`), groups cues that share a sentence (`fitsub.distribute`),
asks the backend for a translation of the budget's length with the budget as a hard limit,
and, for the comparison, for the unconstrained translation. Fitted text is shared back among
the grouped cues, reflowed into the slot (`fitsub.reflow`) and the markup restored.
Timings, ids and cue count never change: the output document is `doc.with_texts(...)`.

A sentence across cues is translated once and its words shared among the cues; the path it
took is `SegmentResult.group_path`:

* `whole`: the words split in proportion to the cues' budgets fit every cue (budget and lines);
* `re-split`: they did not, but moving words between the cues makes every cue fit
  (`fitsub.distribute.resplit`);
* `re-translated`: no split of that translation fits, so the sentence is translated again with
  a tighter total budget (`RETRANSLATE_STEPS`), and the first of the n-best candidates that
  splits into fitting parts is kept;
* `per-cue`: none did (or `--per-cue` was asked): each cue is translated alone.

A sentence in one cue is `single`. Glossary terms (`fitsub.glossary`) are replaced by
placeholders before translation and restored before any length check.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from fitsub.backend import Candidate, Request, TranslationBackend
from fitsub.budget import Budget, Limits, min_plausible_chars, segment_budget
from fitsub.distribute import CueSpan, distribute, group_cues, resplit
from fitsub.document import Document, Segment
from fitsub.flags import Flag, KnowsWords, count_flags, cut_words, segment_flags, words
from fitsub.glossary import Glossary, Shielded
from fitsub.lengthpred.policy import LengthPolicy, Requested, combine
from fitsub.lengthpred.policy import share as cue_share
from fitsub.markup import Protected, protect, visible_text
from fitsub.reflow import fits_layout, reflow
from fitsub.units import char_length, ratio_chars_ceil, ratio_chars_floor

Progress = Callable[[int, int], None]
WordCheck = Callable[[str], bool]  # whether a restored translation cuts no word (`_whole_words`)


@dataclass(frozen=True)
class TranslateOptions:
    """What the user asked for: target language, ratio, slot limits and modes."""

    lang: str
    limits: Limits
    ratio: float | None = 1.0
    per_cue: bool = False
    compare: bool = True
    batch_size: int = 64
    min_ratio: float | None = None  # lower bound: min_ratio × source characters (dubbing)
    glossary: Glossary | None = None  # terms kept or translated as the glossary says
    length: LengthPolicy = field(default_factory=LengthPolicy)  # the length asked (≤ budget)


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
    group_path: str = "single"  # how the sentence was fitted: one of GROUP_PATHS
    markup_lost: tuple[str, ...] = ()  # mid-sentence markup the output could not carry
    terms_lost: tuple[str, ...] = ()  # glossary terms the translation lost (not restored)
    model_fits: bool = True  # False: the backend found no hypothesis within the hard budget
    flags: tuple[Flag, ...] = ()  # quality flags of the fitted text (`fitsub.flags`)
    requested: Requested | None = None  # the length asked of the model and where it came from

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
        """Whether the fitted translation is within its budget."""
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


def _budget_for(prot: Protected, doc: Document, seg: Segment, opts: TranslateOptions) -> Budget:
    timed = doc.timed
    return segment_budget(
        char_length(prot.plain),
        ratio=opts.ratio,
        limits=opts.limits if timed else None,
        duration_ms=seg.duration_ms if timed else None,
        markup_chars=prot.markup_chars if timed else 0,
        source_words=len(prot.plain.split()),
        room=seg.room,  # a .pptx text box's share
    )


@dataclass(frozen=True)
class PlannedSegment:
    """A segment as the pipeline sees it before translation: plain text and budget."""

    index: int
    id: str | None
    protected: Protected | None  # None: not translated (blank line, empty cue)
    budget: Budget | None


def plan(doc: Document, opts: TranslateOptions) -> list[PlannedSegment]:
    """Protect markup and compute each segment's budget (what `fitsub budget` shows)."""
    planned: list[PlannedSegment] = []
    for i, seg in enumerate(doc.segments):
        prot = protect(seg.text, doc.markup) if seg.translatable else None
        if prot is not None and not prot.plain.strip():
            prot = None
        budget = None if prot is None else _budget_for(prot, doc, seg, opts)
        planned.append(PlannedSegment(i, seg.id, prot, budget))
    return planned


SINGLE = "single"  # a sentence in one cue (or a dialogue turn)
WHOLE = "whole"
RESPLIT = "re-split"
RETRANSLATED = "re-translated"
PER_CUE = "per-cue"
GROUP_PATHS: tuple[str, ...] = (SINGLE, WHOLE, RESPLIT, RETRANSLATED, PER_CUE)
KEPT_WHOLE: tuple[str, ...] = (WHOLE, RESPLIT, RETRANSLATED)
NBEST = 5  # candidates asked for when the best one may not do (re-translation, glossary)
# A sentence whose translation no split fits is translated again with its total budget times
# each factor in turn (and always shorter than the last translation), before cue by cue.
RETRANSLATE_STEPS: tuple[float, ...] = (0.92, 0.84, 0.76)


def _run(
    backend: TranslationBackend,
    requests: list[Request],
    batch_size: int,
    progress: Progress | None,
    done: list[int],
    total: int,
    n_best: int = 1,
) -> list[list[Candidate]]:
    out: list[list[Candidate]] = []
    for start in range(0, len(requests), batch_size):
        chunk = requests[start : start + batch_size]
        out.extend(backend.translate(chunk, n_best=n_best))
        done[0] += len(chunk)
        if progress is not None:
            progress(done[0], total)
    return out


@dataclass(frozen=True)
class _Unit:
    """One request to the model and where its words go: cues of a sentence, or one turn."""

    shield: Shielded  # the words to translate, glossary terms as placeholders
    source: str  # the words as written
    budget: int  # characters of the restored translation
    cues: tuple[int, ...]  # the cues sharing the translation (several: a sentence across cues)
    cue_budgets: tuple[int, ...]
    group: int  # the sentence group
    turn: int = 0  # the speaker turn inside a single dialogue cue
    asked: Requested | None = None  # the length policy's request (None: the budget)

    def request(self, budget: int | None, min_ratio: float | None = None) -> Request:
        """Ask for `budget` characters, a hard limit, less what restoring glossary terms adds
        (with a lower bound when asked); None: the unconstrained translation."""
        if budget is None:
            return Request(self.shield.text)
        room = max(1, budget - self.shield.extra_chars)
        low = None
        if min_ratio is not None:
            wanted = ratio_chars_ceil(min_ratio, char_length(self.source))
            low = max(0, min(room, wanted - self.shield.extra_chars))
        target = (
            room if self.asked is None else min(room, self.asked.chars - self.shield.extra_chars)
        )
        return Request(self.shield.text, max(target, low or 1), room, low)

    def pick(self, cands: Sequence[Candidate], whole: WordCheck | None = None) -> Candidate:
        """The best candidate that keeps every glossary placeholder and, with `whole`, whose
        restored text cuts no word; else the best that keeps the placeholders; else the best."""
        return self.ranked(cands, whole)[0]

    def ranked(self, cands: Sequence[Candidate], whole: WordCheck | None = None) -> list[Candidate]:
        """Candidates keeping every placeholder (and cutting no word, with `whole`) first, each
        side in the backend's order."""

        def cuts(c: Candidate) -> bool:
            return whole is not None and not whole(self.shield.restore(c.text)[0])

        return sorted(cands, key=lambda c: (not self.shield.complete(c.text), cuts(c)))


def _unit(
    source: str,
    budget: int,
    cues: tuple[int, ...],
    cue_budgets: tuple[int, ...],
    group: int,
    glossary: Glossary | None,
    turn: int = 0,
) -> _Unit:
    shield = Shielded(source) if glossary is None else glossary.shield(source)
    return _Unit(shield, source, budget, cues, cue_budgets, group, turn)


def _visible_chars(markup: str) -> int:
    return char_length(visible_text(markup, "srt"))


def _line_room(prot: Protected, limits: Limits) -> int:
    """Characters per line left for the words once the line's visible markup ("♪ ") is in."""
    turn = prot.turns[0]
    edge = max(_visible_chars(prot.prefix + turn.prefix), _visible_chars(turn.suffix + prot.suffix))
    return max(1, limits.cpl - edge)


def _turn_budgets(
    budget: int, turns: Sequence[str], caps: Sequence[int] | None = None
) -> list[int]:
    """Share a dialogue cue's budget among its turns in proportion to their source lengths.

    `caps`: the most each turn may have (its line, when every turn has a line of its own).
    """
    lengths = [max(char_length(t), 1) for t in turns]
    total = sum(lengths)
    room = max(budget - (len(turns) - 1), len(turns))  # the turns are joined by spaces
    shares = [max(1, room * n // total) for n in lengths]
    if caps is not None:
        shares = [max(1, min(share, cap)) for share, cap in zip(shares, caps, strict=True)]
    return shares


def _groups(planned: Sequence[PlannedSegment], doc: Document) -> list[list[int]]:
    """The sentence groups of a subtitle document (slides: one line each)."""
    spans = [
        CueSpan(
            text="" if p.protected is None else p.protected.plain,
            start_ms=seg.start_ms,
            end_ms=seg.end_ms,
            joinable=p.protected is not None and p.protected.joinable,
        )
        for seg, p in zip(doc.segments, planned, strict=True)
    ]
    if doc.timed:
        return group_cues(spans)
    return [[i] for i in range(len(spans))]


def _units(
    planned: Sequence[PlannedSegment],
    groups: Sequence[Sequence[int]],
    doc: Document,
    opts: TranslateOptions,
) -> list[_Unit]:
    timed = doc.timed
    units: list[_Unit] = []
    for gi, g in enumerate(groups):
        first = planned[g[0]]
        if first.protected is None or first.budget is None:
            continue
        if first.protected.is_dialogue:
            prot = first.protected
            caps = None
            if timed and len(prot.turns) <= opts.limits.lines:
                caps = [opts.limits.cpl - _visible_chars(t.prefix + t.suffix) for t in prot.turns]
            shares = _turn_budgets(first.budget.chars, prot.turn_texts, caps)
            for t, (turn_text, share) in enumerate(zip(prot.turn_texts, shares, strict=True)):
                units.append(_unit(turn_text, share, (g[0],), (share,), gi, opts.glossary, t))
            continue
        cue_groups = [[i] for i in g] if opts.per_cue else [list(g)]
        for cues in cue_groups:
            cue_budgets = tuple(bud.chars for i in cues if (bud := planned[i].budget) is not None)
            text = " ".join(pr.plain for i in cues if (pr := planned[i].protected) is not None)
            budget = sum(cue_budgets) + len(cues) - 1
            units.append(_unit(text, budget, tuple(cues), cue_budgets, gi, opts.glossary))
    return units


def _pad_split(text: str, k: int) -> list[str]:
    """`text` over k parts when `distribute` cannot (fewer words than parts): a word each."""
    words = text.split()
    return [*words[: k - 1], " ".join(words[k - 1 :]), *[""] * max(0, k - len(words))][:k]


class _Fitted:
    """What each cue gets: fitted and unconstrained words per turn, and how it got them."""

    def __init__(self) -> None:
        self.turns: dict[int, dict[int, str]] = {}
        self.free: dict[int, dict[int, str]] = {}
        self.model_fits: dict[int, bool] = {}
        self.path: dict[int, str] = {}
        self.group: dict[int, int] = {}
        self.terms_lost: dict[int, tuple[str, ...]] = {}
        self.asked: dict[int, dict[int, Requested]] = {}

    def accept(
        self,
        u: _Unit,
        parts: Sequence[str],
        fits: bool,
        lost: tuple[str, ...],
        free: str | None,
        path: str,
    ) -> None:
        free_parts = None
        if free is not None:
            free_parts = distribute(free, u.cue_budgets) or _pad_split(free, len(u.cues))
        for k, i in enumerate(u.cues):
            self.turns.setdefault(i, {})[u.turn] = parts[k]
            self.model_fits[i] = self.model_fits.get(i, True) and fits
            self.path[i] = path
            self.group[i] = u.group
            if u.asked is not None:  # a cue's share of its sentence's request
                self.asked.setdefault(i, {})[u.turn] = cue_share(
                    u.asked, u.cue_budgets[k], u.budget
                )
            if free_parts is not None:
                self.free.setdefault(i, {})[u.turn] = free_parts[k]
        if lost:
            self.terms_lost[u.cues[0]] = self.terms_lost.get(u.cues[0], ()) + lost


def _known_words(
    backend: TranslationBackend, free: Sequence[Sequence[Candidate]] | None
) -> frozenset[str]:
    """The target words the model knows: its vocabulary's whole words (when the backend lists
    them) and every word of the unconstrained translations (`fitsub.flags.cut_words`)."""
    known = set(backend.known_words()) if isinstance(backend, KnowsWords) else set()
    for cands in free or ():
        for c in cands[:1]:
            known.update(words(c.text))
    return frozenset(known)


def _whole_words(source: str, free: str | None, known: Collection[str]) -> WordCheck:
    """Whether a fitted translation cuts no word of the unconstrained one `free`.

    The search ends a hypothesis only at a word boundary (`fitsub.nmt.search`), but a model can
    still close a stem it had to leave with a short ending of its own ("costruita" ->
    "costito"); the `cut-word` flag's test catches those (`fitsub.flags.cut_words`). Without the
    unconstrained translation there is nothing to compare with: every text passes.
    """
    if free is None:
        return lambda text: True
    return lambda text: not cut_words(source, text, free, known)


def _accept_whole(
    out: _Fitted,
    u: _Unit,
    cand: Candidate,
    whole: WordCheck,
    free: Sequence[Candidate] | None,
    path: str,
) -> None:
    """Accept `cand` for single unit `u`. A candidate that cuts a word gives way to the
    shortest whole unconstrained candidate, flagged over budget: never a cut word (issue 11)."""
    text, lost = u.shield.restore(cand.text)
    fits = cand.fits
    free_text = None if not free else u.shield.restore(u.pick(free).text)[0]
    if free and not whole(text):
        kept = [c for c in free if u.shield.complete(c.text)] or list(free[:1])
        shortest = min(kept, key=lambda c: char_length(u.shield.restore(c.text)[0]))
        text, lost = u.shield.restore(shortest.text)
        fits = False
    out.accept(u, [text], fits, lost, free_text, path)


def _with_lengths(units: list[_Unit], policy: LengthPolicy) -> list[_Unit]:
    """Each unit with the length its policy asks for (`fitsub.lengthpred.policy`)."""
    asked = policy.requests([u.source for u in units], [u.budget for u in units])
    return [dataclasses.replace(u, asked=a) for u, a in zip(units, asked, strict=True)]


def translate_document(
    doc: Document,
    backend: TranslationBackend,
    opts: TranslateOptions,
    progress: Progress | None = None,
) -> TranslationResult:
    """Translate every translatable segment of `doc` into its budget; compare when asked."""
    planned = plan(doc, opts)
    groups = _groups(planned, doc)
    units = _with_lengths(_units(planned, groups, doc, opts), opts.length)
    multi = {gi for gi, g in enumerate(groups) if len(g) > 1}
    total = len(units) * (2 if opts.compare else 1)
    done = [0]
    # NBEST candidates: the best fitted one may cut a word where another does not, and the
    # shortest whole unconstrained one replaces a fitted text that cuts a word anyway
    fitted = _run(
        backend,
        [u.request(u.budget, opts.min_ratio) for u in units],
        opts.batch_size,
        progress,
        done,
        total,
        NBEST,
    )
    free = (
        _run(
            backend,
            [u.request(None) for u in units],
            opts.batch_size,
            progress,
            done,
            total,
            NBEST,
        )
        if opts.compare
        else None
    )

    def part_fits(cue: int, part: str) -> bool:
        """Whether `part` fits cue `cue`: its budget and, for subtitles, its lines."""
        p = planned[cue]
        if p.budget is None or p.protected is None or char_length(part) > p.budget.chars:
            return False
        if not doc.timed:
            return True
        room = _line_room(p.protected, opts.limits)
        return fits_layout(
            reflow(part, room, opts.limits.lines, lang=opts.lang), room, opts.limits.lines
        )

    def share(u: _Unit, text: str) -> tuple[list[str] | None, str]:
        """Parts of `text` that fit every cue of `u`, and the path that found them."""
        parts = distribute(text, u.cue_budgets)
        if parts is not None and all(part_fits(i, x) for i, x in zip(u.cues, parts, strict=True)):
            return parts, WHOLE
        parts = resplit(text, u.cue_budgets, lambda k, x: part_fits(u.cues[k], x))
        return parts, RESPLIT

    known = _known_words(backend, free)
    out = _Fitted()
    # (unit, characters of its last translation, its unconstrained translation)
    pending: list[tuple[_Unit, int, str | None]] = []
    for ui, u in enumerate(units):
        free_text = None if free is None else u.shield.restore(u.pick(free[ui]).text)[0]
        whole = _whole_words(u.source, free_text, known)
        cand = u.pick(fitted[ui], whole)
        text, lost = u.shield.restore(cand.text)
        if len(u.cues) == 1:
            path = PER_CUE if u.group in multi else SINGLE
            _accept_whole(out, u, cand, whole, None if free is None else free[ui], path)
            continue
        parts, path = share(u, text) if whole(text) else (None, WHOLE)
        if parts is not None:
            out.accept(u, parts, cand.fits, lost, free_text, path)
        else:
            pending.append((u, char_length(text), free_text))

    for factor in RETRANSLATE_STEPS:
        asks: list[tuple[_Unit, int, str | None]] = []
        waiting: list[tuple[_Unit, int, str | None]] = []
        for u, last, free_text in pending:
            tighter = min(ratio_chars_floor(factor, u.budget), last - 1)
            if tighter >= max(len(u.cues), min_plausible_chars(char_length(u.source))):
                asks.append((u, tighter, free_text))
            else:  # no shorter translation can keep the meaning: cue by cue
                waiting.append((u, last, free_text))
        if not asks:
            break
        again = _run(
            backend,
            [u.request(t, opts.min_ratio) for u, t, _ in asks],
            opts.batch_size,
            None,
            [0],
            0,
            NBEST,
        )
        pending = waiting
        for (u, tighter, free_text), cands in zip(asks, again, strict=True):
            whole = _whole_words(u.source, free_text, known)
            for cand in u.ranked(cands, whole):
                text, lost = u.shield.restore(cand.text)
                parts, _ = share(u, text) if whole(text) else (None, "")
                if parts is not None:
                    out.accept(u, parts, cand.fits, lost, free_text, RETRANSLATED)
                    break
            else:
                shortest = char_length(u.shield.restore(u.pick(cands).text)[0])
                pending.append((u, min(tighter, shortest), free_text))

    # Last resort: each cue of a sentence no translation could share is translated alone.
    singles = [
        _unit(
            planned[i].protected.plain,  # type: ignore[union-attr]
            b,
            (i,),
            (b,),
            u.group,
            opts.glossary,
        )
        for u, _, _ in pending
        for i, b in zip(u.cues, u.cue_budgets, strict=True)
    ]
    singles = _with_lengths(singles, opts.length)
    if singles:
        single = _run(
            backend,
            [u.request(u.budget, opts.min_ratio) for u in singles],
            opts.batch_size,
            None,
            [0],
            0,
            NBEST,
        )
        free_single = (
            _run(backend, [u.request(None) for u in singles], opts.batch_size, None, [0], 0, NBEST)
            if opts.compare
            else None
        )
        known = known | _known_words(backend, free_single)
        for k, u in enumerate(singles):
            free_text = (
                None if free_single is None else u.shield.restore(u.pick(free_single[k]).text)[0]
            )
            whole = _whole_words(u.source, free_text, known)
            cand = u.pick(single[k], whole)
            _accept_whole(
                out, u, cand, whole, None if free_single is None else free_single[k], PER_CUE
            )
    fitted_turns, free_turns, model_fits, group_of = out.turns, out.free, out.model_fits, out.group

    results: list[SegmentResult] = []
    new_texts: list[str] = []
    for i, (seg, p) in enumerate(zip(doc.segments, planned, strict=True)):
        prot = p.protected
        if prot is None or i not in fitted_turns:
            new_texts.append(seg.text)
            results.append(SegmentResult(i, seg.id, seg.text, None, seg.text))
            continue
        turns = [fitted_turns[i][t] for t in sorted(fitted_turns[i])]
        if prot.is_dialogue:
            new_texts.append(prot.restore_turns(turns))
        else:
            room = _line_room(prot, opts.limits)
            new_texts.append(prot.restore_turns([_layout(turns[0], doc, opts, room)]))
        free_text = (
            " ".join(free_turns[i][t] for t in sorted(free_turns[i])) if i in free_turns else None
        )
        results.append(
            SegmentResult(
                index=i,
                id=seg.id,
                source=prot.plain,
                budget=p.budget,
                fitted=" ".join(turns),
                unconstrained=free_text,
                group=group_of[i],
                group_path=out.path[i],
                markup_lost=prot.lost,
                terms_lost=out.terms_lost.get(i, ()),
                model_fits=model_fits[i],
                requested=combine([a[t] for t in sorted(a)]) if (a := out.asked.get(i)) else None,
            )
        )
    warnings = [
        f"segment {p.id or p.index + 1}: markup in mid-sentence dropped: {' '.join(p.protected.lost)}"
        for p in planned
        if p.protected is not None and p.protected.lost
    ]
    warnings += [
        f"segment {planned[i].id or i + 1}: glossary term(s) lost in translation: "
        + ", ".join(repr(t) for t in lost)
        for i, lost in sorted(out.terms_lost.items())
    ]
    results = flag_segments(results, known)
    return TranslationResult(doc.with_texts(new_texts), results, warnings)


def flag_segments(
    results: Sequence[SegmentResult], known: Collection[str] = ()
) -> list[SegmentResult]:
    """Each translated segment with its quality flags (`fitsub.flags.segment_flags`).

    The words the model knows, for `cut-word`, are `known` (the backend's vocabulary) and every
    word of the document's unconstrained translations.
    """
    vocab = set(known)
    for r in results:
        if r.unconstrained is not None:
            vocab.update(words(r.unconstrained))
    out = []
    for r in results:
        if r.budget is None:
            out.append(r)
            continue
        flags = segment_flags(
            r.source, r.fitted, r.unconstrained, r.budget.chars, r.model_fits, vocab
        )
        out.append(dataclasses.replace(r, flags=tuple(flags)))
    return out


def _layout(text: str, doc: Document, opts: TranslateOptions, cpl: int | None = None) -> str:
    """Reflow fitted text into the subtitle slot (`cpl`: the line's room, default the limit's);
    slides keep one line per segment."""
    if not doc.timed:
        return text
    width = opts.limits.cpl if cpl is None else cpl
    return "\n".join(reflow(text, width, opts.limits.lines, lang=opts.lang))


@dataclass(frozen=True)
class Summary:
    """Before / after figures for the comparison."""

    segments: int
    translated: int
    fitted_within: float  # share of translated segments within budget, fitted
    unconstrained_within: float | None  # the same for the unconstrained translations
    fitted_ratio: float  # mean fitted chars / source chars
    unconstrained_ratio: float | None
    flagged: int  # segments with a quality flag, a budget too small, or no hypothesis fit
    flag_counts: dict[str, int] = field(default_factory=dict)  # segments per quality flag
    multi_cue_sentences: int = 0  # sentences running across two or more cues
    kept_whole: int = 0  # of those, translated whole (not cue by cue): see `KEPT_WHOLE`
    group_paths: dict[str, int] = field(default_factory=dict)  # multi-cue sentences per path

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return dict(self.__dict__)


def summarize(results: Sequence[SegmentResult]) -> Summary:
    """The share within budget and the mean length ratio, before and after fitting."""
    tr = [r for r in results if r.budget is not None]
    n = len(tr)

    def mean(xs: list[float]) -> float:
        return sum(xs) / len(xs) if xs else 0.0

    src = [max(r.budget.source_chars, 1) for r in tr if r.budget is not None]
    has_free = n > 0 and all(r.unconstrained is not None for r in tr)
    paths = {r.group: r.group_path for r in tr if r.group_path != SINGLE}
    return Summary(
        segments=len(results),
        translated=n,
        fitted_within=mean([float(r.fits) for r in tr]),
        unconstrained_within=mean([float(bool(r.unconstrained_fits)) for r in tr])
        if has_free
        else None,
        fitted_ratio=mean([r.fitted_chars / s for r, s in zip(tr, src, strict=True)]),
        unconstrained_ratio=(
            mean([(r.unconstrained_chars or 0) / s for r, s in zip(tr, src, strict=True)])
            if has_free
            else None
        ),
        flagged=sum(
            1
            for r in tr
            if (r.budget is not None and (r.budget.too_small or r.budget.too_short))
            or not r.model_fits
            or r.flags
        ),
        flag_counts=count_flags([r.flags for r in tr]),
        multi_cue_sentences=len(paths),
        kept_whole=sum(1 for path in paths.values() if path in KEPT_WHOLE),
        group_paths={
            name: sum(1 for path in paths.values() if path == name) for name in GROUP_PATHS[1:]
        },
    )
