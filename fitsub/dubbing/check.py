"""`fitsub dub-check`: every source and dubbed line spoken by a real synthesizer (espeak-ng), and
each dubbed line's duration against its window, the synthesized source line's.

A line whose synthesized duration is more than `TOLERANCE` (15 %) over or under the source's is
flagged `too-long-to-speak` / `too-short-to-speak`. The band is looser than the ±10 % of the
estimated time a budget asks for: human dubs often break strict isochrony (Brannon, Virkar &
Thompson 2023, "Dubbing in Practice", TACL 11), and a synthesizer's timing has its own noise.
Also reported: each line's estimated speaking time (syllables ÷ rate, `fitsub.budget.speech`) and whether
the dubbed line, spoken, fits its cue. With a second voice (`--voice festival`, Italian:
`fitsub.dubbing.festival`) each dubbed line is also timed by it, against the same espeak-ng
source, and flagged by the same band beside espeak-ng's: its share within, and how often the
two voices agree on a line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from fitsub.budget import SPEECH_RATES, speaking_seconds, speech_rate_problem
from fitsub.document import Document, Segment
from fitsub.dubbing.festival import Voice, festival_voice
from fitsub.dubbing.speech import SyllableCounter, require_espeak, scaled_wpm, synthesize_seconds
from fitsub.errors import InputError
from fitsub.io.atomic import atomic_write_text
from fitsub.io.plotting import pyplot, save_png
from fitsub.markup import visible_text
from fitsub.quality.registry import TOO_LONG_TO_SPEAK as TOO_LONG
from fitsub.quality.registry import TOO_SHORT_TO_SPEAK as TOO_SHORT

TOLERANCE = 0.15  # the band of `flag_for`; the registry's meanings say 15 %

Synthesize = Callable[[str, str, int | None], float]
VOICE_NAMES = ("festival",)  # second voices dub-check knows


@dataclass(frozen=True)
class VoiceLine:
    """A dubbed line as the second voice speaks it: seconds, ratio to the source, flag."""

    target_s: float
    ratio: float | None
    flag: str


@dataclass(frozen=True)
class DubLine:
    """One cue: its texts, windows and durations (seconds) and its flag ("" when it fits)."""

    index: int
    id: str | None
    source: str
    target: str
    cue_s: float | None
    source_s: float
    target_s: float
    ratio: float | None
    target_syllables: int
    estimated_s: float
    fits_cue: bool | None
    flag: str
    second: VoiceLine | None = None  # the second voice's timing (`--voice`), None without


@dataclass(frozen=True)
class DubReport:
    """Every checked line and what they add up to."""

    src_lang: str
    lang: str
    speech_rate: float
    wpm: int
    tolerance: float
    lines: tuple[DubLine, ...]
    voice: str | None = None  # the second voice's name (None: espeak-ng alone)
    voice_note: str = ""  # how its durations were put on the dub's rate

    @property
    def within(self) -> float:
        """Share of lines within ±tolerance of the synthesized source."""
        return sum(1 for x in self.lines if not x.flag) / max(len(self.lines), 1)

    def second_voice(self) -> dict[str, Any] | None:
        """The second voice's summary: its share within ±tolerance, its flags, and the share of
        lines both voices judge alike (both inside the band or both outside); None without."""
        if self.voice is None:
            return None
        seconds = [x.second for x in self.lines if x.second is not None]
        n = max(len(self.lines), 1)
        return {  # a line the voice gave no audio for is unmeasured, never "within"
            "name": self.voice,
            "note": self.voice_note,
            "within": round(sum(1 for v in seconds if not v.flag and v.ratio is not None) / n, 4),
            "unmeasured": sum(1 for v in seconds if v.ratio is None),
            "too_long": sum(1 for v in seconds if v.flag == TOO_LONG),
            "too_short": sum(1 for v in seconds if v.flag == TOO_SHORT),
            "agree": round(sum(1 for x in self.lines if _agree(x)) / n, 4),
        }

    def to_dict(self) -> dict[str, Any]:
        second = self.second_voice()
        extra = {} if second is None else {"second_voice": second}
        segments = [
            {k: v for k, v in asdict(x).items() if k != "second" or second is not None}
            for x in self.lines
        ]
        return {
            "src_lang": self.src_lang,
            "lang": self.lang,
            "speech_rate": self.speech_rate,
            "espeak_wpm": self.wpm,
            "tolerance": self.tolerance,
            "lines": len(self.lines),
            "within": round(self.within, 4),
            "too_long": sum(1 for x in self.lines if x.flag == TOO_LONG),
            "too_short": sum(1 for x in self.lines if x.flag == TOO_SHORT),
            **extra,
            "segments": segments,
        }


def _agree(line: DubLine) -> bool:
    """Whether espeak-ng and the second voice judge `line` alike: both in the band or both out."""
    second = line.second
    return (
        second is not None and second.ratio is not None and (line.flag == "") == (second.flag == "")
    )


def flag_for(ratio: float | None, tolerance: float = TOLERANCE) -> str:
    """`too-long-to-speak` above 1 + tolerance, `too-short-to-speak` below 1 - tolerance."""
    if ratio is None:
        return ""
    if ratio > 1 + tolerance + 1e-9:
        return TOO_LONG
    if ratio < 1 - tolerance - 1e-9:
        return TOO_SHORT
    return ""


def _espeak_synthesize(text: str, lang: str, wpm: int | None) -> float:
    return synthesize_seconds(text, lang, wpm=wpm)


def _pairs(source: Document, target: Document) -> list[tuple[Segment, Segment]]:
    if len(source.segments) != len(target.segments):
        raise InputError(
            target.path,
            f"{len(target.segments)} cues against {len(source.segments)} in the source "
            f"{source.path}: dub-check pairs cue with cue",
        )
    pairs = []
    for src, tgt in zip(source.segments, target.segments, strict=True):
        duration = tgt.duration_ms
        if duration is not None and duration <= 0:
            raise InputError(
                target.path, f"cue of {duration} ms: it has no time to speak", tgt.line
            )
        if src.translatable and tgt.translatable:
            pairs.append((src, tgt))
    return pairs


def check_dub(
    source: Document,
    target: Document,
    *,
    src_lang: str = "en",
    lang: str,
    speech_rate: float | None = None,
    tolerance: float = TOLERANCE,
    synthesize: Synthesize | None = None,
    voice: str | Voice | None = None,
) -> DubReport:
    """Speak every source and target line with espeak-ng and compare their durations.

    `speech_rate` (syllables/s) overrides `lang`'s rate: espeak-ng's speed is scaled by it, and
    the estimated time uses it. `voice`: a second voice that times every dubbed line as well
    (`festival`, or a `Voice`), against the same espeak-ng source. A language without a voice,
    a missing espeak-ng (or second voice), a cue of zero or negative duration, or cue counts
    that differ are input errors (exit 2)."""
    rate = SPEECH_RATES.get(lang) if speech_rate is None else speech_rate
    if rate is None:
        raise InputError(target.path, f"no speech rate for language {lang!r}", setting="lang")
    problem = speech_rate_problem(rate)
    if problem is not None:
        raise InputError(None, problem.replace("speech rate ", ""), setting="speech_rate")
    second = second_voice(voice, lang, rate, target.path)
    if synthesize is None:
        require_espeak(target.path)
        synthesize = _espeak_synthesize
    counter = SyllableCounter(lang)
    wpm = scaled_wpm(lang, speech_rate, SPEECH_RATES.get(lang))
    pairs = _pairs(source, target)
    src_texts = [visible_text(s.text, source.markup).replace("\n", " ") for s, _ in pairs]
    tgt_texts = [visible_text(t.text, target.markup).replace("\n", " ") for _, t in pairs]
    syllables = counter.count_many(tgt_texts)
    lines = []
    for (_, tgt), s_text, t_text, syl in zip(pairs, src_texts, tgt_texts, syllables, strict=True):
        source_s = synthesize(s_text, src_lang, None)
        target_s = synthesize(t_text, lang, wpm)
        ratio = target_s / source_s if source_s > 0 else None
        cue_s = None if tgt.duration_ms is None else tgt.duration_ms / 1000
        lines.append(
            DubLine(
                index=tgt.index,
                id=tgt.id,
                source=s_text,
                target=t_text,
                cue_s=cue_s,
                source_s=round(source_s, 3),
                target_s=round(target_s, 3),
                ratio=None if ratio is None else round(ratio, 4),
                target_syllables=syl,
                estimated_s=round(speaking_seconds(t_text, syl, lang, speech_rate), 3),
                fits_cue=None if cue_s is None else target_s <= cue_s,
                flag=flag_for(ratio, tolerance),
                second=None
                if second is None
                else _second_line(second, t_text, source_s, tolerance),
            )
        )
    return DubReport(
        src_lang=src_lang,
        lang=lang,
        speech_rate=rate,
        wpm=wpm,
        tolerance=tolerance,
        lines=tuple(lines),
        voice=None if second is None else second.name,
        voice_note="" if second is None else second.note,
    )


def second_voice(
    voice: str | Voice | None, lang: str, rate: float, path: str | Path | None = None
) -> Voice | None:
    """The second voice `voice` names for a dub in `lang` at `rate` syllables/s (None: none);
    an unknown name, a language it does not speak, or the program missing: an `InputError`."""
    if voice is None or isinstance(voice, Voice):
        return voice
    if voice not in VOICE_NAMES:
        known = ", ".join(VOICE_NAMES)
        raise InputError(None, f"must be {known}, got {voice!r}", setting="voice")
    return festival_voice(lang, rate, path)


def _second_line(voice: Voice, text: str, source_s: float, tolerance: float) -> VoiceLine:
    spoken = voice.speak(text)
    ratio = spoken / source_s if source_s > 0 and spoken > 0 else None
    return VoiceLine(
        target_s=round(spoken, 3),
        ratio=None if ratio is None else round(ratio, 4),
        flag=flag_for(ratio, tolerance),
    )


def report_table(report: DubReport) -> str:
    """The per-line table (tab-separated) and a summary line; with a second voice, its
    seconds, ratio and flag after espeak-ng's and a second summary line."""
    head = "index\tid\tcue_s\tsource_s\ttarget_s\tratio\test_s\tfits_cue\tflag"
    if report.voice is not None:
        head += "".join(f"\t{report.voice}_{col}" for col in ("s", "ratio", "flag"))
    rows = [head + "\ttarget"]
    for x in report.lines:
        cells = [
            str(x.index + 1),
            x.id or "",
            "" if x.cue_s is None else f"{x.cue_s:.2f}",
            f"{x.source_s:.2f}",
            f"{x.target_s:.2f}",
            _ratio(x.ratio),
            f"{x.estimated_s:.2f}",
            {None: "", True: "yes", False: "no"}[x.fits_cue],
            x.flag,
        ]
        if report.voice is not None:
            v = x.second
            cells += ["", "", ""] if v is None else [f"{v.target_s:.2f}", _ratio(v.ratio), v.flag]
        rows.append("\t".join([*cells, x.target]))
    d = report.to_dict()
    band = f"±{100 * report.tolerance:.0f} %"
    rows.append(
        f"# {d['lines']} lines, {100 * report.within:.1f} % within {band}"
        f" of the synthesized source; {d['too_long']} {TOO_LONG}, {d['too_short']} {TOO_SHORT}"
    )
    second = report.second_voice()
    if second is not None:
        rows.append(
            f"# {second['name']} ({second['note']}): {100 * second['within']:.1f} % within "
            f"{band} of the espeak-ng source; {second['too_long']} {TOO_LONG}, "
            f"{second['too_short']} {TOO_SHORT}; espeak-ng and {second['name']} agree on "
            f"{100 * second['agree']:.1f} % of lines"
            + (f"; {second['unmeasured']} unmeasured (no audio)" if second["unmeasured"] else "")
        )
    return "\n".join(rows)


