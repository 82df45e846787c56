"""Inline tags: the tagged words translated alone, to find them in the cue's translation.

A tag inside a cue's words ("We kept bees in an <i>apiary</i>.") covers words the translation
may move or change. After the run, the words of every tag of a translated cue are sent to the
backend alone (one unconstrained request each, its best few candidates kept, distinct texts
once, no progress reported);
`fitsub.markup.project` then finds their translation among the cue's words (Hanneman & Dinu
2020, "detag and project"). Cues whose translation is their source (`--model identity`) ask
nothing: their tags go back on their own words.
"""

from __future__ import annotations

from collections.abc import Sequence

from fitsub.backend import Request
from fitsub.pipeline.assemble import in_order, unchanged
from fitsub.pipeline.plan import PlannedSegment
from fitsub.pipeline.run import Runner
from fitsub.pipeline.share import CueTexts

TAG_NBEST = 3  # translations of a tagged text tried in turn: "have" may be "avere" or "hanno"


def tagged_texts(planned: Sequence[PlannedSegment], got: CueTexts) -> list[str]:
    """The distinct words under an inline tag of every translated cue (not the whole turn)."""
    texts: set[str] = set()
    for i, p in enumerate(planned):
        prot = p.protected
        if prot is None or not prot.inline or i not in got.turns:
            continue
        if unchanged(in_order(got.turns[i]), prot):
            continue
        for turn in prot.turns:
            for tag in turn.inline:
                if (tag.start, tag.end) in turn.keep:  # a code span: kept as written
                    continue
                text = turn.plain[tag.start : tag.end].strip()
                if text and text != turn.plain:
                    texts.add(text)
    return sorted(texts)


def translate_tagged(
    runner: Runner, planned: Sequence[PlannedSegment], got: CueTexts
) -> dict[str, tuple[str, ...]]:
    """Each tagged text (`tagged_texts`) and its best `TAG_NBEST` unconstrained translations."""
    texts = tagged_texts(planned, got)
    if not texts:
        return {}
    found = runner.translate([Request(text) for text in texts], n_best=TAG_NBEST)
    return {
        text: tuple(c.text for c in cands[:TAG_NBEST])
        for text, cands in zip(texts, found, strict=True)
    }
