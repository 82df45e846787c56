"""Whose is the dubbing gap (issue 60, item 6): the estimate's or the model's?

`fitsub translate --profile dubbing --unit seconds --rank-by speech` into Italian misses the
issue's target (festival, the independent voice, within ±15 % of the synthesized source for
≥ 85 % of lines). This script asks, line by line, whether a better choice among the
translations the model gives would have reached it, or whether the model gives none:

1. The dubbing path runs as shipped (the CLI, in this process), with every request it sends the
   model and every candidate it gets back recorded: the unconstrained n-best, the fitted n-best
   at the window's characters, the second asks of `respeak` (`fitsub.pipeline`).
2. Each line's shipped pick (the output) is timed by festival (`fitsub.dubbing.festival`:
   `lp_diphone`, durations × `FESTIVAL_RATE` ÷ 6.99) against espeak-ng's English source, as
   `fitsub dub-check --voice festival` times it.
3. Where the pick misses the band, the path's other candidates are timed, those the pipeline
   could accept first (no word cut against the unconstrained translation, the sentence not
   ended mid-phrase, no more English words than the unconstrained translation): candidates
   inside the syllable window first, each side in order of espeak-ng's closeness, until one
   lands.
4. Where none lands, the model is asked again for the same line at lengths the path never
   asks (`SWEEP`: 0.6-1.5 × the window's characters, in five bands, each an `--nbest` n-best;
   the path asks 0.9-1.0 and its second asks about 0.92-1.08 of a corrected length), and those
   candidates are timed the same way.

Each line then falls in one class:

* `pick`: the shipped pick lands within ±15 % (festival);
* `rank`: it misses, but a candidate the path already had lands: the choice's gap, split by
  where that candidate was: inside the window as the pipeline takes it (syllables in the
  window, characters within its cap: espeak-ng's ranking chose another, the two voices
  disagree) or outside it (the window kept it out); a window's refusal is split again by
  `kept_out`: its shape (the candidate's syllables within ±15 % of the target, but the window
  is 0.9-1.0 × the target) or the estimate (the syllables put it further off);
* `ask`: no candidate of the path lands, but one asked at another length does: the estimate's
  gap too (the window's characters were the wrong length to ask for);
* `model`: no candidate at any asked length lands (the model's gap), split into all too long,
  all too short, or straddling the band (some over, some under: the model's lengths jump it).

The oracle ceiling (`pick` + `rank` + `ask`) is what a re-ranker that knew festival's verdict
could reach with this model; the rest is the model's. The oracle pick (for the BLEU figures on
the dev lines) is the first candidate that lands in the order above. Beside it, because an
oracle chosen by its own judge is an upper bound: the same ceiling where both voices must put
the line in the band; the ceiling restricted to candidates whose quality estimate (the shipped
quality model, `fitsub.quality.score.estimate`) is no worse than the pick's; and a re-ranker
that needs no oracle: espeak-ng's closest of the path's acceptable candidates, the window
ignored, judged by festival.

festival runs as one process (`festival --script`, text2wave's own steps for each line, its
voice loaded once), checked against `festival_raw_seconds` on the first lines. A candidate whose
espeak-ng ratio is outside the band by more than `--margin` (× 1.5) is not timed by festival but
classed by espeak-ng's ratio; the largest festival ÷ espeak-ng disagreement among the timed
candidates is reported to show the margin is safe.

    OMP_NUM_THREADS=1 taskset -c 1 .venv/bin/python experiments/dubbing/gap.py ../shared/data \\
        [--lines 160] [--rank-by speech] [--json build/gap/gap.json]

The dev lines are `en-it/dev/opensubtitles` 401-560 of the first half (the 160 held-out dialogue
lines of docs/results/dubbing.md), written to a temporary folder; nothing derived from
../shared/data is kept but the optional `--json` (under build/, not committed).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import sacrebleu  # noqa: E402
import torch  # noqa: E402

import fitsub.cli.translation as translation  # noqa: E402
from fitsub.backend import Candidate, Request  # noqa: E402
from fitsub.budget import SPEECH_RATES, SpeechBudgeter, SpeechWindow  # noqa: E402
from fitsub.cli import main as fitsub_main  # noqa: E402
from fitsub.cli.documents import load_input  # noqa: E402
from fitsub.dubbing.check import TOLERANCE as BAND  # noqa: E402
from fitsub.dubbing.festival import (  # noqa: E402
    _LATIN1,
    FESTIVAL_RATE,
    FESTIVAL_VOICE,
    festival_raw_seconds,
)
from fitsub.dubbing.speech import synthesize_seconds, wav_seconds  # noqa: E402
from fitsub.markup import visible_text  # noqa: E402
from fitsub.pipeline.work import Unit, known_words  # noqa: E402
from fitsub.quality.dictionary import Dictionary, english_left  # noqa: E402
from fitsub.quality.flags import cut_words  # noqa: E402
from fitsub.quality.lexicon import words_of  # noqa: E402
from fitsub.quality.score import estimate  # noqa: E402
from fitsub.quality.sentence_end import dangling_end  # noqa: E402
from fitsub.units import char_length  # noqa: E402

torch.set_num_threads(1)

LANG = "it"
SCENE = Path("samples/dubbing/scene.srt")
SWEEP: tuple[tuple[float, float], ...] = (
    (0.60, 0.75),
    (0.75, 0.90),
    (1.00, 1.15),
    (1.15, 1.30),
    (1.30, 1.50),
)
"""The extra asks: (lower bound, hard cap) as shares of the window's characters."""

