"""The small interface between the pipeline and a translation model.

The pipeline sends plain text (markup already removed) with a requested length and an optional
hard budget, both in characters (see `fitsub.units`), and receives n-best candidates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from fitsub.units import BoundUnit

if TYPE_CHECKING:
    from fitsub.quality.lexicon import Lexicon
    from fitsub.quality.links import WordLinks


@dataclass(frozen=True)
class Request:
    """One segment to translate.

    `target_chars`: the length asked of the model (None: no length constraint, the
    unconstrained translation). `max_chars`: a hard budget no output may exceed (None: none).
    `min_chars`: a lower bound the search keeps to when it can (dubbing wants the same length
    as the source, not only a shorter one); outputs that cannot reach it still fit `max_chars`.
    `bound_unit`: the unit of `max_chars` and `min_chars` (`fitsub.units.BoundUnit`): `char`
    (`char_length`) or `char_no_space` (`chars_no_space`, the unit of IWSLT 2022's length
    compliance); `target_chars` is always in `char`. `lexicon`: the search keeps to the model's
    lexicon (`fitsub.quality.lexicon`: its training words, the source's, the glossary's), as
    fitted requests ask; the unconstrained translation does not.
    """

    text: str
    target_chars: int | None = None
    max_chars: int | None = None
    min_chars: int | None = None
    bound_unit: BoundUnit = "char"
    lexicon: bool = False

    @property
    def bounds_without_spaces(self) -> bool:
        """Whether `max_chars` / `min_chars` count characters without spaces."""
        return self.bound_unit == "char_no_space"


@dataclass(frozen=True)
class Candidate:
    """One translation with its model score (sum of log-probabilities; higher is better).

    `fits` is False when the request had a hard budget that no hypothesis could meet and this is
    the shortest candidate returned instead (flagged, never silently over budget).
    """

    text: str
    score: float
    fits: bool = True


@runtime_checkable
class TranslationBackend(Protocol):
    """What the pipeline calls: requests in, n-best candidates (best first) out, same order.

    `lexicon` and `links` are the model's word resources, which the flags and the quality score
    read (`fitsub.quality.lexicon`, `fitsub.quality.links`); None where the model has none."""

    name: str
    lexicon: Lexicon | None
    links: WordLinks | None

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        """Translate every request; return `n_best` (or fewer) candidates per request."""
        ...


@dataclass(frozen=True)
class OutputScore:
    """How the model scores one fixed output under forced decoding (for `fitsub.quality.score`).

    `token_logprobs`: log-probability of each output token, end of sentence included;
    `entropies`: the entropy (nats) of the model's next-token distribution at each of those
    steps; `dropout_means`: the mean token log-probability of the same output under each
    Monte-Carlo dropout pass (empty when none was asked). Empty tuples: nothing to score.

    Source-side signals, empty when the backend does not give them (`fitsub.nmt.attention`):
    `attention`: for each output token, its attention over the source's pieces (a row sums
    to 1; averaged over heads and layers); `word_pieces` and
    `word_logprobs`: for each source word, the pieces the model's tokenizer splits it into and
    its unigram log-probability (a rare word: many pieces, a low log-probability).

    Target-side: `output_words`, for each output token (as `token_logprobs`), the index of the
    output word it belongs to, -1 for a piece without a letter and the end of sentence
    (`fitsub.quality.target` sums a word's pieces); empty when the backend does not give it.
    """

    token_logprobs: tuple[float, ...]
    entropies: tuple[float, ...]
    dropout_means: tuple[float, ...] = ()
    attention: tuple[tuple[float, ...], ...] = ()
    word_pieces: tuple[int, ...] = ()
    word_logprobs: tuple[float, ...] = ()
    output_words: tuple[int, ...] = ()


@runtime_checkable
class ScoresOutputs(Protocol):
    """A backend that can score a given output of a given request (forced decoding)."""

    def score_outputs(
        self, requests: Sequence[Request], outputs: Sequence[str], dropout_passes: int = 0
    ) -> list[OutputScore]:
        """One `OutputScore` per (request, output) pair, in order; `dropout_passes` Monte-Carlo
        dropout passes each (Gal & Ghahramani 2016; Fomicheva et al. 2020), seeded so that a
        segment's score does not depend on the others."""
        ...
