"""Sentences that run across cues: group the cues, then share a translation among them.

A subtitle sentence often spans two or three cues. Translating each fragment alone gives poor
translations (the model sees half a sentence), so the pipeline translates the whole sentence and
distributes the words of the translation over the cues *in proportion to their budgets*
(`distribute`). When that proportional split overflows a cue, `resplit` moves words between the
cues: it looks only at splits where every part fits its cue (budget and line layout, as the
caller's `fits` says) and keeps the one closest to the proportional shares. Timings never move:
only the text of each cue changes.

Song lines and sound effects are units of their own: the caller marks them `joinable=False`
(`fitsub.markup.Protected.joinable`), and a group never crosses them. Cues of different kinds
(`CueSpan.kind`: a positioned caption, an italic voice-over, a sign, another ASS style) never
share a group either, so no word of a sentence moves into a cue the picture shows differently.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fitsub.units import char_length

# A cue whose text ends with one of these (optionally followed by closing quotes or brackets)
# closes its sentence.
SENTENCE_END = (".", "!", "?", "…", ":", ";", "♪")
CLOSERS = "\"'»”’)]"
MAX_GROUP_CUES = 4
MAX_GAP_MS = 2000
_PUNCT = (",", ".", ";", ":", "!", "?", "…")
PUNCT_BONUS = 3.0  # characters of share deviation a break after punctuation is worth


def ends_sentence(text: str) -> bool:
    """Whether a cue's plain text closes its sentence."""
    stripped = text.rstrip().rstrip(CLOSERS).rstrip()
    return not stripped or stripped.endswith(SENTENCE_END)


@dataclass(frozen=True)
class CueSpan:
    """The plain text and timing of one cue, as grouping sees it."""

    text: str
    start_ms: int | None
    end_ms: int | None
    joinable: bool = True  # False for cues that must stay alone (dialogue turns, untranslated)
    kind: str = ""  # position and style as shown (`fitsub.pipeline.plan.cue_kind`); "" dialogue


def group_cues(cues: Sequence[CueSpan]) -> list[list[int]]:
    """Indices of cues grouped into sentences (each index exactly once, order kept).

    A group continues while its last cue does not end a sentence, the next cue starts within
    MAX_GAP_MS, both are joinable and of the same kind, and the group holds fewer than
    MAX_GROUP_CUES cues.
    """
    groups: list[list[int]] = []
    for i, cue in enumerate(cues):
        if groups:
            last = groups[-1]
            prev = cues[last[-1]]
            gap_ok = (
                prev.end_ms is None
                or cue.start_ms is None
                or cue.start_ms - prev.end_ms <= MAX_GAP_MS
            )
            if (
                prev.joinable
                and cue.joinable
                and prev.kind == cue.kind
                and cue.text.strip()
                and not ends_sentence(prev.text)
                and gap_ok
                and len(last) < MAX_GROUP_CUES
            ):
                last.append(i)
                continue
        groups.append([i])
    return groups


def distribute(text: str, budgets: Sequence[int]) -> list[str] | None:
    """Split `text` at word boundaries into len(budgets) non-empty parts, one per cue.

    Dynamic programming over break positions. The cost of a part is its overflow beyond its
    budget (heavily weighted) plus its deviation from the budget-proportional share of the text;
    a break right after punctuation earns a bonus. Returns None when there are fewer words than
    cues (the caller then translates cue by cue).
    """
    words = text.split()
    k = len(budgets)
    if k == 1:
        return [" ".join(words)]
    if len(words) < k:
        return None
    total = sum(char_length(w) for w in words) + len(words) - k  # chars kept after splitting
    budget_sum = max(sum(budgets), 1)
    shares = [total * b / budget_sum for b in budgets]
    n = len(words)
    # prefix[i]: characters of words[:i] joined by single spaces (plus one trailing space each)
    prefix = [0]
    for w in words:
        prefix.append(prefix[-1] + char_length(w) + 1)

    def part_len(i: int, j: int) -> int:
        return prefix[j] - prefix[i] - 1

    inf = float("inf")
    # best[p][j]: cost of splitting words[:j] into p parts; back[p][j]: start of the p-th part
    best = [[inf] * (n + 1) for _ in range(k + 1)]
    back = [[0] * (n + 1) for _ in range(k + 1)]
    best[0][0] = 0.0
    for p in range(1, k + 1):
        for j in range(p, n - (k - p) + 1):
            for i in range(p - 1, j):
                if best[p - 1][i] == inf:
                    continue
                length = part_len(i, j)
                cost = best[p - 1][i] + 100.0 * max(0, length - budgets[p - 1])
                cost += abs(length - shares[p - 1])
                if p < k and words[j - 1].endswith(_PUNCT):
                    cost -= PUNCT_BONUS
                if cost < best[p][j]:
                    best[p][j] = cost
                    back[p][j] = i
    parts: list[str] = []
    j = n
    for p in range(k, 0, -1):
        i = back[p][j]
        parts.append(" ".join(words[i:j]))
        j = i
    return parts[::-1]


PartFits = Callable[[int, str], bool]


def resplit(text: str, budgets: Sequence[int], fits: PartFits | None = None) -> list[str] | None:
    """Split `text` at word boundaries so that every part fits its cue, or None if none can.

    Part p fits when it is not longer than `budgets[p]` and `fits(p, part)` holds (the caller's
    line layout check; None: the budget alone). Among the splits where every part fits, the
    one closest to the budget-proportional shares wins (a break after punctuation earns the
    same bonus as in `distribute`). Every word is kept, in order, and no part is empty.
    """
    words = text.split()
    k = len(budgets)
    if k == 0 or len(words) < k:
        return None
    n = len(words)
    prefix = [0]
    for w in words:
        prefix.append(prefix[-1] + char_length(w) + 1)
    total = sum(char_length(w) for w in words) + n - k  # characters kept after splitting
    budget_sum = max(sum(budgets), 1)
    shares = [total * b / budget_sum for b in budgets]
    checked: dict[tuple[int, int, int], bool] = {}

    def ok(p: int, i: int, j: int) -> bool:
        if prefix[j] - prefix[i] - 1 > budgets[p]:
            return False
        if fits is None:
            return True
        key = (p, i, j)
        if key not in checked:
            checked[key] = fits(p, " ".join(words[i:j]))
        return checked[key]

    inf = float("inf")
    best = [[inf] * (n + 1) for _ in range(k + 1)]
    back = [[0] * (n + 1) for _ in range(k + 1)]
    best[0][0] = 0.0
    for p in range(1, k + 1):
        for j in range(p, n - (k - p) + 1):
            for i in range(j - 1, p - 2, -1):  # longest part last: stop once it is too long
                if prefix[j] - prefix[i] - 1 > budgets[p - 1]:
                    break
                if best[p - 1][i] == inf or not ok(p - 1, i, j):
                    continue
                cost = best[p - 1][i] + abs(prefix[j] - prefix[i] - 1 - shares[p - 1])
                if p < k and words[j - 1].endswith(_PUNCT):
                    cost -= PUNCT_BONUS
                if cost < best[p][j]:
                    best[p][j] = cost
                    back[p][j] = i
    if best[k][n] == inf:
        return None
    parts: list[str] = []
    j = n
    for p in range(k, 0, -1):
        i = back[p][j]
        parts.append(" ".join(words[i:j]))
        j = i
    return parts[::-1]


def overflow(parts: Sequence[str], budgets: Sequence[int]) -> int:
    """Characters by which `parts` exceed their budgets, summed over the parts."""
    return sum(max(0, char_length(p) - b) for p, b in zip(parts, budgets, strict=True))