GUILLEMETS = str.maketrans({"«": '"', "»": '"'})
"""festival writes no audio at all for a line holding « or » (Latin-1, but no letter-to-sound
rule in its Italian voice): read as the ASCII quote. `fitsub.dubbing.festival` lacks this, and
dub-check counts such a line (no ratio, no flag) as within the band."""

SERVE_SCM = r"""
(load (path-append datadir "init.scm"))
(gc-status nil)
(VOICE)
(defvar fp nil)
(defvar totalnumsamples 0)
(defvar an_utt nil)
;; text2wave's save_record_wave_fp and main, one output file per input file
(define (save_record_wave_fp utt)
  (if (eq? totalnumsamples 0)
      (wave.save.header fp (utt.wave utt) 'riff nil (list (list "numsamples" 0))))
  (set! totalnumsamples
        (+ totalnumsamples (get_param 'num_samples (wave.info (utt.wave utt)) 0)))
  (wave.save.data.fp (utt.wave utt) fp 'riff nil)
  (set! an_utt utt))
(set! tts_hooks (list utt.synth save_record_wave_fp))
(define (one f o)
  (set! totalnumsamples 0)
  (set! an_utt nil)
  (set! fp (fopen o "wb"))
  (tts_file f (tts_find_text_mode f auto-text-mode-alist))
  (if an_utt
      (begin
        (fseek fp 0 0)
        (wave.save.header fp (utt.wave an_utt) 'riff nil
                          (list (list "numsamples" totalnumsamples)))))
  (fclose fp)
  (set! fp nil))
(define (serve)
  (let ((f (read)))
    (while (not (equal? f "quit"))
      (unwind-protect (one f (string-append f ".wav"))
                      (begin (if fp (fclose fp)) (set! fp nil)))
      (format t "DONE %s\n" f)
      (fflush nil)
      (set! f (read)))))
(serve)
""".replace("VOICE", FESTIVAL_VOICE)


