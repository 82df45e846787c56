"""Fitting never makes a good line worse (issue 27): slot and isometric modes, the unconstrained
translation kept when it fits, the natural length asked, fallbacks, groups that respect the
picture, and an output that does not depend on the comparison."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from doubles import ToyBackend, toy_translate

from fitsub.backend import Candidate, Request
from fitsub.budget import limits_for
from fitsub.document import Document
from fitsub.formats import parse_document, read_document
from fitsub.pipeline import TranslateOptions, translate_document
from fitsub.pipeline import summarize_results as summarize
from fitsub.quality.dictionary import with_dictionary
from fitsub.quality.lexicon import Lexicon
from fitsub.units import char_length

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


class Scripted:
    """Candidates per source (best first) for the unconstrained request, and others under a
    budget: those within it, else the shortest flagged as not fitting (as the search does)."""

    lexicon = links = None  # no word resources (TranslationBackend.lexicon, .links)

    name = "scripted"

    def __init__(
        self, free: Mapping[str, Sequence[str]], fitted: Mapping[str, Sequence[str]] | None = None
    ) -> None:
        self.free = free
        self.fitted = fitted or {}
        self.calls: list[Request] = []

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        out = []
        for req in requests:
            self.calls.append(req)
            default = [toy_translate(req.text)]
            if req.max_chars is None:
                cands = list(self.free.get(req.text, default))
                out.append([Candidate(c, -float(k)) for k, c in enumerate(cands[:n_best])])
                continue
            cands = list(self.fitted.get(req.text, self.free.get(req.text, default)))
            within = [c for c in cands if char_length(c) <= req.max_chars]
            if not within:
                out.append([Candidate(min(cands, key=char_length), -99.0, fits=False)])
                continue
            out.append([Candidate(c, -float(k)) for k, c in enumerate(within[:n_best])])
        return out


def _srt(*cues: tuple[int, int, str]) -> Document:
    blocks = [
        f"{k}\n00:00:{a // 1000:02d},{a % 1000:03d} --> 00:00:{b // 1000:02d},{b % 1000:03d}\n{t}\n"
        for k, (a, b, t) in enumerate(cues, start=1)
    ]
    return parse_document("\n".join(blocks), "srt")


SLOT = TranslateOptions(lang="it", limits=limits_for("it"))  # netflix-it figures, no ratio
BLADE = "This blade has a dark past."
BLADE_IT = "Questa lama ha un passato oscuro."  # 33 characters: over 27 (ratio 1.0), in the slot


def test_a_translation_that_fits_its_slot_is_the_output_byte_for_byte() -> None:
    doc = _srt((0, 3000, BLADE))  # slot: min(84, 17 cps × 3 s = 51)
    backend = Scripted({BLADE: [BLADE_IT]})
    result = translate_document(doc, backend, SLOT)
    (seg,) = result.segments
    assert seg.budget is not None and (seg.budget.mode, seg.budget.chars) == ("slot", 51)
    assert seg.budget.ratio_limit is None and seg.budget.binding == "speed"
    assert result.document.segments[0].text == BLADE_IT and not seg.refitted
    assert [r.max_chars for r in backend.calls] == [None]  # never asked again
    assert seg.flags == () and summarize(result.segments).refitted == 0


def test_isometric_mode_asks_for_ratio_times_source() -> None:
    doc = _srt((0, 3000, BLADE))
    backend = Scripted({BLADE: [BLADE_IT]}, {BLADE: [BLADE_IT, "Questa lama ha un passato."]})
    opts = TranslateOptions(lang="it", limits=limits_for("it"), ratio=1.0)
    result = translate_document(doc, backend, opts)
    (seg,) = result.segments
    assert seg.budget is not None and (seg.budget.mode, seg.budget.chars) == ("isometric", 27)
    assert [(r.max_chars, r.target_chars) for r in backend.calls] == [(None, None), (27, 27)]
    assert seg.fitted == "Questa lama ha un passato." and seg.refitted


def test_a_line_fitted_again_asks_for_its_natural_length_never_the_whole_slot() -> None:
    # the unconstrained translation fits the 51-character slot but changes a number
    # (a quality flag): it is fitted again, asking for its own 24 characters, not for 51
    src = "I have 3 dragons."
    free = "Ho quattro draghi, sai."
    doc = _srt((0, 3000, src))
    backend = Scripted({src: [free]}, {src: ["Ho 3 draghi."]})
    result = translate_document(doc, backend, SLOT)
    fitted = [r for r in backend.calls if r.max_chars is not None]
    assert [(r.max_chars, r.target_chars) for r in fitted] == [(51, char_length(free))]
    assert result.segments[0].fitted == "Ho 3 draghi." and result.segments[0].refitted
    assert result.segments[0].requested is not None
    assert result.segments[0].requested.source == "unconstrained"


def test_a_fitting_candidate_always_wins_and_the_fallback_is_the_shortest() -> None:
    src = "We have to leave before the storm reaches the harbour."
    doc = _srt((0, 2000, src))  # slot 34 (17 cps × 2 s)
    long_free = "Dobbiamo partire prima che la tempesta raggiunga il porto."  # 58
    short_free = "Partiamo prima della tempesta."  # 30: fits
    no_fit = "Dobbiamo andare via prima che arrivi la tempesta."  # 49: the search's best
    backend = Scripted({src: [long_free, short_free]}, {src: [no_fit]})
    seg = translate_document(doc, backend, SLOT).segments[0]
    assert seg.fitted == short_free and seg.fits and seg.model_fits
    # nothing fits: the shortest of every candidate is shown, flagged
    backend = Scripted({src: [long_free]}, {src: [no_fit]})
    seg = translate_document(doc, backend, SLOT).segments[0]
    assert seg.fitted == no_fit and not seg.fits and not seg.model_fits
    assert "over-budget" in [f.name for f in seg.flags]


def test_no_compare_only_hides_the_comparison() -> None:
    doc = read_document(SAMPLES / "film.srt")
    for ratio in (None, 1.0):
        shown = translate_document(
            doc, ToyBackend(), TranslateOptions(lang="it", limits=limits_for("it"), ratio=ratio)
        )
        hidden = translate_document(
            doc,
            ToyBackend(),
            TranslateOptions(lang="it", limits=limits_for("it"), ratio=ratio, compare=False),
        )
        assert [s.text for s in shown.document.segments] == [
            s.text for s in hidden.document.segments
        ]
        assert [r.flags for r in shown.segments] == [r.flags for r in hidden.segments]
        assert any(r.flags for r in shown.segments) or ratio is None
        assert all(r.unconstrained is None for r in hidden.segments)
        assert any(r.unconstrained is not None for r in shown.segments)


def test_a_positioned_caption_never_shares_words_with_dialogue() -> None:
    # the talk: "{\an8}Roof of the City Library, 2019" lost "2019" to the next cue
    doc = _srt(
        (0, 3000, "{\\an8}Roof of the City Library, 2019"),
        (3100, 4000, "We also worked"),
        (4100, 6000, "with the schools."),
        (6100, 8000, "<i>I never told her</i>"),
        (8100, 10000, "that the school was closing"),
        (10100, 12000, "CITY LIBRARY"),
        (12100, 14000, "because it was late."),
    )
    backend = ToyBackend()
    result = translate_document(doc, backend, SLOT)
    groups = [r.group for r in result.segments]
    assert len({groups[0], groups[1]}) == 2  # the caption is a group of its own
    assert groups[1] == groups[2]  # dialogue across cues is still one sentence
    assert len({groups[3], groups[4], groups[5], groups[6]}) == 4
    caption = " ".join(result.document.segments[0].text.split())  # reflowed over two lines
    assert caption == "{\\an8}" + toy_translate("Roof of the City Library, 2019")
    assert "2019" not in result.document.segments[1].text
    assert not any("2019 We" in r.text for r in backend.calls)


def test_a_vtt_cue_placed_elsewhere_stays_apart() -> None:
    vtt = (
        "WEBVTT\n\n00:00:01.000 --> 00:00:03.000 line:10% position:20%\nRoof of the library\n\n"
        "00:00:03.100 --> 00:00:05.000\nwas where we met.\n"
    )
    doc = parse_document(vtt, "vtt")
    result = translate_document(doc, ToyBackend(), SLOT)
    assert result.segments[0].group != result.segments[1].group
    assert result.segments[0].fitted == toy_translate("Roof of the library")


class WithLexicon(Scripted):
    """`Scripted` with a lexicon (`TranslationBackend.lexicon`): the words its search keeps to."""

    def __init__(
        self,
        words: Sequence[str],
        free: Mapping[str, Sequence[str]],
        fitted: Mapping[str, Sequence[str]],
    ) -> None:
        super().__init__(free, fitted)
        self._lexicon = Lexicon(dict.fromkeys(words, 5), language="it")

    @property
    def lexicon(self) -> Lexicon:
        return self._lexicon


def test_a_fitting_translation_with_an_invented_word_is_translated_again_within_the_lexicon() -> (
    None
):
    salt = "Behind the salt."
    doc = _srt((0, 3000, salt), (4000, 7000, BLADE))
    words = ["dietro", "il", "sale", "questa", "lama", "ha", "un", "passato", "oscuro"]
    backend = WithLexicon(
        words,
        free={salt: ["Dietta il sale."], BLADE: [BLADE_IT]},  # "Dietta": no Italian word
        fitted={salt: ["Dietro il sale."]},
    )
    result = translate_document(doc, backend, SLOT)
    texts = [s.text for s in result.document.segments]
    assert texts == ["Dietro il sale.", BLADE_IT]
    asked_again = [r.text for r in backend.calls if r.max_chars is not None]
    assert asked_again == [salt]  # the clean line is kept as it was, never asked again
    first, second = result.segments
    assert first.refitted and not second.refitted
    assert all(f.name != "unknown-word" for s in result.segments for f in s.flags)
    assert first.unconstrained == "Dietta il sale."  # the comparison still shows it


class WithDictionary(WithLexicon):
    """`WithLexicon` with the Italian word list beside its lexicon (`fitsub.quality.dictionary`)."""

    def __init__(
        self,
        words: Sequence[str],
        free: Mapping[str, Sequence[str]],
        fitted: Mapping[str, Sequence[str]],
    ) -> None:
        super().__init__(words, free, fitted)
        self._lexicon = with_dictionary(self._lexicon)


def test_a_fitting_line_of_real_words_the_lexicon_lacks_is_kept_as_it_is() -> None:
    check = "We check every hive once a week."
    doc = _srt((0, 3000, check))
    backend = WithDictionary(
        ["ogni", "collina"],  # "accediamo" is real Italian, seen once in the training text
        free={check: ["Accediamo ogni collina."]},
        fitted={check: ["Controlliamo una volta."]},
    )
    result = translate_document(doc, backend, SLOT)
    assert [s.text for s in result.document.segments] == ["Accediamo ogni collina."]
    assert [r.text for r in backend.calls if r.max_chars is not None] == []  # never re-fitted
    assert not result.segments[0].refitted
    assert all(f.name != "unknown-word" for f in result.segments[0].flags)


def test_english_left_is_fitted_again_never_for_more_english_and_flagged_by_name() -> None:
    buy, jar = "Buy honey from a local beekeeper.", "Every jar holds the work of bees."
    doc = _srt((0, 3000, buy), (4000, 7000, jar))
    backend = WithDictionary(
        ["da", "un", "apicoltore", "locale", "compra", "miele", "ogni", "vasetto"],
        free={buy: ["Buy honey da un apicoltore."], jar: ["Ogni vasetto tiene il lavoro."]},
        fitted={
            buy: ["Buy honey from un apicoltore.", "Compra miele da un apicoltore."],
            jar: ["Every jar tiene il lavoro.", "Ogni vasetto tiene il lavoro."],
        },
    )
    result = translate_document(doc, backend, SLOT)
    assert [s.text for s in result.document.segments] == [
        "Compra miele da un apicoltore.",  # the first has more English than the free one
        "Ogni vasetto tiene il lavoro.",  # kept: no English word, never fitted again
    ]
    assert [r.text for r in backend.calls if r.max_chars is not None] == [buy]
    only_english = WithDictionary(
        ["da", "un", "apicoltore"],
        free={buy: ["Buy honey da un apicoltore."]},
        fitted={buy: ["Buy honey buy honey da un.", "Buy honey da un apicoltore."]},
    )
    flagged = translate_document(_srt((0, 3000, buy)), only_english, SLOT).segments[0]
    assert flagged.fitted == "Buy honey da un apicoltore."
    assert [f.detail for f in flagged.flags if f.name == "untranslated"] == [
        "English left: buy, honey"
    ]


WEEKS = "Each of them lives only a few weeks."
WEEKS_FREE = ["Ognuna di loro vive soltanto per qualche settimana."]  # too long for 2 s


def test_a_candidate_ending_mid_phrase_never_wins_over_one_that_ends_well() -> None:
    doc = _srt((0, 2000, WEEKS))
    fitted = {WEEKS: ["Ognuna vive per qualche", "Ognuna vive poche settimane."]}
    result = translate_document(doc, Scripted({WEEKS: WEEKS_FREE}, fitted), SLOT)
    seg = result.segments[0]
    assert seg.fitted == "Ognuna vive poche settimane." and seg.fits
    assert all(f.name != "cut-sentence" for f in seg.flags)


def test_when_only_a_cut_sentence_fits_the_whole_one_is_shown_over_budget() -> None:
    doc = _srt((0, 2000, WEEKS))
    fitted = {WEEKS: ["Ognuna vive per qualche"]}
    seg = translate_document(doc, Scripted({WEEKS: WEEKS_FREE}, fitted), SLOT).segments[0]
    assert seg.fitted == WEEKS_FREE[0] and not seg.fits
    assert [f.name for f in seg.flags] == ["over-budget"]


def test_when_every_candidate_is_cut_mid_phrase_it_is_flagged_cut_sentence() -> None:
    doc = _srt((0, 2000, WEEKS))
    free = {WEEKS: ["Ognuna di loro vive soltanto per qualche"]}
    fitted = {WEEKS: ["Ognuna vive per qualche"]}
    seg = translate_document(doc, Scripted(free, fitted), SLOT).segments[0]
    assert seg.fitted == "Ognuna vive per qualche" and seg.fits and seg.model_fits
    assert [f.detail for f in seg.flags if f.name == "cut-sentence"] == ["ends on 'qualche'"]


def test_a_recurring_name_is_rendered_one_way_and_an_ellipsis_stays_an_ellipsis() -> None:
    one, two, three = "Scales is late.", "Tell Scales the boat is here...", "We wait for Scales."
    doc = _srt((0, 3000, one), (4000, 7000, two), (8000, 11000, three))
    free = {
        one: ["Scala è in ritardo."],
        two: ["Di' a Scales che la barca è qui.."],
        three: ["Aspettiamo  Scala."],
    }
    result = translate_document(doc, Scripted(free), SLOT)
    assert [s.text for s in result.document.segments] == [
        "Scales è in ritardo.",
        "Di' a Scales che la barca è qui...",
        "Aspettiamo Scales.",
    ]
    assert not any(s.refitted for s in result.segments)  # kept, as the comparison shows
    assert [s.unconstrained for s in result.segments] == [s.fitted for s in result.segments]
