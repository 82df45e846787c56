"""Dubbing budgets (`fitsub.budget.speech`): each cue's speaking window, the character length it
implies asked of the model, and the n-best re-ranked by closeness to the target syllables."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run
from factories import tiny_checkpoint

from fitsub.backend import Candidate, Request
from fitsub.budget import CHARS_PER_SYLLABLE, SPEECH_RATES, SpeechBudgeter, limits_for
from fitsub.dubbing.speech import SyllableCounter, espeak_available
from fitsub.errors import InputError
from fitsub.formats import parse_document
from fitsub.pipeline import TranslateOptions, translate_document
from fitsub.quality.sentence_end import stray_marks

needs_espeak = pytest.mark.skipif(
    not espeak_available(), reason="espeak-ng is not installed (make espeak)"
)

SRT = (
    "1\n00:00:01,000 --> 00:00:03,000\nI waited at the station until midnight.\n\n"
    "2\n00:00:04,000 --> 00:00:05,500\nYou could have called me.\n"
)
# Italian candidates of 3 to 16 syllables; the backend offers every one under the request's cap.
CANDIDATES = [
    "Ti ho aspettato.",
    "Ti ho aspettato fino a tardi.",
    "Ho aspettato alla stazione.",
    "Ti ho aspettato alla stazione.",
    "Ti ho aspettato in stazione fino a mezzanotte.",
    "Potevi chiamarmi.",
    "Mi potevi chiamare.",
    "Avresti potuto chiamarmi, sai.",
]


class NBestBackend:
    """Offers the CANDIDATES that fit a request's character cap (unconstrained: the longest)."""

    lexicon = links = None  # no word resources (TranslationBackend.lexicon, .links)

    name = "nbest"

    def __init__(self) -> None:
        self.calls: list[Request] = []

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        out = []
        for req in requests:
            self.calls.append(req)
            pool = (
                CANDIDATES
                if req.max_chars is None
                else [c for c in CANDIDATES if len(c) <= req.max_chars]
            )
            pool = pool or [CANDIDATES[0]]
            pool = sorted(pool, key=len, reverse=True)  # the model's favourite: the longest
            out.append([Candidate(c, score=-float(i), fits=True) for i, c in enumerate(pool)])
        return out


@pytest.mark.parametrize(
    ("kwargs", "setting"),
    [
        ({"unit": "minutes"}, "unit"),
        ({"unit": "seconds", "isochrony": "lips"}, "isochrony"),
        ({"unit": "seconds", "speech_rate": 0.0}, "speech_rate"),
        ({"unit": "seconds", "speech_rate": 21.0}, "speech_rate"),
        ({"unit": "seconds", "lang": "xx"}, "lang"),
    ],
)
def test_bad_dubbing_settings_are_input_errors(kwargs: dict[str, Any], setting: str) -> None:
    args: dict[str, Any] = {"lang": "it", **kwargs}
    with pytest.raises(InputError) as caught:
        SpeechBudgeter(args.pop("unit"), **args)
    assert caught.value.setting == setting


@needs_espeak
def test_the_window_is_the_sources_speaking_time_or_the_cue() -> None:
    speech = SpeechBudgeter("seconds", lang="it")
    window = speech.window("I waited at the station until midnight.", 2000)
    syllables = SyllableCounter("en").count("I waited at the station until midnight.")
    assert window.seconds == pytest.approx(syllables / SPEECH_RATES["en"])
    target = window.seconds * SPEECH_RATES["it"]
    assert window.target_syllables == pytest.approx(target)
    assert window.max_syllables == round(target) and window.min_syllables <= window.max_syllables
    assert window.max_chars == int(target * CHARS_PER_SYLLABLE["it"])
    assert window.min_chars < window.max_chars
    cue = SpeechBudgeter("syllables", lang="it", isochrony="cue").window("whatever", 2000)
    assert cue.seconds == 2.0 and cue.max_syllables == round(2.0 * SPEECH_RATES["it"])
    with pytest.raises(InputError, match="cue of 0 ms"):
        SpeechBudgeter("seconds", lang="it", isochrony="cue").window("x", 0)


