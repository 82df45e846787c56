"""Markdown slides through markdown-it-py: only text nodes change, every other byte is kept."""

from __future__ import annotations

from doubles import ToyBackend

from fitsub.budget import limits_for
from fitsub.formats import parse_document, render_document
from fitsub.markup import protect
from fitsub.pipeline import TranslateOptions, translate_document

DECK = """---
title: Talk
tags: [a, b]
---
# Welcome *home*

Click [the link](https://example.com/a_(b) "Title here") now, a \\* b &amp; c.
See ![a logo](img/logo.png) and <span class="x">this</span> `code stays` here.

Name | Value
---- | -----
yes  | `no`
left | right

    indented code stays

```python
fenced = "code stays"
```

> A quote here.

- First point
  goes on
- <https://auto.example>

<div>
html block stays
</div>

[ref]: https://ref.example
"""


def _upper(doc):  # type: ignore[no-untyped-def]
    """Every segment's words in capitals, its inline markup restored as the pipeline does it
    (kept words, code and URLs, as written)."""
    texts = []
    for seg in doc.segments:
        prot = protect(seg.text, "slides")
        if not seg.translatable:
            texts.append(seg.text)
            continue
        turn = prot.turns[0]
        words = list(turn.plain.upper())
        for a, b in turn.keep:
            words[a:b] = turn.plain[a:b]
        texts.append(prot.restore("".join(words)))
    return doc.with_texts(texts)


def test_the_deck_round_trips_exactly_and_a_segment_holds_a_line_with_its_inline_markup() -> None:
    doc = parse_document(DECK, "markdown")
    assert render_document(doc) == DECK
    assert doc.warnings == ()
    assert [s.text for s in doc.segments] == [
        "Welcome *home*", 'Click [the link](https://example.com/a_(b) "Title here") now, a',
        "b", "c.", "See ![a logo](img/logo.png) and", "this", "`code stays` here.", "Name",
        "Value", "yes", "left", "right", "A quote here.", "First point", "goes on",
        "<https://auto.example>",
    ]  # fmt: skip
    assert not doc.segments[-1].translatable  # an autolink alone: nothing to translate


def test_every_construct_but_text_is_kept_byte_for_byte() -> None:
    out = render_document(_upper(parse_document(DECK, "markdown")))
    for kept in (
        "---\ntitle: Talk\ntags: [a, b]\n---\n",  # front matter
        '](https://example.com/a_(b) "Title here")',  # link target and title
        "![a logo](img/logo.png)",  # image source and alt text
        '<span class="x">',  # inline HTML
        "`code stays`",  # inline code
        "    indented code stays\n",  # indented code
        '```python\nfenced = "code stays"\n```\n',  # fenced code
        "---- | -----\n",  # table delimiter row
        "`no`",
        "<https://auto.example>",  # autolink
        "<div>\nhtml block stays\n</div>\n",  # HTML block
        "[ref]: https://ref.example\n",  # reference definition
        "\\* B &amp; C.",  # escape and entity
    ):
        assert kept in out, kept
    assert "# WELCOME *HOME*\n" in out
    assert "CLICK [THE LINK](" in out
    assert "YES  | `no`\nLEFT | RIGHT\n" in out  # table structure and padding
    assert "> A QUOTE HERE.\n" in out
    assert "- FIRST POINT\n  GOES ON\n" in out
    assert out.count("\n") == DECK.count("\n")


def test_translation_keeps_the_structure() -> None:
    doc = parse_document(DECK, "markdown")
    opts = TranslateOptions(lang="it", limits=limits_for("it"), ratio=2.0, compare=False)
    out = render_document(translate_document(doc, ToyBackend(), opts).document)
    assert out.startswith("---\ntitle: Talk\ntags: [a, b]\n---\n# Welcomeino *casa*\n")
    assert '(https://example.com/a_(b) "Title here")' in out
    assert '```python\nfenced = "code stays"\n```\n' in out


def test_a_file_of_code_only_has_nothing_to_translate() -> None:
    text = "```\nonly code\n```\n"
    doc = parse_document(text, "markdown")
    assert doc.segments == () and render_document(doc) == text