def _ratio(ratio: float | None) -> str:
    return "" if ratio is None else f"{ratio:.2f}"


def write_json(report: DubReport, path: Path) -> None:
    atomic_write_text(path, json.dumps(report.to_dict(), ensure_ascii=False, indent=2) + "\n")


def plot_ratios(report: DubReport, path: Path) -> None:
    """A PNG of the synthesized duration ratio per cue, the ±tolerance band shaded."""
    plt = pyplot()
    xs = [x.index + 1 for x in report.lines]
    ys = [x.ratio if x.ratio is not None else float("nan") for x in report.lines]
    colors = ["#c0392b" if x.flag else "#2c7fb8" for x in report.lines]
    fig, ax = plt.subplots(figsize=(max(6.0, len(xs) * 0.12), 3.5))
    ax.axhspan(1 - report.tolerance, 1 + report.tolerance, color="#d9f0d3", zorder=0)
    ax.axhline(1.0, color="#555555", linewidth=0.8)
    ax.scatter(xs, ys, c=colors, s=14, zorder=2)
    if report.voice is not None:  # the second voice: hollow marks beside espeak-ng's dots
        second = [
            x.second.ratio if x.second is not None and x.second.ratio is not None else float("nan")
            for x in report.lines
        ]
        ax.scatter(xs, second, s=18, zorder=3, facecolors="none", edgecolors="#7f7f7f")
    ax.set_xlabel("cue")
    ax.set_ylabel(f"{report.lang} ÷ {report.src_lang} duration")
    ax.set_title(f"synthesized duration ratio per cue ({100 * report.within:.0f} % within band)")
    fig.tight_layout()
    save_png(fig, path)
