"""The dry-run engine `--model identity`: each segment's translation is its source text.

It checks formats, budgets and the pipeline without a model: whatever differs between input
and output is fitsub's doing, not a model's. With the length budget met by the source, every
supported format comes back byte for byte (docs/formats.md); a source over its hard budget is
returned as it is and flagged (`Candidate.fits` False), never cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from fitsub.backend import Candidate, Request
from fitsub.units import char_length, chars_no_space

if TYPE_CHECKING:
    from fitsub.quality.lexicon import Lexicon
    from fitsub.quality.links import WordLinks

IDENTITY = "identity"


def is_identity(model: object) -> bool:
    """Whether `--model` names the dry-run engine (the bare word ``identity``)."""
    return model is not None and str(model) == IDENTITY


class IdentityBackend:
    """Returns each request's text as its only candidate (score 0)."""

    name = IDENTITY
    # the source's own words: nothing to check them against
    lexicon: Lexicon | None = None
    links: WordLinks | None = None

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        """One candidate per request: the source text, flagged when over its hard budget."""
        out: list[list[Candidate]] = []
        for req in requests:
            size = chars_no_space(req.text) if req.bounds_without_spaces else char_length(req.text)
            fits = req.max_chars is None or size <= req.max_chars
            out.append([Candidate(text=req.text, score=0.0, fits=fits)])
        return out
