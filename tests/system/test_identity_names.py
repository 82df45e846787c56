"""Under `--model identity` no cue's text changes (issue 55): the shipped SRT samples and
generated dialogue full of names that share their first letters ("Mr Johnson" beside a recurring
"Johnny", "San Diegoans" beside "San Diegans") come back cue for cue, text for text.

The normalisations docs/formats.md lists (mixed line endings, a whitespace-only line inside a
cue, a repeated byte-order mark) cannot occur in these inputs, so each file must come back byte
for byte; the cue-by-cue comparison names the cue that changed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from hardening_helpers import cli  # noqa: E402

from fitsub.formats import parse_document  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = settings(
    max_examples=int(os.environ.get("FITSUB_HYPOTHESIS_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# names that share their first four letters, so each is a "rendering" of the others
NAMES = ["Johnny", "Johnson", "Johnnie", "Diego", "Diegoans", "Diegans", "Marks", "Markus"]
PHRASES = [
    "Is that Mr {}?",
    "No, it is {}.",
    "Well, {} left.",
    "Tell {} the boat is here.",
    "We wait for {} and {}.",
    "Ask {}, not me.",
    "Good evening, San {}.",
]


@st.composite
def turn(draw: st.DrawFn) -> str:
    phrase = draw(st.sampled_from(PHRASES))
    return phrase.format(*(draw(st.sampled_from(NAMES)) for _ in range(phrase.count("{}"))))


@st.composite
def dialogue(draw: st.DrawFn) -> str:
    """An SRT file of 2-8 cues, each one line or a two-speaker dialogue with dashes."""
    blocks = []
    for i in range(draw(st.integers(min_value=2, max_value=8))):
        turns = draw(st.lists(turn(), min_size=1, max_size=2))
        lines = [f"- {t}" for t in turns] if len(turns) == 2 else turns
        start = 1000 + 3000 * i
        blocks.append(
            f"{i + 1}\n00:00:{start // 1000:02},000 --> 00:00:{start // 1000 + 2:02},500\n"
            + "\n".join(lines)
            + "\n"
        )
    return "\n".join(blocks)


def _identity(src: Path, out: Path) -> None:
    res = cli(
        [
            "translate",
            "--lang",
            "it",
            str(src),
            "--model",
            "identity",
            "-o",
            str(out),
            "-q",
            "--threads",
            "1",
        ]
    )
    assert res.code == 0, res.err


def _assert_same_cues(src: Path, out: Path) -> None:
    before = parse_document(src.read_text(encoding="utf-8-sig"), "srt")
    after = parse_document(out.read_text(encoding="utf-8-sig"), "srt")
    assert len(after.segments) == len(before.segments)
    for a, b in zip(before.segments, after.segments, strict=True):
        assert (b.id, b.start_ms, b.end_ms, b.text) == (a.id, a.start_ms, a.end_ms, a.text), (
            f"cue {a.id}"
        )
    assert out.read_bytes() == src.read_bytes()


def test_the_issue_55_dialogue_keeps_mr_johnson(tmp_path: Path) -> None:
    src, out = tmp_path / "j2.srt", tmp_path / "j2.it.srt"
    src.write_text(
        "1\n00:00:01,000 --> 00:00:03,000\n- Is that Mr Johnson?\n- No, it is Johnny.\n\n"
        "2\n00:00:04,000 --> 00:00:06,000\nWell, Johnny left.\n",
        encoding="utf-8",
    )
    _identity(src, out)
    assert "Mr Johnson?" in out.read_text(encoding="utf-8")
    _assert_same_cues(src, out)


def test_every_srt_sample_keeps_every_cue_text(tmp_path: Path) -> None:
    samples = sorted(ROOT.joinpath("samples").glob("*.srt"))
    assert len(samples) >= 10
    for src in samples:
        out = tmp_path / src.name
        _identity(src, out)
        _assert_same_cues(src, out)


@SETTINGS
@given(text=dialogue())
def test_generated_dialogue_with_names_keeps_every_cue_text(tmp_path: Path, text: str) -> None:
    src, out = tmp_path / "d.srt", tmp_path / "d.out.srt"
    src.write_text(text, encoding="utf-8")
    out.unlink(missing_ok=True)
    _identity(src, out)
    _assert_same_cues(src, out)