@needs_espeak
def test_the_nbest_is_reranked_by_closeness_to_the_target_time() -> None:
    doc = parse_document(SRT, "srt")
    speech = SpeechBudgeter("seconds", lang="it")
    opts = TranslateOptions(lang="it", limits=limits_for("it"), speech=speech, quality=False)
    backend = NBestBackend()
    result = translate_document(doc, backend, opts)
    counter = SyllableCounter("it")
    for seg, res in zip(doc.segments, result.segments, strict=True):
        window = speech.window(seg.text, seg.duration_ms)
        # the search was asked for the characters the window implies, with its lower bound
        asked = [c for c in backend.calls if c.max_chars is not None and c.text == seg.text]
        assert asked and asked[0].max_chars == window.max_chars
        assert asked[0].min_chars == window.min_chars

        # the n-best (fitted and unconstrained) re-ranked: the closest to the target syllables
        # of those within the cap and the window, else (a miss) the closest of all
        def off(text: str, target: float = window.target_syllables) -> float:
            return abs(counter.count(text) - target)

        fitting = [
            c
            for c in CANDIDATES
            if len(c) <= window.max_chars
            and window.min_syllables <= counter.count(c) <= window.max_syllables
        ]
        assert off(res.fitted or "") == min(off(c) for c in fitting or CANDIDATES)
        syllables = counter.count(res.fitted or "")
        inside = window.min_syllables <= syllables <= window.max_syllables
        inside = inside and len(res.fitted or "") <= window.max_chars
        assert res.fits == inside and res.model_fits == inside  # outside: a miss, flagged
        assert res.syllables == counter.count(res.fitted or "") and res.window == window
        assert ("over-budget" in [f.name for f in res.flags]) == (not inside)
    assert [s.id for s in result.document.segments] == ["1", "2"]


@needs_espeak
def test_a_tiny_model_under_a_syllable_budget(tmp_path: Path) -> None:
    model = tiny_checkpoint(tmp_path)
    srt, out, report = tmp_path / "scene.srt", tmp_path / "scene.it.srt", tmp_path / "r.json"
    srt.write_text(SRT, "utf-8")
    args = ["translate", str(srt), "--model", str(model), "--lang", "it", "--threads", "1"]
    assert run([*args, "--unit", "syllables", "-o", str(out), "--report", str(report), "-q"]) == 0
    data = json.loads(report.read_text())
    assert data["meta"]["unit"] == "syllables" and data["meta"]["isochrony"] == "source"
    assert data["meta"]["rank_by"] == "speech"  # under a speech unit, by default
    speech = SpeechBudgeter("syllables", lang="it", rank_by="speech")
    for seg in data["segments"]:
        window = speech.window(seg["source"], None)
        assert seg["budget"]["chars"] == window.max_chars
        assert seg["budget"]["speed_limit"] is None  # a voice, not a reader, sets the pace
        # the band: 0.85-1.15 × the time, judged by espeak-ng, its characters no cap
        assert (seg["window"]["low"], seg["window"]["high"]) == (0.85, 1.15)
    written = parse_document(out.read_text("utf-8"), "srt")
    assert [(s.id, s.start_ms, s.end_ms) for s in written.segments] == [
        ("1", 1000, 3000),
        ("2", 4000, 5500),
    ]


