"""Asking again, shorter (`fitsub.nmt.retry`): a missed budget is asked for fewer characters
until something fits; what never fits keeps its flagged candidates; nothing else is asked."""

from __future__ import annotations

from collections.abc import Sequence

from fitsub.backend import Candidate, Request
from fitsub.nmt.retry import SHORTER, ask_shorter, missed


def model_that_needs(room: dict[str, int]):
    """A fake model: it writes `target_chars` characters for text `t` plus `room[t]` more, so
    its answer fits the budget only when asked for at most `max_chars - room[t]`."""
    asked: list[Request] = []

    def translate(requests: Sequence[Request]) -> list[list[Candidate]]:
        asked.extend(requests)
        out = []
        for r in requests:
            n = (r.target_chars or len(r.text)) + room[r.text]
            fits = r.max_chars is None or n <= r.max_chars
            out.append([Candidate("x" * n, -1.0, fits)])
        return out

    return translate, asked


def test_a_missed_budget_is_asked_again_shorter_until_it_fits() -> None:
    translate, asked = model_that_needs({"a": 10, "b": 30, "c": 0, "d": 5})
    reqs = [
        Request("a", target_chars=40, max_chars=40),  # fits when asked 0.7 × 40 = 28 (38 chars)
        Request("b", target_chars=40, max_chars=40),  # never: 28 + 30 > 40
        Request("c", target_chars=40, max_chars=40),  # fits at once
        Request("d"),  # unconstrained: never asked again
    ]
    out = translate(reqs)
    assert missed(reqs, out) == [0, 1]
    assert ask_shorter(reqs, out, translate) == 1
    assert out[0][0].fits and len(out[0][0].text) == int(SHORTER[1] * 40) + 10
    assert not out[1][0].fits and len(out[1][0].text) == 70  # the first answer, flagged
    assert out[2][0].text == "x" * 40 and out[3][0].text == "x" * 6
    again = [r.target_chars for r in asked[4:]]
    assert again == [int(0.85 * 40), int(0.85 * 40), int(0.7 * 40), int(0.7 * 40)]
