"""The length-token path: fitted rows answered by CTranslate2's n-best, steered by a length token.

A model trained with both length signals, each sometimes absent (`ModelConfig.token_dropout`
and `length_dropout`: method `tok+ldpe+pe`), has learnt to follow Lakew et al.'s (2019) source
length token `<short> <normal> <long>` with no LDPE term at all. That is a model CTranslate2 can
run (`fitsub.nmt.ct2`: the unconstrained pass's network, the token being one more source piece),
although it cannot hold a character budget inside its beam. So a fitted row is first decoded on
CTranslate2 with its token (`fitsub.nmt.lengths.length_class` of the requested length), and its
n-best list filtered by what fitsub's own search guarantees:
* the hard budget `max_chars` and the lower bound `min_chars`, in the request's bound unit;
* whole words: a CTranslate2 hypothesis ends with EOS, the model's own end, never a cut word;
* never an invented word when the request keeps to the lexicon: every word of the candidate is a
  word of the lexicon or of the source (the rule `fitsub.nmt.lexicon_mask` holds per step).
The candidates left are ordered by fitsub's n-best key (`fitsub.nmt.ranking.rerank_key`: the
score less the distance to the requested length). Three classes are a coarse signal: a row whose
candidates all ran past its budget is asked once more with the next shorter token, one whose
candidates all fell short of its lower bound with the next longer one (`next_token`). A row
with none left then (or whose output reached its length cap) goes on to fitsub's LDPE search,
as every fitted row did before.

Opt-in: `$FITSUB_TOKEN_PATH=on`. The study (docs/results/speed.md, "The length-token study")
found the token keeps a model's quality, but on the project's CPU the path is no faster than the
search it spares (CTranslate2's beam-5 n-best costs ~0.55 × fitsub's search of a row there, and
only 47-73 % of rows are answered), and 16 % slower whole-process at two threads (1.16 ×); so a model
that has the token still fits on fitsub's search unless asked.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from fitsub.backend import Candidate, Request
from fitsub.nmt.config import ModelConfig
from fitsub.nmt.lengths import LENGTH_TOKENS
from fitsub.nmt.ranking import rerank_key
from fitsub.quality.lexicon import Lexicon, words_of
from fitsub.units import char_length, chars_no_space

TOKEN_PATH_ENV = "FITSUB_TOKEN_PATH"  # "on": fitted rows first go to CTranslate2


def has_token_path(cfg: ModelConfig) -> bool:
    """Whether the model was trained to follow its length token without a length encoding (a
    token method whose rows were also trained without LDPE and without the token)."""
    return cfg.length_token and cfg.token_dropout > 0 and cfg.length_dropout > 0


def token_path_on(cfg: ModelConfig) -> bool:
    """Whether fitted rows take the token path: the model has it and `$FITSUB_TOKEN_PATH` is on."""
    wanted = os.environ.get(TOKEN_PATH_ENV, "").lower() in ("1", "on", "yes", "true")
    return wanted and has_token_path(cfg)


def bound_length(text: str, req: Request) -> int:
    """The length of `text` in the unit of the request's bounds."""
    return chars_no_space(text) if req.bounds_without_spaces else char_length(text)


def invents_a_word(text: str, source: str, lexicon: Lexicon) -> bool:
    """Whether `text` holds a word neither the lexicon nor the source has."""
    own = set(words_of(source))
    return any(not (w in own or lexicon.knows(w)) for w in words_of(text))


def filter_candidates(
    req: Request,
    hyps: Sequence[tuple[str, float]],
    rerank: int | None,
    length_weight: float,
    lexicon: Lexicon | None,
) -> list[Candidate]:
    """The (text, score) hypotheses of a row that keep to its bounds (and lexicon), ordered by
    fitsub's n-best key against the re-ranking target `rerank` (in the bounds' unit), best first;
    empty when none does."""
    kept: list[tuple[float, Candidate]] = []
    seen: set[str] = set()
    for text, score in hyps:
        n = bound_length(text, req)
        if not text.strip() or text in seen:
            continue
        if req.max_chars is not None and n > req.max_chars:
            continue
        if req.min_chars is not None and n < req.min_chars:
            continue
        if lexicon is not None and req.lexicon and invents_a_word(text, req.text, lexicon):
            continue
        seen.add(text)
        kept.append((rerank_key(score, n, rerank, length_weight), Candidate(text, score, True)))
    kept.sort(key=lambda kc: -kc[0])
    return [c for _, c in kept]


def budget_token(src_chars: int, target: int, thresholds: tuple[float, float]) -> str:
    """The length token a budgeted row first asks for: the class of target / source characters,
    a ratio on a class's upper edge counting to that class (`length_class` puts it in the next:
    a row asked for exactly the source's length, iso@1 and hard@1, would ask for `<normal>`,
    whose outputs run 0-15 % longer than the source, past a hard budget)."""
    t_short, t_long = thresholds
    r = target / max(src_chars, 1)
    return (
        LENGTH_TOKENS[0] if r <= t_short else LENGTH_TOKENS[1] if r <= t_long else LENGTH_TOKENS[2]
    )


def miss_direction(req: Request, hyps: Sequence[tuple[str, float]]) -> int:
    """-1 when every hypothesis ran past the row's budget, +1 when every one fell short of its
    lower bound, 0 otherwise (something else kept them out: the lexicon, a repeat)."""
    lengths = [bound_length(text, req) for text, _ in hyps if text.strip()]
    if not lengths:
        return 0
    if req.max_chars is not None and min(lengths) > req.max_chars:
        return -1
    if req.min_chars is not None and max(lengths) < req.min_chars:
        return 1
    return 0


def next_token(ids: Sequence[int], token_ids: Sequence[int], direction: int) -> list[int] | None:
    """`ids` with its length token (the first id) moved one class `direction` (-1 shorter, +1
    longer) along `token_ids` (`<short> <normal> <long>`); None past either end or without one."""
    if not ids or ids[0] not in token_ids or direction == 0:
        return None
    k = list(token_ids).index(ids[0]) + direction
    if not 0 <= k < len(token_ids):
        return None
    return [token_ids[k], *ids[1:]]
