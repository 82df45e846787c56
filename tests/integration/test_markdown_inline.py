"""Markdown emphasis, links and code in mid-sentence (issue 29): the sentence is translated
whole, the markup carried onto the words that translate its words, code and URLs kept."""

from __future__ import annotations

import re
from collections.abc import Sequence

from doubles import ToyBackend, toy_translate

from fitsub.backend import Candidate, Request
from fitsub.budget import limits_for
from fitsub.formats import parse_document, render_document
from fitsub.glossary import Term, shield
from fitsub.identity import IdentityBackend
from fitsub.markup import protect
from fitsub.markup.md_inline import split_markdown
from fitsub.pipeline import TranslateOptions, translate_document

_PLACEHOLDER = re.compile(r"\[\d+\][.,!?;:]*")


class Toy(ToyBackend):
    """The toy language; placeholders copied (as the shipped models do); `reverse`: every
    word moved; `forget`: a sentence loses the words the toy does not know."""

    def __init__(self, reverse: bool = False, forget: bool = False) -> None:
        super().__init__()
        self.reverse, self.forget = reverse, forget

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        out = []
        for req in requests:
            self.calls.append(req)
            words = [w if _PLACEHOLDER.fullmatch(w) else toy_translate(w) for w in req.text.split()]
            if self.forget and len(words) > 1:
                words = [w for w in words if "ino" not in w] or words
            if self.reverse:
                words = words[::-1]
            out.append([Candidate(" ".join(words), score=-1.0)])
        return out


def _translate(text: str, backend: Toy | IdentityBackend) -> tuple[str, list[str]]:
    doc = parse_document(text, "markdown")
    opts = TranslateOptions(lang="it", limits=limits_for("it"), ratio=3.0, quality=False)
    result = translate_document(doc, backend, opts)
    return render_document(result.document), result.warnings


def test_a_sentence_with_emphasis_is_one_request_and_the_emphasis_lands_on_its_word() -> None:
    toy = Toy()
    out, warnings = _translate("The *old* dog sleeps all day.\n", toy)
    assert toy.calls[0].text == "The old dog sleeps all day."  # the whole sentence, no markup
    assert out == "Il *oldino* dogino sleepsino allino dayino.\n"
    assert warnings == []


def test_emphasis_follows_its_words_when_the_translation_moves_them() -> None:
    out, _ = _translate("The **old dog** sleeps _all day_.\n", Toy(reverse=True))
    assert out == "_dayino. allino_ sleepsino **dogino oldino** Il\n"


def test_a_link_keeps_its_target_and_its_text_is_translated() -> None:
    toy = Toy()
    out, _ = _translate('Click [the link](https://x.org/a_b "Go") to go on.\n', toy)
    assert out == 'Clickino [il linkino](https://x.org/a_b "Go") verso andiamo onino.\n'
    assert all("x.org" not in call.text for call in toy.calls)  # the target never goes


def test_inline_code_and_urls_are_never_translated() -> None:
    toy = Toy()
    out, _ = _translate("Run `make test` and see https://x.org/a_b now.\n", toy)
    assert toy.calls[0].text == "Run [1] and see [2] now."
    assert out == "Runino `make test` e seeino https://x.org/a_b adesso.\n"


def test_a_span_whose_words_are_gone_wraps_the_sentence_with_a_warning() -> None:
    out, warnings = _translate("I *like* it and you.\n", Toy(forget=True))
    assert out == "*Io esso e voi.*\n"  # kept around the whole segment, not dropped
    assert any("not placed on its words" in w and "*…*" in w for w in warnings)


def test_literal_markup_characters_still_cut_the_line() -> None:
    doc = parse_document("It is 5 * 3 *now* here.\n", "markdown")
    assert [s.text for s in doc.segments] == ["It is 5", "3 *now* here."]


def test_identity_writes_emphasis_links_and_code_back_byte_for_byte() -> None:
    text = "# A *b*\n\nThe *old* dog, [a link](u) and `code` with  two spaces.\n- x __y__ z\n"
    assert _translate(text, IdentityBackend())[0] == text


def test_split_markdown_gives_words_tags_and_kept_spans() -> None:
    plain, tags, keep = split_markdown("Use **`pip`  now** or <https://a.b>, ![i](x.png).")
    assert plain == "Use pip now or https://a.b, ![i](x.png)."
    assert [(t.open, t.close, plain[t.start : t.end]) for t in tags] == [
        ("**", "**", "pip now"),
        ("`", "`", "pip"),
        ("<", ">", "https://a.b"),
    ]
    assert [plain[a:b] for a, b in keep] == ["pip", "https://a.b", "![i](x.png)"]
    # a slide line reads its inline Markdown the same way; nothing is lost
    assert protect("- Use **`pip`** now", "slides").lost == ()


def test_kept_spans_are_placeholders_numbered_with_the_glossary_terms() -> None:
    from fitsub.glossary import Glossary

    shielded = shield("Foo runs x and Foo.", Glossary((Term("Foo", "Bar"),)), [(9, 10)])
    assert shielded.text == "[1] runs [2] and [3]."
    assert shielded.restore("[3] [2] [1]")[0] == "Bar x Bar"
