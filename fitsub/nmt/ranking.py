"""The n-best lists of a search: its hypotheses and the keys that order them.

N-best re-ranking (after Takase & Okazaki 2019, sec. 3.4): candidates are ordered by
    score - length_weight * |chars - target_chars| / max(target_chars, 1)
where `target_chars` is the requested length in characters. Rows without one (the unconstrained
translation) are ordered by the length-normalised score of Wu et al. 2016 (GNMT, eq. 14)
    score / lp(n),  lp(n) = ((5 + n) / 6) ** LENGTH_PENALTY,  n = the output's pieces,
since the summed log-probability favours outputs that stop early (the small models' unconstrained
output was 0.84-0.98 of the references' length on the dev sets; experiments/length-penalty/).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Hypothesis:
    """One search result: piece ids (no BOS / EOS), model score, characters, budget flag."""

    ids: list[int]
    score: float
    chars: int
    fits: bool = True
    rank: float = 0.0  # the re-ranking key (higher is better)


# GNMT's alpha, chosen on dev (mustc-tst-common-a and ud-pud, it and de, 300 lines each): 1.0
# gains 0.03-0.34 BLEU and 0.3-0.45 chrF on all four over the plain score (experiments/length-penalty)
LENGTH_PENALTY = 1.0


def rerank_key(score: float, chars: int, target_chars: int | None, length_weight: float) -> float:
    """score - length_weight * |chars - target| / max(target, 1); the score alone without a target."""
    if target_chars is None:
        return score
    return score - length_weight * abs(chars - target_chars) / max(target_chars, 1)


def normalised_score(score: float, pieces: int, alpha: float = LENGTH_PENALTY) -> float:
    """score / ((5 + pieces) / 6) ** alpha (Wu et al. 2016, eq. 14): the key of rows without a
    length target."""
    return score / float(((5 + pieces) / 6) ** alpha)  # float ** float is typed Any
