"""Shared by the review page and `fitsub apply` tests: a toy translation through the CLI, the
page's embedded data, and an edits file made as the page's export makes it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run
from doubles import ToyBackend

from fitsub.cli import registry

# Cue 1 is hostile markup, 2 italic on two lines, 3 cannot fit, 4 a dialogue, 5 a sound effect
# on screen for half a second (too short), 6 a plain line.
SRT = (
    "1\r\n00:00:01,000 --> 00:00:03,000\r\n"
    "<script>window.pwned = 1</script> & <img src=x onerror=window.pwned=2> you\r\n\r\n"
    "2\r\n00:00:04,000 --> 00:00:06,500\r\n<i>Yes, go home now\r\nand this is it.</i>\r\n\r\n"
    "3\r\n00:00:07,000 --> 00:00:08,000\r\nExtraordinarily.\r\n\r\n"
    "4\r\n00:00:08,500 --> 00:00:11,000\r\n- Is this it?\r\n- Yes, go.\r\n\r\n"
    "5\r\n00:00:11,000 --> 00:00:11,500\r\n[applause and the noise]\r\n\r\n"
    "6\r\n00:00:12,000 --> 00:00:15,000\r\nWe go home now.\r\n"
)


def use_toy_backend(monkeypatch: pytest.MonkeyPatch, make: Callable[[], Any] = ToyBackend) -> None:
    """The CLI with a toy backend (`make()`) instead of a checkpoint (no model needed)."""
    monkeypatch.setattr(registry, "locate", lambda *a, **k: Path("toy"))
    monkeypatch.setattr(registry, "open_model", lambda *a, **k: make())


def translate_with_review(folder: Path, srt: str = SRT, review: str = "review.html") -> Path:
    """`fitsub translate FOLDER/talk.srt -o talk.it.srt --review REVIEW` (toy backend)."""
    src = folder / "talk.srt"
    src.write_bytes(srt.encode("utf-8"))
    out = folder / "talk.it.srt"
    args = [
        "translate",
        "--lang",
        "it",
        str(src),
        "-o",
        str(out),
        "-q",
        "--ratio",
        "2.0",
        "--per-cue",
    ]
    assert run([*args, "--review", str(folder / review), "--report", str(folder / "r.json")]) == 0
    return out


def page_data(page: str) -> dict[str, Any]:
    """The JSON the page embeds (what its script reads)."""
    m = re.search(r'<script type="application/json" id="fitsub-data">(.*?)</script>', page, re.S)
    assert m is not None
    data: dict[str, Any] = json.loads(m.group(1))
    return data


def export_edits(page: str, texts: dict[int, str]) -> dict[str, Any]:
    """The edits file the page's export writes when rows `texts` (row index → text) are edited."""
    data = page_data(page)
    meta, rows = data["meta"], data["rows"]
    edits = [
        {"index": rows[k]["i"], "id": rows[k]["id"], "was": rows[k]["fit"], "text": text,
         "budget": rows[k]["budget"]}
        for k, text in texts.items()
    ]  # fmt: skip
    return {
        "kind": "fitsub-edits",
        "version": 1,
        "fingerprint": meta["fingerprint"],
        "lang": meta["lang"],
        "limits": meta["limits"],
        "edits": edits,
    }


# A 60-cue talk for the review walk-through: plain lines, and every few cues one the toy
# backend must cut (a number or a name falls off the end), one too short to read ("Yes." for
# half a second), one too long for its slot, and one with a long unbroken word (a link).
_PLAIN = (
    "We go home now.",
    "Yes, this is it.",
    "You and I go home.",
    "No, not now.",
    "This is the home of it.",
    "We are in the home now.",
)


def talk_60() -> str:
    """The 60-cue talk as SRT (LF line endings)."""
    cues = []
    for k in range(60):
        start = 2000 * k + 1000
        end = start + 1800
        if k % 10 == 3:
            text = f"We go home now, and this is it at {k + 7}"
        elif k % 10 == 6:
            text = "Yes, we go home now and this is it with Anna"
        elif k % 15 == 9:
            text, end = "Yes.", start + 500
        elif k % 20 == 12:
            text, end = "Extraordinarily.", start + 900  # too fast to read in 15 characters
        elif k == 17:
            text = "See https://example.org/a-very-long-address-that-has-no-space-to-break-at-all"
        else:
            text = _PLAIN[k % len(_PLAIN)]
        cues.append(f"{k + 1}\n{_clock(start)} --> {_clock(end)}\n{text}\n")
    return "\n".join(cues)


def _clock(ms: int) -> str:
    s, milli = divmod(ms, 1000)
    return f"00:{s // 60:02d}:{s % 60:02d},{milli:03d}"
