"""Markup is not text: protect subtitle and slide markup from translation, then restore it.

`protect(text, fmt)` peels markup off the *edges* of a cue and keeps it; `plain` is what the
model translates. `Protected.restore(translation)` puts the markup back around the translation.

What is kept and put back (subtitles, SRT and WebVTT):

- position codes at the start of a cue (``{\\an8}``, any ``{\\…}`` block);
- whole-cue wrappers: ``<i> <b> <u> <s> <font …> <c.class> <lang …> <ruby>`` whose closing tag
  ends the cue, also when every line carries the same wrapper (``<i>a</i>\\n<i>b</i>`` becomes
  ``<i>…</i>`` around the whole translation); a leading tag that is closed in a later cue, or a
  trailing closing tag opened in an earlier one (or a trailing opening tag), stays where it is;
- a leading voice span ``<v Speaker>`` (the speaker's name is not translated);
- speaker dashes: a line starting with ``-``, ``–`` or ``—`` starts a new speaker turn. A cue
  with two or more turns ("- Hi.\\n- Hello.") exposes them in `Protected.turns`; translate each
  turn separately and call `restore_turns`, which writes one line per turn with its own dash.
  `restore` on a dialogue cue splits the translation at sentence ends instead (best effort);
- song lines: ``♪`` / ``♫`` at the start and end of a turn (or of every line);
- a sound effect or caption wholly in brackets, ``[door slams]`` / ``(laughs)``: the brackets
  are kept, the words translated; an upper-case speaker label such as ``JOHN:`` is kept;
- entities (``&amp; &lt; &gt;``…) are decoded in `plain` (``&nbsp;`` becomes a plain space);
  the restored text is escaped again for WebVTT (always) and for SRT when the cue used entities.

Only the tags subtitles use are markup (`fitsub.markup.tags`): any other ``<`` is text.

Tags inside the words ("We kept bees in an <i>apiary</i>.", ``{\\i1}…{\\i0}``, a timestamp) are
removed from `plain` and kept in `Turn.inline` with the span of words they cover
(`fitsub.markup.inline`); `restore_turns` writes them back on the words of the translation that
`fitsub.markup.project` finds for them (or around the whole turn when it cannot; never dropped).
A ``♪`` in mid-line is the only subtitle markup dropped: it is listed in `Protected.lost` so the
caller can warn.

Slides (.txt / .md lines): the layout and Markdown around a line's words are kept; see
`fitsub.markup.slides`.

Modules: `tags` (which ``<…>`` is markup), `protected` (`Protected`: restoring the markup),
`subtitles` (cues), `inline` (tags inside the words), `project` (where they go in a
translation), `slides` (slide lines).
"""

from __future__ import annotations

import html

from fitsub.document import Format
from fitsub.markup.protected import Protected, Turn
from fitsub.markup.slides import protect_slide
from fitsub.markup.subtitles import ENTITY, protect_cue
from fitsub.markup.tags import strip_markup

__all__ = ["Protected", "Turn", "protect", "visible_text"]


def protect(text: str, fmt: Format) -> Protected:
    """Split `text` into words to translate and the markup to restore (see the module docstring)."""
    if fmt == "slides":
        return protect_slide(text)
    return protect_cue(text, escape=fmt == "vtt" or ENTITY.search(text) is not None)


def visible_text(text: str, fmt: Format) -> str:
    """The text a viewer sees: tags and codes removed, entities decoded (slides: the words)."""
    if fmt == "slides":
        return protect_slide(text).plain
    return html.unescape(strip_markup(text))