class Festival:
    """festival's Italian durations (unscaled, edge silence trimmed), one process for all
    lines, each text spoken once."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        script = tmp / "serve.scm"
        script.write_text(SERVE_SCM, encoding="ascii")
        self.proc = subprocess.Popen(
            ["festival", "--script", str(script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=tmp,
        )
        self.cache: dict[str, float] = {}
        self.calls = 0
        self.seconds = 0.0

    def raw(self, text: str) -> float:
        if text in self.cache:
            return self.cache[text]
        assert self.proc.stdin is not None and self.proc.stdout is not None
        started = time.perf_counter()
        name = f"line{self.calls}.txt"
        path = self.tmp / name
        latin1 = text.translate(_LATIN1).translate(GUILLEMETS)
        path.write_bytes(latin1.encode("iso-8859-1", errors="replace"))
        self.proc.stdin.write(f'"{name}"\n')
        self.proc.stdin.flush()
        while f"DONE {name}" not in (line := self.proc.stdout.readline()):
            if not line:
                raise RuntimeError("festival ended")
        wav = self.tmp / f"{name}.wav"
        try:
            seconds = wav_seconds(wav)
        except Exception:  # a header and no audio, or no file: as festival_raw_seconds
            seconds = 0.0
        path.unlink()
        wav.unlink(missing_ok=True)
        self.calls += 1
        self.seconds += time.perf_counter() - started
        self.cache[text] = seconds
        return seconds

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write('"quit"\n')
        self.proc.stdin.flush()
        self.proc.wait(timeout=30)


class Espeak:
    """espeak-ng's durations (dub-check's speeds), each text spoken once."""

    def __init__(self) -> None:
        self.cache: dict[tuple[str, str], float] = {}

    def seconds(self, text: str, lang: str) -> float:
        key = (text, lang)
        if key not in self.cache:
            self.cache[key] = synthesize_seconds(text, lang)
        return self.cache[key]


@dataclass
class Recorder:
    """Every unit that sent a request (by its request text) and every n-best got back."""

    units: dict[str, list[Unit]] = field(default_factory=dict)
    asks: dict[str, list[tuple[Request, list[Candidate]]]] = field(default_factory=dict)
    backend: Any = None
    translate: Callable[..., list[list[Candidate]]] | None = None


@contextlib.contextmanager
def recording(rec: Recorder) -> Iterator[None]:
    """The pipeline, with `Unit.request` and the backend's `translate` recorded."""
    request, opener = Unit.request, translation.open_model

    def recorded_request(self: Unit, budget: int | None, min_ratio: float | None = None) -> Request:
        req = request(self, budget, min_ratio)
        rec.units.setdefault(req.text, []).append(self)
        return req

    def opened(*args: Any, **kwargs: Any) -> Any:
        backend = opener(*args, **kwargs)
        inner = backend.translate

        def translate(requests: Sequence[Request], n_best: int = 5) -> list[list[Candidate]]:
            out = inner(requests, n_best=n_best)
            for r, cands in zip(requests, out, strict=True):
                rec.asks.setdefault(r.text, []).append((r, list(cands)))
            return out

        backend.translate = translate
        rec.backend, rec.translate = backend, inner
        return backend

    Unit.request = recorded_request  # type: ignore[method-assign]
    translation.open_model = opened  # type: ignore[assignment]
    try:
        yield
    finally:
        Unit.request = request  # type: ignore[method-assign]
        translation.open_model = opener


@dataclass
class Line:
    """One cue: its source, the shipped pick, the unit and the candidates the path had."""

    source: str
    pick: str
    unit: Unit
    free: str
    path: list[str]
    reference: str | None = None
    klass: str = ""
    detail: str = ""
    landed: str | None = None
    ratios: list[float] = field(default_factory=list)  # the model class: every candidate's
    sweep: list[str] = field(default_factory=list)
    both: str = ""  # a candidate both voices put in the band: among the path's, an ask's, none
    by_espeak: bool = False  # the candidate espeak-ng puts closest (window ignored) lands
    espeak_self: bool = False  # ... and espeak-ng itself puts it within the band
    windowed: bool = False  # a candidate the pipeline could accept is inside the window
    quality: float | None = None  # the pick's quality estimate (a line that missed)
    kept: str | None = None  # the first landing candidate whose estimate is no worse


def run_pipeline(src: Path, out: Path, rank_by: str, rec: Recorder) -> None:
    argv = [
        "translate", str(src), "--lang", LANG, "--profile", "dubbing", "--unit", "seconds",
        "--rank-by", rank_by, "--threads", "1", "-q", "-o", str(out),
        "--report", str(out) + ".report.json",
    ]  # fmt: skip
    with recording(rec), contextlib.suppress(SystemExit):
        fitsub_main(argv)


