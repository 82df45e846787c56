"""Estimate: each translated sentence's quality score (`fitsub.quality.score`), given to its cues.

A sentence shared over several cues is scored once, as the model translated it (the cues'
sources and fitted texts joined); every cue of it gets that score, and the flag `low-quality`
when it is under the quality model's threshold (naming the source words the translation has
no counterpart for, by the model's word links, `fitsub.quality.links`). A backend that cannot score outputs leaves
every score None and says so once in the warnings.
"""

from __future__ import annotations

import dataclasses

from fitsub.backend import TranslationBackend
from fitsub.pipeline.assemble import SegmentResult, TranslationResult
from fitsub.quality.qe_model import QualityModel, load_model
from fitsub.quality.score import NO_SCORING, estimate, low_quality_flag


def _sentences(segments: list[SegmentResult]) -> dict[int, list[int]]:
    """Translated segments by sentence group (a segment without a group is its own)."""
    groups: dict[int, list[int]] = {}
    for k, r in enumerate(segments):
        if r.translated:
            groups.setdefault(r.group if r.group >= 0 else -1 - k, []).append(k)
    return groups


def with_quality(
    result: TranslationResult,
    backend: TranslationBackend,
    model: QualityModel | None = None,
    lang: str | None = None,
    threshold: float | None = None,
) -> TranslationResult:
    """`result` with each translated segment's quality and `low-quality` flags under
    `threshold` (None: the model's calibrated threshold for the target language `lang`)."""
    model = model or load_model()
    threshold = model.threshold_for(lang) if threshold is None else threshold
    segs = list(result.segments)
    groups = list(_sentences(segs).values())
    sentences = []
    for g in groups:
        free = [segs[k].unconstrained for k in g]
        sentences.append(
            (
                " ".join(segs[k].source for k in g),
                " ".join(segs[k].fitted for k in g),
                None if any(f is None for f in free) else " ".join(f or "" for f in free),
            )
        )
    scores = estimate(backend, sentences, model, lang) if sentences else []
    if scores is None:
        return dataclasses.replace(result, warnings=[*result.warnings, NO_SCORING])
    links = backend.links
    for g, (source, fitted, _), q in zip(groups, sentences, scores, strict=True):
        unlinked = links.unlinked(source, fitted) if links is not None and q < threshold else []
        for k in g:
            flags = segs[k].flags
            if q < threshold:
                flags = (*flags, low_quality_flag(q, threshold, unlinked))
            segs[k] = dataclasses.replace(segs[k], quality=q, flags=flags)
    return dataclasses.replace(result, segments=segs)
