"""Slide markup (.txt / .md lines): the layout and Markdown around a line's words.

Indentation, ``>`` quotes, headings ``#``, bullets (``- * + •``), numbering (``1.`` ``a)``), task
boxes ``[ ]``, whole-line emphasis (``**…**``, ``_…_``) and trailing spaces are kept. Separator
lines (``---``), code fences, table rows, HTML comments, image lines and whole-line inline code
have an empty `plain` (nothing to translate). Markdown inside the words (emphasis, links, inline
code, images, URLs) is read by `fitsub.markup.md_inline`: tags carried onto the translation's
words, code and URLs kept as written (`Turn.keep`).
"""

from __future__ import annotations

import re

from fitsub.markup.md_inline import split_markdown
from fitsub.markup.protected import Protected, Turn
from fitsub.markup.runs import has_runs, protect_runs

# Slides
_MD_LEAD = re.compile(
    r"[ \t]+|>[ \t]?|#{1,6}[ \t]+|[-*+•▪‣◦][ \t]+|(?:\d{1,3}|[A-Za-z])[.)][ \t]+|\[[ xX]\][ \t]+"
)
_MD_WRAP = ("**", "__", "*", "_", "~~")
# Slide lines that hold no text to translate: separators, code fences, tables, comments, images.
_MD_FIXED = re.compile(
    r"^\s*(?:([-*_=~])(?:\s*\1){2,}\s*$|```|~~~|\||<!--|!\[[^\]]*\]\([^)]*\)\s*$)"
)


def protect_slide(text: str) -> Protected:
    """Split a slide line into its words and the layout and Markdown around them (a .pptx
    paragraph with formatting runs: its words and runs, `fitsub.markup.runs`)."""
    if has_runs(text):
        return protect_runs(text)
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
    if core.startswith("`") and core.endswith("`") and core.count("`") == 2:
        core = ""  # a whole line of code is not translated
    plain, inline, keep = split_markdown(core)
    turn = Turn(prefix=text[:lo], plain=plain, suffix=text[hi:], inline=inline, keep=keep)
    return Protected(plain=plain, turns=(turn,), original=text)