def collect(src: Path, out: Path, rec: Recorder, refs: list[str] | None) -> list[Line]:
    """The translatable cues of `src` with their picks and the path's candidates."""
    source, target = load_input(src), load_input(out)
    lines: list[Line] = []
    by_cue: dict[int, Unit] = {}
    for units in rec.units.values():
        for u in units:
            if len(u.cues) == 1 and u.window is not None and u.turn == 0:
                by_cue.setdefault(u.cues[0], u)
    for k, (s, t) in enumerate(zip(source.segments, target.segments, strict=True)):
        if not (s.translatable and t.translatable):
            continue
        unit = by_cue.get(k)
        if unit is None:
            print(f"  cue {k + 1}: no single-cue unit with a window; left out", file=sys.stderr)
            continue
        s_text = visible_text(s.text, source.markup).replace("\n", " ")
        if " ".join(unit.source.split()) != " ".join(s_text.split()):
            print(f"  cue {k + 1}: unit {unit.source!r} against {s_text!r}", file=sys.stderr)
        t_text = visible_text(t.text, target.markup).replace("\n", " ")
        texts: list[str] = []
        free = ""
        for req, cands in rec.asks.get(unit.shield.text, []):
            for c in cands:
                if unit.shield.complete(c.text):
                    texts.append(unit.restored(c))
            if req.target_chars is None and not free:
                complete = [c for c in cands if unit.shield.complete(c.text)] or cands
                free = unit.restored(complete[0])
        ref = None if refs is None else refs[k]
        path = [x for x in dict.fromkeys(texts) if x != t_text]
        lines.append(Line(s_text, t_text, unit, free, path, ref))
    return lines


class Judge:
    """festival's and espeak-ng's ratios of a dubbed line to the English source (espeak-ng)."""

    def __init__(self, festival: Festival, espeak: Espeak, margin: float) -> None:
        self.festival, self.espeak, self.margin = festival, espeak, margin
        self.scale = FESTIVAL_RATE / SPEECH_RATES[LANG]
        self.skipped = 0
        self.silent: set[str] = set()  # texts festival wrote no audio for
        self.pairs: dict[str, tuple[float, float]] = {}  # text: (festival, espeak-ng) ratios

    def source(self, text: str) -> float:
        return self.espeak.seconds(text, "en")

    def espeak_ratio(self, source: str, text: str) -> float:
        return self.espeak.seconds(text, LANG) / max(self.source(source), 1e-9)

    def ratio(self, source: str, text: str, skip_far: bool = False) -> float:
        """festival's ratio; with `skip_far`, espeak-ng's where that is far outside the band."""
        e = self.espeak_ratio(source, text)
        if skip_far and not ((1 - BAND) / self.margin <= e <= (1 + BAND) * self.margin):
            self.skipped += 1
            return e
        f = self.festival.raw(text) * self.scale / max(self.source(source), 1e-9)
        if f <= 0:  # festival wrote no audio: unmeasured, never within
            self.silent.add(text)
            return math.nan
        if e > 0:
            self.pairs[text] = (f, e)
        return f


def lands(ratio: float) -> bool:
    return abs(ratio - 1) <= BAND + 1e-9


class Gate:
    """Whether the pipeline could accept a candidate (window and ranking aside): no word cut
    against the unconstrained translation, no mid-phrase end, no more English words."""

    def __init__(self, backend: Any, rec: Recorder) -> None:
        free = [cands for asks in rec.asks.values() for r, cands in asks if r.target_chars is None]
        self.known = known_words(backend, free)
        lexicon = getattr(backend, "lexicon", None)
        d = getattr(lexicon, "dictionary", None)
        self.dictionary = d if isinstance(d, Dictionary) else None

    def english(self, source: str, text: str) -> int:
        if self.dictionary is None:
            return 0
        left = set(english_left(source, text, self.dictionary))
        return sum(w in left for w in words_of(text))

    def __call__(self, line: Line, text: str) -> bool:
        if cut_words(line.source, text, line.free or None, self.known):
            return False
        if dangling_end(line.source, text, LANG) is not None:
            return False
        return self.english(line.source, text) <= self.english(line.source, line.free)


def ordered(line: Line, texts: Sequence[str], judge: Judge, speech: SpeechBudgeter) -> list[str]:
    """Candidates inside the syllable window first, each side by espeak-ng's closeness."""

    def key(text: str) -> tuple[bool, float]:
        inside = in_window(line, text, speech)
        return (not inside, abs(math.log(max(judge.espeak_ratio(line.source, text), 1e-9))))

    return sorted(texts, key=key)


