"""Units of work: one request to the model each, and the cues its words go to.

A sentence across cues is one unit (its budget the cues' budgets plus the spaces between them);
a dialogue cue gives one unit per speaker turn (the cue's budget shared among the turns; under a
dubbing budget, each turn its own speaking window); with
`per_cue`, every cue is a unit of its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from fitsub.backend import Candidate, Request, TranslationBackend
from fitsub.budget import SpeechWindow, visible_chars
from fitsub.document import Document
from fitsub.glossary import Glossary, Shielded, shield
from fitsub.lengthpred.policy import LengthPolicy, Requested
from fitsub.markup import Protected
from fitsub.pipeline.plan import PlannedSegment, TranslateOptions
from fitsub.quality.flags import KnowsWords, cut_words, words
from fitsub.units import char_length, ratio_chars_ceil

WordCheck = Callable[[str], bool]  # whether a restored translation cuts no word


@dataclass(frozen=True)
class Unit:
    """One request to the model and where its words go: cues of a sentence, or one turn."""

    shield: Shielded  # the words to translate, glossary terms as placeholders
    source: str  # the words as written
    budget: int  # characters of the restored translation
    cues: tuple[int, ...]  # the cues sharing the translation (several: a sentence across cues)
    cue_budgets: tuple[int, ...]
    group: int  # the sentence group
    turn: int = 0  # the speaker turn inside a single dialogue cue
    asked: Requested | None = None  # the length policy's request (None: the budget)
    line: int | None = None  # a dialogue turn on a line of its own: the line's characters
    window: SpeechWindow | None = None  # a dubbing budget's speaking window (a cue or a turn)

    def request(self, budget: int | None, min_ratio: float | None = None) -> Request:
        """Ask for `budget` characters, a hard limit, less what restoring glossary terms adds
        (with a lower bound when asked), keeping to the lexicon; None: the unconstrained
        translation, left free (keeping it to the lexicon costs dev chrF: it -0.5 / -0.3, de
        -0.02, docs/results/lexicon.md)."""
        if budget is None:
            return Request(self.shield.text)
        room = max(1, budget - self.shield.extra_chars)
        low = None
        if self.window is not None:
            low = max(0, min(room, self.window.min_chars - self.shield.extra_chars))
        elif min_ratio is not None:
            wanted = ratio_chars_ceil(min_ratio, char_length(self.source))
            low = max(0, min(room, wanted - self.shield.extra_chars))
        target = (
            room if self.asked is None else min(room, self.asked.chars - self.shield.extra_chars)
        )
        if self.window is not None:  # the target's characters, under the window's top
            target = min(target, self.window.asked_chars - self.shield.extra_chars)
        return Request(self.shield.text, max(target, low or 1), room, low, lexicon=True)

    def restored(self, cand: Candidate) -> str:
        """A candidate's text with the glossary terms put back."""
        return self.shield.restore(cand.text)[0]

    def pick(self, cands: Sequence[Candidate], whole: WordCheck | None = None) -> Candidate:
        """The best candidate that keeps every glossary placeholder and, with `whole`, whose
        restored text cuts no word; else the best that keeps the placeholders; else the best."""
        return self.ranked(cands, whole)[0]

    def ranked(self, cands: Sequence[Candidate], whole: WordCheck | None = None) -> list[Candidate]:
        """Candidates keeping every placeholder (and cutting no word, with `whole`) first, each
        side in the backend's order."""

        def cuts(c: Candidate) -> bool:
            return whole is not None and not whole(self.restored(c))

        return sorted(cands, key=lambda c: (not self.shield.complete(c.text), cuts(c)))


def make_unit(
    source: str,
    budget: int,
    cues: tuple[int, ...],
    cue_budgets: tuple[int, ...],
    group: int,
    glossary: Glossary | None,
    turn: int = 0,
    line: int | None = None,
    keep: Sequence[tuple[int, int]] = (),
) -> Unit:
    """A unit for `source`, its glossary terms and the spans of `keep` (words never
    translated) shielded."""
    return Unit(
        shield=shield(source, glossary, keep),
        source=source,
        budget=budget,
        cues=cues,
        cue_budgets=cue_budgets,
        group=group,
        turn=turn,
        line=line,
    )


def turn_budgets(budget: int, turns: Sequence[str], caps: Sequence[int] | None = None) -> list[int]:
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


