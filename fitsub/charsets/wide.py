"""UTF-16 and UTF-32 text without a byte-order mark: which byte order, if any is unambiguous.

Such a file holds NUL bytes (the high bytes of every ASCII character), which `fitsub.charsets.detect`
otherwise reads as binary. Subtitle and slide files are never without ASCII: timing lines, cue
numbers, spaces, line ends, Markdown marks. Read in its own encoding and byte order, a file
decodes to text in which these ASCII characters abound; read in the other byte order each ASCII
character becomes a character U+xx00 (``A`` = 41 00 read big-endian is U+4100), and in the
other width the bytes do not decode at all or decode with NUL characters. So:

- each of UTF-32 LE / BE (length a multiple of 4) and UTF-16 LE / BE (a multiple of 2) is tried
  strictly; a decoding with a NUL character, a C0 control other than tab, line ends and form
  feed, or a non-character (U+FFFE, U+FFFF) is no candidate;
- the candidate with the most ASCII characters wins when at least `MIN_ASCII_SHARE` of its
  characters are ASCII and no other candidate has half as many ASCII characters;
- otherwise the text is ambiguous: None (the reader asks for ``--encoding``).
"""

from __future__ import annotations

MIN_ASCII_SHARE = 0.1
_ALLOWED_CONTROLS = frozenset("\t\n\x0c\r\x1a")
_BAD = frozenset(chr(c) for c in range(32)) - _ALLOWED_CONTROLS | {"\x7f", "\ufffe", "\uffff"}


def _ascii_count(data: bytes, codec: str) -> int | None:
    """How many ASCII characters `data` decodes to in `codec`; None when it is not text."""
    try:
        text = data.decode(codec)
    except UnicodeDecodeError:
        return None
    if not text or any(ch in text for ch in _BAD):
        return None
    ascii_chars = len(text.encode("ascii", "ignore"))  # (C speed on a big file)
    if ascii_chars < MIN_ASCII_SHARE * len(text):
        return None
    return ascii_chars


def guess_wide(data: bytes) -> str | None:
    """The codec (``utf-16-le``, ``utf-16-be``, ``utf-32-le``, ``utf-32-be``) of BOM-less wide
    text, or None when none or more than one byte order reads as text (module docstring)."""
    codecs = [c for c in ("utf-32-le", "utf-32-be") if len(data) % 4 == 0]
    codecs += [c for c in ("utf-16-le", "utf-16-be") if len(data) % 2 == 0]
    counts = {c: n for c in codecs if (n := _ascii_count(data, c)) is not None}
    if not counts:
        return None
    best = max(counts, key=lambda c: counts[c])
    if any(2 * n >= counts[best] for c, n in counts.items() if c != best):
        return None
    return best