def first_landing(
    line: Line, texts: Sequence[str], judge: Judge, speech: SpeechBudgeter
) -> str | None:
    for text in ordered(line, texts, judge, speech):
        if lands(judge.ratio(line.source, text, skip_far=True)):
            return text
    return None


def in_window(line: Line, text: str, speech: SpeechBudgeter) -> bool:
    """Whether the window takes `text` as the pipeline does (`Fitter.parts`): its syllables
    inside the syllable window, its characters within the window's character cap."""
    w = line.unit.window
    assert w is not None
    if char_length(text) > line.unit.budget:
        return False
    return w.min_syllables <= speech.syllables(text) <= w.max_syllables


def sweep_requests(line: Line) -> list[Request]:
    """The extra asks of one line: each band of `SWEEP` × the window's characters."""
    w, u = line.unit.window, line.unit
    assert w is not None
    extra = u.shield.extra_chars
    asks = []
    for lo, hi in SWEEP:
        cap = max(1, math.floor(hi * w.max_chars) - extra)
        low = max(0, min(cap, math.ceil(lo * w.max_chars) - extra))
        asks.append(Request(u.shield.text, cap, cap, low, lexicon=True))
    return asks


def first_both(
    line: Line, texts: Sequence[str], judge: Judge, speech: SpeechBudgeter
) -> str | None:
    """The first candidate (in `ordered`'s order) that both voices put within the band."""
    for text in ordered(line, texts, judge, speech):
        if lands(judge.espeak_ratio(line.source, text)) and lands(judge.ratio(line.source, text)):
            return text
    return None


def classify(
    lines: list[Line], rec: Recorder, judge: Judge, speech: SpeechBudgeter, nbest: int
) -> dict[str, float]:
    """Each line's class (module docstring), and whether a candidate lands by both voices
    (`both`: `path`, `ask` or `none`); the extra asks' cost."""
    gate = Gate(rec.backend, rec)
    todo: list[Line] = []
    for line in lines:
        ok = [line.pick, *[x for x in line.path if gate(line, x)]]
        if lands(judge.ratio(line.source, line.pick)):
            line.klass = "pick"
        elif (found := first_landing(line, ok[1:], judge, speech)) is not None:
            line.klass, line.landed = "rank", found
            line.detail = "in-window" if in_window(line, found, speech) else "window"
        line.both = "path" if first_both(line, ok, judge, speech) is not None else ""
        closest = min(
            ok, key=lambda x: abs(math.log(max(judge.espeak_ratio(line.source, x), 1e-9)))
        )
        line.by_espeak = lands(judge.ratio(line.source, closest))
        line.espeak_self = lands(judge.espeak_ratio(line.source, closest))
        if not (line.klass and line.both):
            todo.append(line)
    started = time.perf_counter()
    assert rec.translate is not None
    requests = [r for line in todo for r in sweep_requests(line)]
    answers = rec.translate(requests, n_best=nbest) if requests else []
    decode_s = time.perf_counter() - started
    it = iter(answers)
    for line in todo:
        u = line.unit
        texts = [
            u.restored(c)
            for _ in SWEEP
            for c in next(it)
            if u.shield.complete(c.text) and char_length(u.restored(c)) > 0
        ]
        seen = {line.pick, *line.path}
        line.sweep = [x for x in dict.fromkeys(texts) if x not in seen]
        ok = [x for x in line.sweep if gate(line, x)]
        if not line.both:
            line.both = "ask" if first_both(line, ok, judge, speech) is not None else "none"
        if line.klass:
            continue
        found = first_landing(line, ok, judge, speech)
        if found is not None:
            line.klass, line.landed = "ask", found
            line.detail = "in-window" if in_window(line, found, speech) else "window"
            continue
        line.klass = "model"
        every = [line.pick, *[x for x in (*line.path, *line.sweep) if gate(line, x)]]
        ratios = [judge.ratio(line.source, x, skip_far=True) for x in every]
        line.ratios = [r for r in ratios if not math.isnan(r)]
        if not line.ratios:
            line.detail = "unmeasured"
        elif all(r > 1 + BAND for r in line.ratios):
            line.detail = "too-long"
        elif all(r < 1 - BAND for r in line.ratios):
            line.detail = "too-short"
        else:
            line.detail = "straddle"
        rest = [x for x in (*line.path, *line.sweep) if not gate(line, x)]
        if any(lands(judge.ratio(line.source, x, skip_far=True)) for x in rest):
            line.detail += "+gated"  # a candidate the pipeline could not accept lands
    for line in lines:
        every = (line.pick, *line.path, *line.sweep)
        line.windowed = any(in_window(line, x, speech) and gate(line, x) for x in every)
    quality_oracle(lines, rec.backend, judge, speech, gate)
    return {"sweep_decode_s": decode_s, "sweep_lines": len(todo), "sweep_requests": len(requests)}