def units_of(
    planned: Sequence[PlannedSegment],
    groups: Sequence[Sequence[int]],
    doc: Document,
    opts: TranslateOptions,
) -> list[Unit]:
    """The units of work of a planned document, in document order."""
    units: list[Unit] = []
    for gi, g in enumerate(groups):
        first = planned[g[0]]
        if first.protected is None or first.budget is None:
            continue
        if first.protected.is_dialogue:
            prot = first.protected
            caps = None
            if doc.timed and len(prot.turns) <= opts.limits.lines:
                caps = [opts.limits.cpl - visible_chars(t.prefix + t.suffix) for t in prot.turns]
            windows = first.turn_windows
            if windows:  # dubbing: each speaker's own window, in its characters
                shares = [w.max_chars for w in windows]
                if caps is not None:
                    shares = [min(s, c) for s, c in zip(shares, caps, strict=True)]
            else:
                shares = turn_budgets(first.budget.chars, prot.turn_texts, caps)
            for t, (turn_text, share) in enumerate(zip(prot.turn_texts, shares, strict=True)):
                line = None if caps is None else caps[t]
                unit = make_unit(
                    source=turn_text,
                    budget=share,
                    cues=(g[0],),
                    cue_budgets=(share,),
                    group=gi,
                    glossary=opts.glossary,
                    turn=t,
                    line=line,
                    keep=prot.turns[t].keep,
                )
                units.append(unit if not windows else dataclasses.replace(unit, window=windows[t]))
            continue
        cue_groups = [[i] for i in g] if opts.per_cue else [list(g)]
        for cues in cue_groups:
            cue_budgets = tuple(bud.chars for i in cues if (bud := planned[i].budget) is not None)
            prots = [pr for i in cues if (pr := planned[i].protected) is not None]
            text = " ".join(pr.plain for pr in prots)
            budget = sum(cue_budgets) + len(cues) - 1
            unit = make_unit(
                source=text,
                budget=budget,
                cues=tuple(cues),
                cue_budgets=cue_budgets,
                group=gi,
                glossary=opts.glossary,
                keep=kept_spans(prots),
            )
            if len(cues) == 1 and planned[cues[0]].window is not None:
                unit = dataclasses.replace(unit, window=planned[cues[0]].window)
            units.append(unit)
    return units


def kept_spans(prots: Sequence[Protected]) -> list[tuple[int, int]]:
    """The spans never translated of cues whose words are joined by spaces, in the joined text."""
    spans: list[tuple[int, int]] = []
    offset = 0
    for prot in prots:
        spans += [(offset + a, offset + b) for turn in prot.turns for a, b in turn.keep]
        offset += len(prot.plain) + 1
    return spans


def with_lengths(
    units: list[Unit], policy: LengthPolicy, natural: Sequence[int] | None = None
) -> list[Unit]:
    """Each unit with the length its policy asks for (`fitsub.lengthpred.policy`); `natural`:
    the length of each unit's unconstrained translation (slot mode), None in isometric mode."""
    asked = policy.requests([u.source for u in units], [u.budget for u in units], natural)
    return [dataclasses.replace(u, asked=a) for u, a in zip(units, asked, strict=True)]


def known_words(
    backend: TranslationBackend, free: Sequence[Sequence[Candidate]] | None
) -> frozenset[str]:
    """The target words the model knows: its vocabulary's whole words (when the backend lists
    them) and every word of the unconstrained translations (`fitsub.quality.flags.cut_words`)."""
    known = set(backend.known_words()) if isinstance(backend, KnowsWords) else set()
    for cands in free or ():
        for c in cands[:1]:
            known.update(words(c.text))
    return frozenset(known)


def whole_words(source: str, free: str | None, known: Collection[str]) -> WordCheck:
    """Whether a fitted translation cuts no word of the unconstrained one `free`.

    The search ends a hypothesis only at a word boundary (`fitsub.nmt.search`), but a model can
    still close a stem it had to leave with a short ending of its own ("costruita" ->
    "costito"); the `cut-word` flag's test catches those (`fitsub.quality.flags.cut_words`). Without the
    unconstrained translation there is nothing to compare with: every text passes.
    """
    if free is None:
        return lambda text: True
    return lambda text: not cut_words(source, text, free, known)
