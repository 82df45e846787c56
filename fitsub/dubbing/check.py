"""`fitsub dub-check`: every source and dubbed line spoken by a real synthesizer (espeak-ng), and
each dubbed line's duration against its window, the synthesized source line's.

A line whose synthesized duration is more than `TOLERANCE` (15 %) over or under the source's is
flagged `too-long-to-speak` / `too-short-to-speak`. The band is looser than the ±10 % of the
estimated time a budget asks for: human dubs often break strict isochrony (Brannon, Virkar &
Thompson 2023, "Dubbing in Practice", TACL 11), and a synthesizer's timing has its own noise.
Also reported: each line's estimated speaking time (syllables ÷ rate, `fitsub.budget.speech`) and whether
the dubbed line, spoken, fits its cue.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from fitsub.budget import SPEECH_RATES, speaking_seconds, speech_rate_problem
from fitsub.document import Document, Segment
from fitsub.dubbing.speech import ESPEAK_WPM, SyllableCounter, require_espeak, synthesize_seconds
from fitsub.errors import InputError
from fitsub.io.atomic import atomic_write_bytes, atomic_write_text
from fitsub.markup import visible_text
from fitsub.quality.registry import TOO_LONG_TO_SPEAK as TOO_LONG
from fitsub.quality.registry import TOO_SHORT_TO_SPEAK as TOO_SHORT

TOLERANCE = 0.15  # the band of `flag_for`; the registry's meanings say 15 %

Synthesize = Callable[[str, str, int | None], float]


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


@dataclass(frozen=True)
class DubReport:
    """Every checked line and what they add up to."""

    src_lang: str
    lang: str
    speech_rate: float
    wpm: int
    tolerance: float
    lines: tuple[DubLine, ...]

    @property
    def within(self) -> float:
        """Share of lines within ±tolerance of the synthesized source."""
        return sum(1 for x in self.lines if not x.flag) / max(len(self.lines), 1)

    def to_dict(self) -> dict[str, Any]:
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
            "segments": [asdict(x) for x in self.lines],
        }


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
) -> DubReport:
    """Speak every source and target line with espeak-ng and compare their durations.

    `speech_rate` (syllables/s) overrides `lang`'s rate: espeak-ng's speed is scaled by it, and
    the estimated time uses it. A language without a voice, a missing espeak-ng, a cue of zero
    or negative duration, or cue counts that differ are input errors (exit 2)."""
    rate = SPEECH_RATES.get(lang) if speech_rate is None else speech_rate
    if rate is None:
        raise InputError(target.path, f"no speech rate for language {lang!r}", setting="lang")
    problem = speech_rate_problem(rate)
    if problem is not None:
        raise InputError(None, problem.replace("speech rate ", ""), setting="speech_rate")
    if synthesize is None:
        require_espeak(target.path)
        synthesize = _espeak_synthesize
    counter = SyllableCounter(lang)
    base = ESPEAK_WPM.get(lang, 175)
    wpm = base if speech_rate is None else round(base * rate / SPEECH_RATES.get(lang, rate))
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
            )
        )
    return DubReport(
        src_lang=src_lang,
        lang=lang,
        speech_rate=rate,
        wpm=wpm,
        tolerance=tolerance,
        lines=tuple(lines),
    )


def report_table(report: DubReport) -> str:
    """The per-line table (tab-separated) and a summary line."""
    head = "index\tid\tcue_s\tsource_s\ttarget_s\tratio\test_s\tfits_cue\tflag\ttarget"
    rows = [head]
    for x in report.lines:
        rows.append(
            "\t".join(
                [
                    str(x.index + 1),
                    x.id or "",
                    "" if x.cue_s is None else f"{x.cue_s:.2f}",
                    f"{x.source_s:.2f}",
                    f"{x.target_s:.2f}",
                    "" if x.ratio is None else f"{x.ratio:.2f}",
                    f"{x.estimated_s:.2f}",
                    {None: "", True: "yes", False: "no"}[x.fits_cue],
                    x.flag,
                    x.target,
                ]
            )
        )
    d = report.to_dict()
    rows.append(
        f"# {d['lines']} lines, {100 * report.within:.1f} % within ±{100 * report.tolerance:.0f} %"
        f" of the synthesized source; {d['too_long']} {TOO_LONG}, {d['too_short']} {TOO_SHORT}"
    )
    return "\n".join(rows)


def write_json(report: DubReport, path: Path) -> None:
    atomic_write_text(path, json.dumps(report.to_dict(), ensure_ascii=False, indent=2) + "\n")


def plot_ratios(report: DubReport, path: Path) -> None:
    """A PNG of the synthesized duration ratio per cue, the ±tolerance band shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [x.index + 1 for x in report.lines]
    ys = [x.ratio if x.ratio is not None else float("nan") for x in report.lines]
    colors = ["#c0392b" if x.flag else "#2c7fb8" for x in report.lines]
    fig, ax = plt.subplots(figsize=(max(6.0, len(xs) * 0.12), 3.5))
    ax.axhspan(1 - report.tolerance, 1 + report.tolerance, color="#d9f0d3", zorder=0)
    ax.axhline(1.0, color="#555555", linewidth=0.8)
    ax.scatter(xs, ys, c=colors, s=14, zorder=2)
    ax.set_xlabel("cue")
    ax.set_ylabel(f"{report.lang} ÷ {report.src_lang} duration")
    ax.set_title(f"synthesized duration ratio per cue ({100 * report.within:.0f} % within band)")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    atomic_write_bytes(path, buf.getvalue())
