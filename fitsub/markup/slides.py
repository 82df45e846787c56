"""Slide markup (.txt / .md lines): the layout and Markdown around a line's words.

Indentation, ``>`` quotes, headings ``#``, bullets (``- * + •``), numbering (``1.`` ``a)``), task
boxes ``[ ]``, whole-line emphasis (``**…**``, ``_…_``) and trailing spaces are kept. Separator
lines (``---``), code fences, table rows, HTML comments, image lines and whole-line inline code
have an empty `plain` (nothing to translate). Mid-line emphasis markers, inline code backticks
and link targets (``[text](url)`` keeps "text") are removed and listed in `lost`.
"""

from __future__ import annotations

import re

from fitsub.markup.protected import SPACE, Protected, Turn

# Slides
_MD_LEAD = re.compile(
    r"[ \t]+|>[ \t]?|#{1,6}[ \t]+|[-*+•▪‣◦][ \t]+|(?:\d{1,3}|[A-Za-z])[.)][ \t]+|\[[ xX]\][ \t]+"
)
_MD_WRAP = ("**", "__", "*", "_", "~~")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\(([^)]*)\)")
_MD_EMPH = re.compile(r"(?<![\w*_~])(\*\*|__|\*|_|~~)(?=\S)(.+?)(?<=\S)\1(?![\w*_~])")
_MD_CODE = re.compile(r"`([^`]*)`")
# Slide lines that hold no text to translate: separators, code fences, tables, comments, images.
_MD_FIXED = re.compile(
    r"^\s*(?:([-*_=~])(?:\s*\1){2,}\s*$|```|~~~|\||<!--|!\[[^\]]*\]\([^)]*\)\s*$)"
)


def protect_slide(text: str) -> Protected:
    """Split a slide line into its words and the layout and Markdown around them."""
    if _MD_FIXED.match(text):
        return Protected(plain="", turns=(Turn(text, "", ""),), original=text)
    lo, hi = 0, len(text)
    while lo < hi and (m := _MD_LEAD.match(text, lo, hi)):
        lo = m.end()
    while hi > lo and text[hi - 1].isspace():
        hi -= 1
    changed = True
    while changed:
        changed = False
        for marker in _MD_WRAP:
            n = len(marker)
            inner = text[lo + n : hi - n]
            if (
                hi - lo > 2 * n
                and text.startswith(marker, lo)
                and text.endswith(marker, lo, hi)
                and marker not in inner
            ):
                if inner[:1].isspace() or inner[-1:].isspace():
                    continue
                lo, hi, changed = lo + n, hi - n, True
                break
    core = text[lo:hi]
    lost: list[str] = []
    if core.startswith("`") and core.endswith("`") and core.count("`") == 2:
        core_plain = ""  # a whole line of code is not translated
    else:
        core_plain = _MD_LINK.sub(lambda m: _keep(lost, m.group(0), m.group(1)), core)
        core_plain = _MD_EMPH.sub(lambda m: _keep(lost, m.group(1), m.group(2)), core_plain)
        core_plain = _MD_CODE.sub(lambda m: _keep(lost, "`", m.group(1)), core_plain)
        core_plain = SPACE.sub(" ", core_plain).strip()
    turn = Turn(prefix=text[:lo], plain=core_plain, suffix=text[hi:], lost=tuple(lost))
    return Protected(plain=core_plain, turns=(turn,), original=text)


def _keep(lost: list[str], markup: str, text: str) -> str:
    """Record removed markup in `lost` and return the text it wrapped."""
    lost.append(markup)
    return text