def test_a_ratio_with_a_speech_unit_is_refused(tmp_path: Path, capsys: Any) -> None:
    srt = tmp_path / "scene.srt"
    srt.write_text(SRT, "utf-8")
    code = run(
        [
            "translate",
            str(srt),
            "--model",
            "identity",
            "--lang",
            "it",
            "--unit",
            "seconds",
            "--ratio",
            "1.0",
            "-o",
            str(tmp_path / "o.srt"),
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "--unit" in err, err
    assert not (tmp_path / "o.srt").exists()


def test_without_espeak_a_speech_unit_says_how_to_get_it(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    srt = tmp_path / "scene.srt"
    srt.write_text(SRT, "utf-8")
    monkeypatch.setenv("PATH", "")
    out = tmp_path / "o.srt"
    code = run(
        [
            "translate",
            str(srt),
            "--model",
            "identity",
            "--lang",
            "it",
            "--profile",
            "dubbing",
            "-o",
            str(out),
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "apt-get install espeak-ng" in err, err
    assert not out.exists()  # never a silent fallback to characters


class FollowsTheCap:
    """A backend whose output length follows the cap it is given: the candidates of 0-3
    characters under it (unconstrained: the longest)."""

    lexicon = links = None  # no word resources (TranslationBackend.lexicon, .links)

    name = "follows"

    def __init__(self, candidates: list[str]) -> None:
        self.candidates = candidates
        self.caps: list[int | None] = []

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        out = []
        for req in requests:
            self.caps.append(req.max_chars)
            cap = req.max_chars if req.max_chars is not None else 10**6
            pool = [c for c in self.candidates if cap - 3 < len(c) <= cap]
            pool = pool or [max(self.candidates, key=len)]
            out.append([Candidate(c, score=-float(i), fits=True) for i, c in enumerate(pool)])
        return out


@needs_espeak
def test_a_miss_with_too_many_syllables_is_asked_again_with_fewer_characters() -> None:
    # "You could have called me.": a window of 6 Italian syllables, at most 15 characters.
    doc = parse_document("1\n00:00:01,000 --> 00:00:02,000\nYou could have called me.\n", "srt")
    speech = SpeechBudgeter("seconds", lang="it")  # the estimate's window: the narrow one
    window = speech.window("You could have called me.", None)
    assert (window.min_syllables, window.max_syllables, window.max_chars) == (6, 6, 15)
    # 7 syllables / 14 chars, 6 / 12 (each ends its sentence, as the source does)
    backend = FollowsTheCap(["a e i o a u e.", "a e i o a u."])
    opts = TranslateOptions(lang="it", limits=limits_for("it"), speech=speech, quality=False)
    result = translate_document(doc, backend, opts)
    # asked for 15 characters: 7 syllables, a miss; asked again for floor(15 × 5.65 / 7) = 12
    assert 15 in backend.caps and 12 in backend.caps
    assert result.segments[0].fitted == "a e i o a u." and result.segments[0].fits


DIALOGUE = "1\n00:00:01,000 --> 00:00:04,000\n- I waited at the station until midnight.\n- Sorry.\n"


@needs_espeak
@pytest.mark.parametrize("isochrony", ["source", "cue"])
def test_each_speaker_of_a_dialogue_cue_gets_a_window_of_its_own(isochrony: str) -> None:
    doc = parse_document(DIALOGUE, "srt")
    speech = SpeechBudgeter("seconds", lang="it", isochrony=isochrony)
    opts = TranslateOptions(lang="it", limits=limits_for("it"), speech=speech, quality=False)
    backend = NBestBackend()
    result = translate_document(doc, backend, opts)
    turns = ["I waited at the station until midnight.", "Sorry."]
    own = [speech.source_seconds(t) for t in turns]
    windows = speech.turn_windows(turns, 3000)
    if isochrony == "cue":  # the cue's 3 s split by the turns' speaking times
        assert [w.seconds for w in windows] == pytest.approx([3 * s / sum(own) for s in own])
    else:
        assert [w.seconds for w in windows] == pytest.approx(own)
    # each turn asked for its own window's characters (the long turn more than the short),
    # at most its line ("- " and the words within the characters per line)
    line = limits_for("it").cpl - 2
    for turn, window in zip(turns, windows, strict=True):
        asked = [c for c in backend.calls if c.max_chars is not None and c.text == turn]
        assert asked and asked[0].max_chars == min(window.max_chars, line)
        assert asked[0].min_chars == min(window.min_chars, asked[0].max_chars)
    assert windows[0].max_chars > 3 * windows[1].max_chars
    # the cue is judged by the turns' windows added together
    window = result.segments[0].window
    assert window is not None and window.max_syllables == sum(w.max_syllables for w in windows)
    assert window.seconds == pytest.approx(sum(w.seconds for w in windows))
    # the dialogue stays two turns with their dashes
    fitted = result.document.segments[0].text.split("\n")
    assert len(fitted) == 2 and all(line.startswith("-") for line in fitted)


@needs_espeak
def test_a_second_asks_candidate_is_held_to_the_pipelines_gates() -> None:
    # As above, but the second ask's only line inside the window ends on a preposition ("a"):
    # refused as every first pick is ("Scusa, io non l" once shipped this way); the miss stays.
    doc = parse_document("1\n00:00:01,000 --> 00:00:02,000\nYou could have called me.\n", "srt")
    speech = SpeechBudgeter("seconds", lang="it", shape="narrow")
    backend = FollowsTheCap(["a e i o a u e", "a e i o u a"])
    opts = TranslateOptions(lang="it", limits=limits_for("it"), speech=speech, quality=False)
    (seg,) = translate_document(doc, backend, opts).segments
    assert 12 in backend.caps  # asked again
    assert seg.fitted == "a e i o a u e" and not seg.fits
    assert "over-budget" in [f.name for f in seg.flags]


def test_a_sign_no_one_speaks_is_refused_unless_the_source_has_it() -> None:
    assert stray_marks("For both. This time.", "Per tutti. #")
    assert not stray_marks("Track #9", "Traccia #9") and not stray_marks("Go.", "Vai.")


class Scripted:
    """The unconstrained translation far too long; under a budget, the given n-best in order."""

    lexicon = links = None
    name = "scripted"

    def __init__(self, fitted: list[str]) -> None:
        self.fitted = fitted

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        long = "Ne abbiamo parlato per tutta la lunga settimana passata insieme, ogni sera."
        return [
            [Candidate(long, -1.0)]
            if req.max_chars is None
            else [Candidate(t, -float(i), True) for i, t in enumerate(self.fitted)]
            for req in requests
        ]


def test_a_fitting_candidate_that_leaves_a_mark_open_loses_to_one_that_does_not() -> None:
    doc = parse_document("1\n00:00:01,000 --> 00:00:03,000\nWe talked about it all week.\n", "srt")
    opts = TranslateOptions(lang="es", limits=limits_for("es"), quality=False)
    backend = Scripted(["¿Hablamos toda la semana.", "Hablamos toda la semana."])
    assert translate_document(doc, backend, opts).segments[0].fitted == "Hablamos toda la semana."
    # a repeat is judged only in a line to be spoken (dubbing): a subtitle keeps the model's pick
    opts = TranslateOptions(lang="it", limits=limits_for("it"), quality=False)
    backend = Scripted(["Ne parlammo la la settimana.", "Ne parlammo tutta la settimana."])
    assert translate_document(doc, backend, opts).segments[0].fitted.startswith("Ne parlammo la la")
