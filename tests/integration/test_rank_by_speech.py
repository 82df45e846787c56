"""`--rank-by speech`: a dubbed cue's n-best ranked by espeak-ng's synthesized duration against its
window instead of the syllable estimate (`fitsub.dubbing.timing`); refused without a window."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run

from fitsub.backend import Candidate, Request
from fitsub.budget import SpeechBudgeter, limits_for
from fitsub.dubbing.speech import espeak_available, synthesize_seconds
from fitsub.errors import InputError
from fitsub.formats import parse_document
from fitsub.pipeline import TranslateOptions, translate_document

needs_espeak = pytest.mark.skipif(
    not espeak_available(), reason="espeak-ng is not installed (make espeak)"
)

# A cue of 2.5 s under `--isochrony cue`: a window of 16-17 Italian syllables (target 17.5),
# at most 48 characters, 2.5 s to speak.
SRT = "1\n00:00:01,000 --> 00:00:03,500\nI waited for you at the station until midnight.\n"
FREE = "Ti ho aspettato alla stazione fino a mezzanotte, e tu non sei venuto."
# The model's favourite first: 17 syllables without a pause (the syllables' pick), then two of
# 16 whose commas take time (espeak-ng speaks the first of them closest to 2.5 s).
FITTED = [
    "Ti ho aspettato in stazione fino a mezzanotte.",
    "Ti ho atteso, in stazione, fino a mezzanotte.",
    "Ti aspettavo, in stazione, fino a mezzanotte.",
]


class FixedBackend:
    """FITTED under a character cap (those within it), FREE unconstrained."""

    lexicon = links = None  # no word resources (TranslationBackend.lexicon, .links)

    name = "fixed"

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        out = []
        for req in requests:
            cap = req.max_chars
            texts = [FREE] if cap is None else [t for t in FITTED if len(t) <= cap] or FITTED
            out.append([Candidate(t, score=-float(i), fits=True) for i, t in enumerate(texts)])
        return out


def dubbed(rank_by: str) -> tuple[str, SpeechBudgeter]:
    """The cue dubbed under the narrow window (0.9-1.0 ×, judged by syllables): every FITTED
    candidate inside it, so the ranking alone decides."""
    doc = parse_document(SRT, "srt")
    speech = SpeechBudgeter("seconds", lang="it", isochrony="cue", rank_by=rank_by, shape="narrow")
    limits = dataclasses.replace(limits_for("it"), reading_speed=False)  # as `with_speech`
    opts = TranslateOptions(lang="it", limits=limits, speech=speech, quality=False)
    result = translate_document(doc, FixedBackend(), opts)
    (seg,) = result.segments
    assert seg.fits
    return seg.fitted or "", speech


@needs_espeak
def test_speech_picks_the_candidate_whose_spoken_time_is_closest_to_the_window() -> None:
    by_estimate, speech = dubbed("estimate")
    by_speech, _ = dubbed("speech")
    window = speech.window("", 2500)
    assert (window.min_syllables, window.max_syllables) == (16, 17)
    syllables = {t: speech.syllables(t) for t in FITTED}
    assert all(window.min_syllables <= n <= window.max_syllables for n in syllables.values())
    # the estimate: the syllables closest to the target (17 of 17.5)
    assert by_estimate == min(FITTED, key=lambda t: abs(syllables[t] - window.target_syllables))
    # speech: espeak-ng's duration closest to the cue's 2.5 s, another candidate
    spoken = {t: synthesize_seconds(t, "it") for t in FITTED}
    assert by_speech == min(FITTED, key=lambda t: abs(spoken[t] - 2.5))
    assert by_speech != by_estimate
    assert abs(spoken[by_speech] - 2.5) < abs(spoken[by_estimate] - 2.5)


@needs_espeak
def test_under_source_isochrony_the_goal_is_the_source_spoken() -> None:
    speech = SpeechBudgeter("seconds", lang="it", rank_by="speech")
    source = "I waited for you at the station until midnight."
    window = speech.window(source, None)
    goal = synthesize_seconds(source, "en")
    for text in FITTED:
        off = speech.off_target(source, text, window)
        assert off == pytest.approx(abs(synthesize_seconds(text, "it") - goal))


def test_an_unknown_ranking_is_an_input_error() -> None:
    with pytest.raises(InputError) as caught:
        SpeechBudgeter("seconds", lang="it", rank_by="sound")
    assert caught.value.setting == "rank_by"


@pytest.mark.parametrize("extra", [[], ["--unit", "char"]])
def test_without_a_dubbing_unit_rank_by_speech_is_refused(
    tmp_path: Path, capsys: Any, extra: list[str]
) -> None:
    src, out = tmp_path / "scene.srt", tmp_path / "o.srt"
    src.write_text(SRT, "utf-8")
    args = ["translate", str(src), "--model", "identity", "--lang", "it", "-o", str(out)]
    assert run([*args, "--rank-by", "speech", *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("fitsub: error: --rank-by speech"), err
    assert "--unit seconds" in err and "--profile dubbing" in err
    assert not out.exists()
