"""Property tests for inline tags (issue 29): every tag written back, nested as in the source."""

from __future__ import annotations

import os
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fitsub.markup import protect

SETTINGS = settings(
    max_examples=int(os.environ.get("FITSUB_HYPOTHESIS_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
_WORDS = st.lists(
    st.text(alphabet="abcdefxyz0123,.!", min_size=1, max_size=6), min_size=2, max_size=9
)
_PAIRS = [
    ("<i>", "</i>"),
    ("<b>", "</b>"),
    ("<u>", "</u>"),
    ("{\\i1}", "{\\i0}"),
    ("<c.red>", "</c>"),
]
_TAG = re.compile(r"</?[a-z]+(?:\.[a-z]+)?>|\{\\i[01]\}")


@st.composite
def tagged_line(draw: st.DrawFn) -> tuple[str, list[str]]:
    """Words with up to three well-nested tags around spans of them; the line and its words."""
    words = [w for w in draw(_WORDS) if w.strip(",.!")] or ["word", "here"]
    spans: list[tuple[int, int, str, str]] = []
    for open_, close in draw(st.lists(st.sampled_from(_PAIRS), max_size=3, unique=True)):
        a = draw(st.integers(0, len(words) - 1))
        b = draw(st.integers(a + 1, len(words)))
        if any(
            s < b and a < e and not (s <= a and b <= e or a <= s and e <= b) for s, e, _, _ in spans
        ):
            continue  # crossing spans are not markup a file can hold
        spans.append((a, b, open_, close))
    out = []
    for k, word in enumerate(words):
        opening = sorted(
            (j for j, t in enumerate(spans) if t[0] == k),
            key=lambda j: (spans[j][0] - spans[j][1], j),
        )
        closing = sorted(
            (j for j, t in enumerate(spans) if t[1] == k + 1),
            key=lambda j: (spans[j][1] - spans[j][0], -j),
        )
        out.append(
            "".join(spans[j][2] for j in opening) + word + "".join(spans[j][3] for j in closing)
        )
    return " ".join(out), words


def _nested(text: str) -> bool:
    stack: list[str] = []
    for m in _TAG.finditer(text):
        tag = m.group(0)
        name = "ass-i" if tag.startswith("{") else re.sub(r"[</>]|\..*", "", tag)
        if tag in ("{\\i0}",) or tag.startswith("</"):
            if not stack or stack.pop() != name:
                return False
        else:
            stack.append(name)
    return not stack


@SETTINGS
@given(tagged_line())
def test_the_same_words_give_back_the_line_as_written(line: tuple[str, list[str]]) -> None:
    text, words = line
    prot = protect(text, "srt")
    laid_out = "\n".join([" ".join(words[:2]), " ".join(words[2:])]).strip()
    assert prot.restore(laid_out).split() == text.split() or prot.restore(laid_out).replace(
        "\n", " "
    ) == " ".join(text.split())


@SETTINGS
@given(tagged_line())
def test_every_tag_survives_any_translation_and_stays_nested(line: tuple[str, list[str]]) -> None:
    text, words = line
    prot = protect(text, "srt")
    for translation in (" ".join(reversed(words)), "completely different words", "x"):
        out = prot.restore(translation)
        assert sorted(_TAG.findall(out)) == sorted(_TAG.findall(text)), (text, out)
        assert _nested(out), (text, out)
        assert _TAG.sub("", out).split() == translation.split()