def quality_oracle(
    lines: list[Line], backend: Any, judge: Judge, speech: SpeechBudgeter, gate: Gate
) -> None:
    """For each line whose pick missed but a candidate lands: the first landing candidate whose
    quality estimate (`fitsub.quality.score.estimate`, the shipped quality model) is at least
    the pick's (`Line.kept`)."""
    need = [x for x in lines if x.klass in ("rank", "ask")]
    pools = [[x.pick, *[t for t in (*x.path, *x.sweep) if gate(x, t)]] for x in need]
    sentences = [
        (x.source, t, x.free or None) for x, pool in zip(need, pools, strict=True) for t in pool
    ]
    scores = iter(estimate(backend, sentences, None, LANG) or [])
    for line, pool in zip(need, pools, strict=True):
        q = dict(zip(pool, scores, strict=False))
        line.quality = q[line.pick]
        ok = [t for t in pool[1:] if q[t] >= q[line.pick]]
        line.kept = first_landing(line, ok, judge, speech)


def kept_out(source: str, landed: str, window: SpeechWindow, speech: SpeechBudgeter) -> str:
    """Why the window kept out a candidate festival times within ±15 %: `shape` when its
    syllables are within ±15 % of the window's target too (the window is one-sided and
    narrower: 0.9-1.0 × the target), `estimate` when the syllable count puts it further off."""
    off = speech.syllables(landed) / max(window.target_syllables, 1e-9)
    return "shape" if abs(off - 1) <= BAND + 1e-9 else "estimate"


def summary(
    name: str, lines: list[Line], report: Path, judge: Judge, speech: SpeechBudgeter
) -> dict[str, Any]:
    n = len(lines)
    count: dict[str, int] = {}
    for line in lines:
        count[line.klass] = count.get(line.klass, 0) + 1
        count[f"both:{line.both}"] = count.get(f"both:{line.both}", 0) + 1
        if line.detail == "window" and line.landed is not None and line.unit.window is not None:
            why = f"window:{kept_out(line.source, line.landed, line.unit.window, speech)}"
            count[why] = count.get(why, 0) + 1
        if line.by_espeak:
            count["espeak:lands"] = count.get("espeak:lands", 0) + 1
        if line.espeak_self:
            count["espeak:self"] = count.get("espeak:self", 0) + 1
        if math.isnan(judge.ratio(line.source, line.pick)):
            count["pick:unmeasured"] = count.get("pick:unmeasured", 0) + 1
        if line.klass == "pick" or line.kept is not None:
            count["quality:kept"] = count.get("quality:kept", 0) + 1
        key = f"{line.klass}:{line.detail.removesuffix('+gated')}"
        count[key] = count.get(key, 0) + 1
        if line.detail.endswith("+gated"):
            count["model:gated"] = count.get("model:gated", 0) + 1
    data = json.loads(report.read_text(encoding="utf-8"))
    over = sum(
        1
        for seg in data.get("segments", [])
        if any(f.get("code", f.get("name")) == "over-budget" for f in seg.get("flags", []))
    )
    windowed = sum(line.windowed for line in lines)
    out: dict[str, Any] = {
        "set": name,
        "lines": n,
        "counts": count,
        "over_budget": over,
        "lines_with_an_acceptable_candidate_in_the_window": windowed,
        "path_candidates_per_line": sum(len(x.path) + 1 for x in lines) / max(n, 1),
        "sweep_candidates_per_swept_line": sum(len(x.sweep) for x in lines)
        / max(sum(1 for x in lines if x.sweep), 1),
    }
    pct = {k: round(100 * v / max(n, 1), 1) for k, v in count.items()}
    out["percent"] = pct
    return out


