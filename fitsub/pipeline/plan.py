"""Plan: each segment's plain text and budget, and the sentence groups of a subtitle document.

Markup is protected (`fitsub.markup`), the budget computed (`fitsub.budget.budget_for`) and cues
that share a sentence grouped (`fitsub.pipeline.across_cues.group_cues`); nothing is translated
yet.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from fitsub.budget import Budget, Limits, SpeechBudgeter, SpeechWindow, asked_mode, budget_for
from fitsub.document import Document, Segment
from fitsub.glossary import Glossary
from fitsub.lengthpred.policy import LengthPolicy
from fitsub.markup import Protected, protect
from fitsub.pipeline.across_cues import CueSpan, group_cues
from fitsub.quality.bilingual import BilingualDictionary


@dataclass(frozen=True)
class TranslateOptions:
    """What the user asked for: target language, ratio, slot limits and modes."""

    lang: str
    limits: Limits
    ratio: float | None = None  # None: slot mode (subtitles); a ratio: isometric mode
    per_cue: bool = False
    compare: bool = True
    batch_size: int = 64
    min_ratio: float | None = None  # lower bound: min_ratio × source characters (dubbing)
    glossary: Glossary | None = None  # terms kept or translated as the glossary says
    length: LengthPolicy = field(default_factory=LengthPolicy)  # the length asked (≤ budget)
    quality: bool = True  # estimate each segment's quality (`fitsub.quality.score`)
    # flag `low-quality` under this score (None: the calibrated threshold of the language)
    quality_threshold: float | None = None
    # dubbing budgets (`--unit syllables|seconds`): each cue's speaking window; None: characters
    speech: SpeechBudgeter | None = None
    # budgets in characters set by hand, by segment index (`fitsub review --serve`: a step
    # shorter or longer); they replace the computed budget's characters, the limits stay
    budget_chars: Mapping[int, int] = field(default_factory=dict)
    # `--terms dictionary`: its terms forced where the plain translation left a noun
    # untranslated, each such line flagged (`fitsub.pipeline.forced_terms`); None: off
    dictionary: BilingualDictionary | None = None

    @property
    def mode(self) -> str:
        """`ISOMETRIC` when a ratio or a speaking window applies, else `SLOT`
        (`fitsub.budget.ratio.asked_mode`)."""
        return asked_mode(self.ratio, self.speech is not None)


@dataclass(frozen=True)
class PlannedSegment:
    """A segment as the pipeline sees it before translation: plain text and budget."""

    index: int
    id: str | None
    protected: Protected | None  # None: not translated (blank line, empty cue)
    budget: Budget | None
    window: SpeechWindow | None = None  # the speaking window (dubbing budgets only)
    turn_windows: tuple[SpeechWindow, ...] = ()  # a dubbed dialogue cue's, one per speaker


def plan(doc: Document, opts: TranslateOptions) -> list[PlannedSegment]:
    """Protect markup and compute each segment's budget (what `fitsub budget` shows)."""
    planned: list[PlannedSegment] = []
    for i, seg in enumerate(doc.segments):
        prot = protect(seg.text, doc.markup) if seg.translatable else None
        if prot is not None and not prot.plain.strip():
            prot = None
        window: SpeechWindow | None = None
        turns: tuple[SpeechWindow, ...] = ()
        if prot is not None and opts.speech is not None:
            duration = seg.duration_ms if doc.timed else None
            if prot.is_dialogue:  # one window per speaker, the cue's their sum
                turns = tuple(
                    opts.speech.turn_windows(prot.turn_texts, duration, doc.path, seg.line)
                )
                window = SpeechWindow.joined(turns)
            else:
                window = opts.speech.window(prot.plain, duration, doc.path, seg.line)
        budget = None
        if prot is not None:
            budget = budget_for(
                prot, seg, timed=doc.timed, ratio=opts.ratio, limits=opts.limits, window=window
            )
            if i in opts.budget_chars:
                budget = dataclasses.replace(budget, chars=opts.budget_chars[i])
        planned.append(PlannedSegment(i, seg.id, prot, budget, window, turns))
    return planned


_POSITION_TAG = re.compile(r"\\(?:an?\d+|pos\([^)]*\)|move\([^)]*\)|org\([^)]*\))")
_ITALIC_OPEN = re.compile(r"<i>|\{[^}]*\\i1[^}]*\}")
_LETTERS = re.compile(r"[^\W\d_]")


def cue_kind(prot: Protected | None, seg: Segment) -> str:
    """How the picture shows a cue: its position and style, "" for plain dialogue.

    The parts: the cue's settings as written (VTT `line:` / `position:`, SRT coordinates, an ASS
    event's style), ASS position overrides (`{\\an8}`, `\\pos`, `\\move`), `italic` when the
    whole cue is italic (a voice-over, a thought), `sign` when its words are all capitals (an
    on-screen sign or caption). Cues of different kinds never share a sentence group.
    """
    if prot is None:
        return ""
    parts = [seg.settings.strip()]
    parts += _POSITION_TAG.findall(prot.prefix + prot.turns[0].prefix)
    edge = prot.prefix + prot.turns[0].prefix
    if _ITALIC_OPEN.search(edge) and not _ITALIC_OPEN.search(prot.plain):
        parts.append("italic")
    letters = _LETTERS.findall(prot.plain)
    if len(letters) >= 3 and all(not ch.islower() for ch in letters):
        parts.append("sign")
    return "|".join(p for p in parts if p)


def sentence_groups(planned: list[PlannedSegment], doc: Document) -> list[list[int]]:
    """The sentence groups of a subtitle document (slides: one line each); cues of different
    kinds (`cue_kind`) never share one."""
    spans = [
        CueSpan(
            text="" if p.protected is None else p.protected.plain,
            start_ms=seg.start_ms,
            end_ms=seg.end_ms,
            joinable=p.protected is not None and p.protected.joinable,
            kind=cue_kind(p.protected, seg),
        )
        for seg, p in zip(doc.segments, planned, strict=True)
    ]
    if doc.timed:
        return group_cues(spans)
    return [[i] for i in range(len(spans))]