def candidates(line: Line, judge: Judge, speech: SpeechBudgeter) -> list[dict[str, Any]]:
    """Every candidate of a line with what was measured of it (for the `--json` file)."""
    src = max(judge.source(line.source), 1e-9)
    out = []
    for kind, texts in (("pick", [line.pick]), ("path", line.path), ("sweep", line.sweep)):
        for text in texts:
            fest = judge.festival.cache.get(text)
            out.append(
                {
                    "kind": kind,
                    "text": text,
                    "espeak": round(judge.espeak_ratio(line.source, text), 3),
                    "festival": None if not fest else round(fest * judge.scale / src, 3),
                    "in_window": in_window(line, text, speech),
                }
            )
    return out


def bleu(lines: list[Line]) -> dict[str, float]:
    refs = [[x.reference or "" for x in lines]]
    systems = {
        "unconstrained": [x.free for x in lines],
        "shipped": [x.pick for x in lines],
        "oracle": [x.landed or x.pick for x in lines],
        "oracle, quality no worse": [x.kept or x.pick for x in lines],
    }
    return {k: round(sacrebleu.corpus_bleu(v, refs).score, 2) for k, v in systems.items()}


def dev_pairs(data: Path, n: int) -> tuple[list[str], list[str]]:
    """`dev/opensubtitles` 401-(400+n) of the first half, English and Italian, empty English
    lines left out (as experiments/dubbing/rank_signal.py and the earlier runs)."""
    base = data / f"en-{LANG}" / "dev" / "opensubtitles"
    en = base.with_suffix(".en").read_text(encoding="utf-8").splitlines()
    it = base.with_suffix(f".{LANG}").read_text(encoding="utf-8").splitlines()
    half = len(en) // 2
    pairs = [
        (e, i)
        for e, i in zip(en[:half][400 : 400 + n], it[:half][400 : 400 + n], strict=True)
        if e.strip()
    ]
    return [e for e, _ in pairs], [i for _, i in pairs]


def check_festival(festival: Festival, texts: Sequence[str]) -> float:
    """The largest difference (s) between the one-process timing and `festival_raw_seconds`."""
    return max(abs(festival.raw(t) - festival_raw_seconds(t)) for t in texts)


def print_table(results: list[dict[str, Any]]) -> None:
    rows = [
        ("pick lands", "pick"),
        ("rank: a path candidate lands, inside the syllable window", "rank:in-window"),
        ("rank: a path candidate lands, outside the syllable window", "rank:window"),
        ("ask: only a candidate at another length lands (in window)", "ask:in-window"),
        ("ask: only a candidate at another length lands (out of window)", "ask:window"),
        (
            "  (kept out by the window's shape: syllables within ±15 % of its target)",
            "window:shape",
        ),
        ("  (kept out by the estimate: syllables further off, festival within)", "window:estimate"),
        ("model: none lands, all too long", "model:too-long"),
        ("model: none lands, all too short", "model:too-short"),
        ("model: none lands, over and under", "model:straddle"),
        ("  (model lines where a candidate the gate rejects lands)", "model:gated"),
        ("model: festival speaks none of its candidates", "model:unmeasured"),
        ("(picks festival writes no audio for)", "pick:unmeasured"),
    ]
    head = "| class | " + " | ".join(f"{r['set']} ({r['lines']})" for r in results) + " |"
    print(head)
    print("|---|" + "---|" * len(results))
    for label, key in rows:
        cells = [f"{r['counts'].get(key, 0)} ({r['percent'].get(key, 0.0):.1f} %)" for r in results]
        print(f"| {label} | " + " | ".join(cells) + " |")
    cells = [
        f"{r['over_budget']} / {r['lines_with_an_acceptable_candidate_in_the_window']}"
        for r in results
    ]
    print(
        "| over-budget flags / lines with an acceptable candidate in the window | "
        + " | ".join(cells)
        + " |"
    )
    for label, keys in (
        ("shipped (pick)", ("pick",)),
        ("espeak-ng's closest of the path's candidates, window ignored", ("espeak:lands",)),
        ("... that line within the band by espeak-ng itself", ("espeak:self",)),
        ("oracle over the path's candidates", ("pick", "rank")),
        ("oracle over every length asked", ("pick", "rank", "ask")),
        ("... its quality estimate no worse than the pick's", ("quality:kept",)),
        ("both voices: a path candidate lands by both", ("both:path",)),
        ("both voices: some candidate at any length", ("both:path", "both:ask")),
    ):
        cells = [f"{sum(r['percent'].get(k, 0.0) for k in keys):.1f} %" for r in results]
        print(f"| {label} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", type=Path)
    ap.add_argument("--lines", type=int, default=160, help="dev lines (0: the scene alone)")
    ap.add_argument("--rank-by", default="speech", choices=("speech", "estimate"))
    ap.add_argument("--nbest", type=int, default=8, help="n-best of each extra ask")
    ap.add_argument("--margin", type=float, default=1.5)
    ap.add_argument("--json", type=Path, default=None, help="per-line results (not committed)")
    args = ap.parse_args()
    started = time.perf_counter()
    speech = SpeechBudgeter("seconds", lang=LANG)
    results: list[dict[str, Any]] = []
    per_line: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="fitsub-gap-") as tmp_name:
        tmp = Path(tmp_name)
        festival = Festival(tmp)
        judge = Judge(festival, Espeak(), args.margin)
        sets: list[tuple[str, Path, list[str] | None]] = [("scene", SCENE, None)]
        if args.lines > 0:
            en, it = dev_pairs(args.data, args.lines)
            dev = tmp / "dialogue.en.txt"
            dev.write_text("\n".join(en) + "\n", encoding="utf-8")
            sets.append(("dev", dev, it))
        for name, src, refs in sets:
            t0 = time.perf_counter()
            rec = Recorder()
            out = tmp / f"{name}.{LANG}{src.suffix}"
            run_pipeline(src, out, args.rank_by, rec)
            t1 = time.perf_counter()
            lines = collect(src, out, rec, refs)
            if name == "scene":
                diff = check_festival(festival, [x.pick for x in lines[:5]])
                print(f"festival in one process against festival_raw_seconds: max {diff:.4f} s")
            calls = festival.calls
            sweep = classify(lines, rec, judge, speech, args.nbest)
            t2 = time.perf_counter()
            res = summary(name, lines, Path(str(out) + ".report.json"), judge, speech)
            res |= sweep | {
                "translate_s": round(t1 - t0, 1),
                "classify_s": round(t2 - t1, 1),
                "festival_calls": festival.calls - calls,
            }
            if refs is not None:
                res["bleu"] = bleu(lines)
            results.append(res)
            per_line[name] = [
                {
                    "source": x.source,
                    "pick": x.pick,
                    "class": x.klass,
                    "detail": x.detail,
                    "both": x.both,
                    "landed": x.landed,
                    "kept": x.kept,
                    "quality": x.quality,
                    "ratios": [round(r, 3) for r in x.ratios],
                    "path": len(x.path),
                    "sweep": len(x.sweep),
                    "candidates": candidates(x, judge, speech),
                }
                for x in lines
            ]
            print(json.dumps(res, ensure_ascii=False), flush=True)
        festival.close()
    discord = [max(f / e, e / f) for f, e in judge.pairs.values()]
    for text, (f, e) in judge.pairs.items():
        if max(f / e, e / f) > args.margin:
            print(f"  festival {f:.2f} espeak-ng {e:.2f}: {text}", file=sys.stderr)
    print(
        f"festival calls {festival.calls} ({festival.seconds:.0f} s); espeak-ng's ratio used "
        f"for {judge.skipped} far candidates (margin x {args.margin}); festival ÷ espeak-ng "
        f"over {len(discord)} timed lines: beyond x {args.margin} for "
        f"{sum(d > args.margin for d in discord)}, largest x {max(discord, default=1):.2f}"
    )
    print_table(results)
    print(f"total {time.perf_counter() - started:.0f} s")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps({"results": results, "lines": per_line}, ensure_ascii=False, indent=1),
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
