"""Translate a test set under each setting and score it (`fitsub eval`); tables and JSON.

A setting is one way of translating: a model, a mode ("unconstrained": no length asked;
"length": `Request.target_chars` = floor(ratio × source chars); "hard": the same length also
enforced as `Request.max_chars`; "band": also a lower bound of 90 % of that length; "iso":
IWSLT 2022's isometric band, characters without spaces within ±10 % of ratio × the source's,
the unit and window of its length compliance LC) and a ratio. Translation streams in batches and keeps only
the output strings, so 2,000 segments cost a few hundred kB beyond the model. The metrics
themselves live in `fitsub.metrics`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from fitsub.backend import Request, TranslationBackend
from fitsub.budget import Limits
from fitsub.errors import InputError
from fitsub.io import read_text_lines
from fitsub.lengthpred.policy import check_policy
from fitsub.metrics import (
    RateResult,
    RatioStats,
    SettingMetrics,
    isometric_bounds,
    requested_chars,
    score,
    subtitle_compliance,
    variance,
)
from fitsub.units import char_length, ratio_chars_ceil

# "hyp": outputs given, not translated (scoring without a model).
Mode = Literal["unconstrained", "length", "hard", "band", "iso", "hyp"]
MODES: tuple[Mode, ...] = (
    "unconstrained",
    "length",
    "hard",
    "band",
    "iso",
)  # what --settings may name
BAND_LOW = 0.9  # "band": the lower bound is 90 % of the requested length (IWSLT 2022's ±10 %)
SUBTITLE_SUFFIXES = (".srt", ".vtt")
# (label, done, total): called after each translated batch.
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Setting:
    """One way of translating the test set; `name` labels its row in every table."""

    name: str
    mode: Mode
    ratio: float
    model_dir: Path | None = None
    policy: str = "source"  # the length asked: source (ratio × source), predicted or oracle

    def request(self, text: str, length: int | None = None) -> Request:
        """The backend request for one source segment under this setting (lengths in chars).

        `length`: the policy's length for this segment (None: floor(ratio × source chars)).
        "length" asks for it as it is; "hard" and "band" ask for it capped by the budget
        floor(ratio × source chars), which stays their hard limit (`fitsub.lengthpred.policy`).
        """
        if self.mode == "hyp":
            raise ValueError("a `hyp` setting scores given outputs; it translates nothing")
        if self.mode == "unconstrained":
            return Request(text)
        budget = requested_chars(text, self.ratio)
        target = budget if length is None else max(1, length)
        if self.mode == "length":
            return Request(text, target_chars=target)
        target = min(target, budget)
        if self.mode == "band":
            low = ratio_chars_ceil(BAND_LOW, target)
            return Request(text, target_chars=target, max_chars=budget, min_chars=low)
        if self.mode == "iso":
            low, high = isometric_bounds(text, self.ratio)
            return Request(text, target, max_chars=high, min_chars=low, bound_unit="char_no_space")
        return Request(text, target_chars=target, max_chars=budget)


def make_settings(
    modes: Sequence[str],
    ratios: Sequence[float],
    model_dirs: Sequence[Path],
    policies: Sequence[str] = ("source",),
) -> list[Setting]:
    """Every mode × length policy × ratio × model; names are `mode@ratio` (policy `source`) or
    `mode-policy@ratio`, prefixed `model/` when several. "unconstrained" asks for no length:
    it is made once, whatever the policies."""
    if not modes:
        raise InputError(None, f"no setting given; choose from {', '.join(MODES)}")
    for mode in modes:
        if mode not in MODES:
            raise InputError(None, f"unknown setting {mode!r}; choose from {', '.join(MODES)}")
    policies = [check_policy(p) for p in dict.fromkeys(policies)] or ["source"]
    if "iso" in modes and policies != ["source"]:
        raise InputError(
            None, "setting iso asks for its own band around the source: --length-policy source"
        )
    ratios = _check_ratios(ratios)
    dirs: list[Path | None] = list(model_dirs) if model_dirs else [None]
    names = [d.name if d is not None else "" for d in dirs]
    if len(set(names)) < len(names):
        names = [str(d) for d in dirs]
    out: list[Setting] = []
    for d, model_name in zip(dirs, names, strict=True):
        prefix = f"{model_name}/" if len(dirs) > 1 else ""
        for mode in dict.fromkeys(modes):
            for policy in ["source"] if mode == "unconstrained" else policies:
                tag = mode if policy == "source" else f"{mode}-{policy}"
                for ratio in ratios:
                    typed: Mode = mode  # type: ignore[assignment]
                    out.append(Setting(f"{prefix}{tag}@{ratio:g}", typed, ratio, d, policy))
    return out


def _check_ratios(ratios: Sequence[float]) -> list[float]:
    if not ratios:
        raise InputError(None, "no --ratio given")
    for r in ratios:
        if not r > 0:
            raise InputError(None, f"--ratio must be positive, got {r}")
    return list(dict.fromkeys(ratios))


@dataclass(frozen=True)
class TestSet:
    """The files of one test set: reference, and source and/or system output."""

    __test__ = False  # not a pytest class

    name: str
    ref: Path
    src: Path | None = None
    hyp: Path | None = None


def parse_testset(spec: str, src_lang: str, tgt_lang: str) -> TestSet:
    """`NAME=PREFIX` → source `PREFIX.<src_lang>`, reference `PREFIX.<tgt_lang>`."""
    name, sep, prefix = spec.partition("=")
    if not sep or not name or not prefix:
        raise InputError(None, f"--testset must be NAME=PREFIX, got {spec!r}")
    return TestSet(name, ref=Path(f"{prefix}.{tgt_lang}"), src=Path(f"{prefix}.{src_lang}"))


def is_subtitle(path: Path) -> bool:
    """Whether a file is read as subtitles (by its suffix)."""
    return path.suffix.lower() in SUBTITLE_SUFFIXES


@dataclass
class LoadedSet:
    """A test set in memory: aligned segment texts (lines of subtitles joined by a space)."""

    name: str
    refs: list[str]
    srcs: list[str] | None = None
    hyps: list[str] | None = None
    # Subtitle output only: per cue, the visible text (lines joined by "\n") and duration in ms.
    hyp_cues: list[tuple[str, int]] | None = None


def read_lines(path: Path) -> list[str]:
    """One segment per line of a UTF-8 text file (a BOM and the line ends removed)."""
    lines = read_text_lines(path)
    if not lines:
        raise InputError(path, "is empty")
    return lines


def read_cues(path: Path) -> list[tuple[str, int]]:
    """Per subtitle cue: its visible text (markup removed, lines joined by "\\n"), duration ms."""
    from fitsub.formats import read_document
    from fitsub.markup import visible_text

    if not path.is_file():
        raise InputError(path, "no such file")
    doc = read_document(path)
    if not doc.segments:
        raise InputError(path, "has no cues")
    return [(visible_text(seg.text, doc.format), seg.duration_ms or 0) for seg in doc.segments]


def _flat(text: str) -> str:
    return " ".join(part.strip() for part in text.split("\n") if part.strip())


def _texts(path: Path) -> tuple[list[str], list[tuple[str, int]] | None]:
    if is_subtitle(path):
        cues = read_cues(path)
        return [_flat(t) for t, _ in cues], cues
    return read_lines(path), None


def load_testset(ts: TestSet, max_segments: int | None = None) -> LoadedSet:
    """Read and align a test set's files; a count mismatch is an InputError naming both files."""
    refs, _ = _texts(ts.ref)
    srcs = hyps = None
    cues = None
    if ts.src is not None:
        srcs, _ = _texts(ts.src)
        _check_count(ts.src, len(srcs), ts.ref, len(refs))
    if ts.hyp is not None:
        hyps, cues = _texts(ts.hyp)
        _check_count(ts.hyp, len(hyps), ts.ref, len(refs))
    if max_segments is not None:
        if max_segments < 1:
            raise InputError(
                None, f"must be at least 1, got {max_segments}", setting="max_segments"
            )
        refs = refs[:max_segments]
        srcs = None if srcs is None else srcs[:max_segments]
        hyps = None if hyps is None else hyps[:max_segments]
        cues = None if cues is None else cues[:max_segments]
    return LoadedSet(ts.name, refs=refs, srcs=srcs, hyps=hyps, hyp_cues=cues)


def _check_count(path: Path, n: int, ref: Path, n_ref: int) -> None:
    if n != n_ref:
        unit = "cues" if is_subtitle(path) else "lines"
        raise InputError(path, f"has {n} {unit} but {ref} has {n_ref}; the files must align")


def sentencepiece_counter(model_dir: Path) -> Callable[[str], int] | None:
    """Pieces per text with the model's `spm.model` (None when the directory has none)."""
    spm_path = model_dir / "spm.model"
    if not spm_path.is_file():
        return None
    import sentencepiece

    proc = sentencepiece.SentencePieceProcessor(model_file=str(spm_path))

    def count(text: str) -> int:
        return len(proc.encode(text))

    return count


@dataclass(frozen=True)
class ScoreOptions:
    """Which metric groups to compute, BLEU's tokeniser and the subtitle limits (if any)."""

    quality: bool = True  # BLEU, BLEU*, chrF, buckets
    lengths: bool = True  # LR, VAR, LC, fit
    tokenize: str = "13a"
    limits: Limits | None = None


@dataclass(frozen=True)
class Row:
    """One test set × setting: its metrics and per-sentence out/src char ratios (for plots)."""

    testset: str
    setting: Setting
    metrics: SettingMetrics
    src_ratios: tuple[float, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the per-sentence ratios are left out)."""
        s = self.setting
        return {
            "testset": self.testset,
            "setting": s.name,
            "mode": s.mode,
            "policy": s.policy,
            "ratio": s.ratio,
            "model": None if s.model_dir is None else str(s.model_dir),
            "metrics": self.metrics.to_dict(),
        }


def score_row(
    data: LoadedSet,
    setting: Setting,
    outs: Sequence[str],
    options: ScoreOptions,
    count_subwords: Callable[[str], int] | None = None,
    cues: Sequence[tuple[str, int]] | None = None,
    requested: Sequence[int] | None = None,
) -> Row:
    """Score one output against the test set; with `cues` and limits, subtitle compliance too.

    `requested`: the lengths asked under a policy other than `source` (VAR req against them).
    """
    metrics = score(
        outs,
        data.refs,
        data.srcs,
        ratio=setting.ratio,
        count_subwords=count_subwords,
        quality=options.quality,
        lengths=options.lengths,
        tokenize=options.tokenize,
    )
    if cues is not None and options.limits is not None:
        lim = options.limits
        sub = subtitle_compliance(
            [t for t, _ in cues], [d for _, d in cues], lim.cpl, lim.lines, lim.cps
        )
        metrics = replace(metrics, subtitle=sub)
    if requested is not None and metrics.var_requested is not None:
        var = variance([char_length(o) for o in outs], list(requested), "char")
        metrics = replace(metrics, var_requested=var)
    ratios: tuple[float, ...] = ()
    if data.srcs is not None:
        ratios = tuple(
            char_length(o) / char_length(s)
            for o, s in zip(outs, data.srcs, strict=True)
            if char_length(s) > 0
        )
    return Row(data.name, setting, metrics, ratios)


def translate_all(
    backend: TranslationBackend,
    setting: Setting,
    srcs: Sequence[str],
    batch_size: int = 32,
    progress: Progress | None = None,
    label: str = "",
    lengths: Sequence[int] | None = None,
) -> list[str]:
    """Translate every source under `setting` in batches; empty sources give empty outputs.

    `lengths`: the setting's policy's length per source (None: ratio × source)."""
    if batch_size < 1:
        raise InputError(None, f"must be at least 1, got {batch_size}", setting="batch_size")
    outs: list[str] = []
    for start in range(0, len(srcs), batch_size):
        batch = srcs[start : start + batch_size]
        todo = [i for i, s in enumerate(batch) if s.strip()]
        asks = [
            setting.request(batch[i], None if lengths is None else lengths[start + i]) for i in todo
        ]
        got = backend.translate(asks) if todo else []
        if len(got) != len(todo) or any(not c for c in got):
            raise RuntimeError(f"backend {backend.name} returned no candidate for some requests")
        texts = [""] * len(batch)
        for i, cands in zip(todo, got, strict=True):
            texts[i] = cands[0].text
        outs.extend(texts)
        if progress is not None:
            progress(label or setting.name, len(outs), len(srcs))
    return outs


@dataclass
class EvalReport:
    """Rows of metrics (test set × setting) with run information; tables, JSON and markdown."""

    rows: list[Row]
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"meta": self.meta, "rows": [r.to_dict() for r in self.rows]}

    def to_json(self) -> str:
        """The report as indented JSON."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n"

    def signatures(self) -> list[str]:
        """The distinct sacrebleu signatures of the scores in the report."""
        sigs: dict[str, None] = {}
        for r in self.rows:
            if r.metrics.bleu is not None:
                sigs[f"BLEU: {r.metrics.bleu.signature}"] = None
            if r.metrics.chrf is not None:
                sigs[f"chrF: {r.metrics.chrf.signature}"] = None
        return list(sigs)

    def to_markdown(self) -> str:
        """GitHub-flavoured markdown: the main table, the bucket table and the signatures."""
        parts = [_md_table(*main_cells(self))]
        buckets = bucket_cells(self)
        if buckets[1]:
            parts.append("BLEU (LR) by reference length in 13a tokens (Oka et al. 2020, Table 3):")
            parts.append(_md_table(*buckets))
        notes = sorted({n for r in self.rows for n in r.metrics.notes})
        lines = [f"- {LEGEND}"] + [f"- {s}" for s in self.signatures()]
        lines += [f"- {n}" for n in notes]
        if lines:
            parts.append("\n".join(lines))
        return "\n\n".join(parts) + "\n"


LEGEND = (
    "LR src / LR ref: mean ± std of per-sentence output/source and output/reference lengths "
    "in characters; VAR req / VAR ref: mean squared difference (chars²) between the output "
    "length and the requested length floor(ratio × source chars) (or, under a length "
    "policy, the length it asked for) / the reference length; "
    "LC: IWSLT 2022 length compliance (chars without spaces within ±10 % of the source; "
    "sources of ≤ 10 chars comply); fit: output chars ≤ floor(ratio × source chars)."
)


def _pct(r: RateResult | None) -> str | None:
    return None if r is None or r.rate is None else f"{100 * r.rate:.1f}"


def _lr(r: RatioStats | None) -> str | None:
    if r is None or r.mean is None or r.std is None:
        return None
    return f"{r.mean:.3f} ± {r.std:.3f}"


def _num(x: float | None, digits: int = 2) -> str | None:
    return None if x is None else f"{x:.{digits}f}"


# Main table: header -> cell of one row (None: not computed). Columns empty in every row are
# dropped. LR are means ± std of per-sentence ratios; VAR in chars²; LC, fit and subtitle
# compliance in percent.
_COLUMNS: list[tuple[str, Callable[[SettingMetrics], str | None]]] = [
    ("n", lambda m: str(m.n)),
    ("BLEU", lambda m: _num(m.bleu.score) if m.bleu else None),
    ("BLEU*", lambda m: _num(m.bleu.bleu_star) if m.bleu else None),
    ("chrF", lambda m: _num(m.chrf.score) if m.chrf else None),
    ("LR src", lambda m: _lr(m.lr_src_chars)),
    ("LR ref", lambda m: _lr(m.lr_ref_chars)),
    ("LR src (subw.)", lambda m: _lr(m.lr_src_subwords)),
    ("LR ref (subw.)", lambda m: _lr(m.lr_ref_subwords)),
    ("VAR req", lambda m: _num(m.var_requested.value, 1) if m.var_requested else None),
    ("VAR ref", lambda m: _num(m.var_ref.value, 1) if m.var_ref else None),
    ("LC %", lambda m: _pct(m.lc)),
    ("fit %", lambda m: _pct(m.fit)),
    ("CPL %", lambda m: _pct(m.subtitle.cpl) if m.subtitle else None),
    ("lines %", lambda m: _pct(m.subtitle.lines) if m.subtitle else None),
    ("CPS %", lambda m: _pct(m.subtitle.cps) if m.subtitle else None),
]


def _lead(report: EvalReport) -> tuple[list[str], list[list[str]]]:
    several = len({r.testset for r in report.rows}) > 1
    headers = (["test set"] if several else []) + ["setting"]
    lead = [([r.testset] if several else []) + [r.setting.name] for r in report.rows]
    return headers, lead


def main_cells(report: EvalReport) -> tuple[list[str], list[list[str]]]:
    """Headers and cells of the main table (one row per test set × setting)."""
    headers, rows = _lead(report)
    for header, cell in _COLUMNS:
        cells = [cell(r.metrics) for r in report.rows]
        if any(c is not None for c in cells):
            headers.append(header)
            for row, c in zip(rows, cells, strict=True):
                row.append("–" if c is None else c)
    return headers, rows


def bucket_cells(report: EvalReport) -> tuple[list[str], list[list[str]]]:
    """Headers and cells of the per-length table: `BLEU (LR)` per reference-length bucket."""
    scored = [r for r in report.rows if r.metrics.buckets is not None]
    if not scored:
        return [], []
    headers, rows = _lead(EvalReport(scored))
    several = len({r.testset for r in scored}) > 1
    first = scored[0].metrics.buckets or ()
    for b in first:
        headers.append(f"{b.label}" if several else f"{b.label} ({b.n})")
    for row, r in zip(rows, scored, strict=True):
        for b in r.metrics.buckets or ():
            cell = "–" if b.bleu is None else f"{b.bleu:.2f} ({_num(b.lr, 3) or '–'})"
            row.append(f"{cell} n={b.n}" if several else cell)
    return headers, rows


def _md_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(cells) + " |" for cells in rows]
    return "\n".join(out)


def evaluate_models(
    testsets: Sequence[LoadedSet],
    settings: Sequence[Setting],
    open_backend: Callable[[Path | None], TranslationBackend],
    options: ScoreOptions = ScoreOptions(),
    subword_counter: Callable[[Path | None], Callable[[str], int] | None] | None = None,
    batch_size: int = 32,
    progress: Progress | None = None,
    predictor: Callable[[Path | None], Callable[[Sequence[str]], list[int]]] | None = None,
) -> EvalReport:
    """Translate each test set under each setting (one model loaded at a time) and score it.

    An unconstrained translation does not depend on the ratio: it is made once per model and
    test set and scored against each ratio. Length policies: `predicted` asks for the lengths
    `predictor(model_dir)` gives (in chars), `oracle` for the reference's length; the meta
    then holds the predictor's accuracy against the references (`predictor_accuracy`).
    """
    for data in testsets:
        if data.srcs is None:
            raise InputError(None, f"test set {data.name!r} has no source to translate")
    rows: dict[tuple[int, int], Row] = {}
    accuracy: dict[str, Any] = {}
    model_dirs = list(dict.fromkeys(s.model_dir for s in settings))
    for model_dir in model_dirs:
        backend = open_backend(model_dir)
        counter = subword_counter(model_dir) if subword_counter is not None else None
        predict = None
        if predictor is not None and any(
            s.policy == "predicted" for s in settings if s.model_dir == model_dir
        ):
            predict = predictor(model_dir)
        for ti, data in enumerate(testsets):
            assert data.srcs is not None
            unconstrained: list[str] | None = None
            lengths = _policy_lengths(data, predict)
            if predict is not None:
                key = data.name if len(model_dirs) == 1 else f"{model_dir}: {data.name}"
                accuracy[key] = _predictor_accuracy(data, lengths["predicted"])
            for si, setting in enumerate(settings):
                if setting.model_dir != model_dir:
                    continue
                label = f"{data.name}: {setting.name}" if len(testsets) > 1 else setting.name
                asked = lengths.get(setting.policy)
                if setting.policy != "source" and asked is None:
                    raise InputError(None, f"setting {setting.name}: no length predictor")
                if setting.mode == "unconstrained" and unconstrained is not None:
                    outs = unconstrained
                else:
                    outs = translate_all(
                        backend, setting, data.srcs, batch_size, progress, label, asked
                    )
                    if setting.mode == "unconstrained":
                        unconstrained = outs
                requested = None
                if asked is not None and setting.mode != "unconstrained":
                    requested = [
                        setting.request(s, n).target_chars or 0
                        for s, n in zip(data.srcs, asked, strict=True)
                    ]
                rows[(ti, si)] = score_row(
                    data, setting, outs, options, counter, requested=requested
                )
        del backend
    meta: dict[str, Any] = {
        "mode": "model",
        "testsets": [t.name for t in testsets],
        "n_settings": len(settings),
    }
    if accuracy:
        meta["predictor_accuracy"] = accuracy
    return EvalReport([rows[k] for k in sorted(rows)], meta)


def _policy_lengths(
    data: LoadedSet, predict: Callable[[Sequence[str]], list[int]] | None
) -> dict[str, list[int]]:
    """Per policy other than `source`, the length asked for each source (characters)."""
    assert data.srcs is not None
    out = {"oracle": [char_length(r) for r in data.refs]}
    if predict is not None:
        out["predicted"] = predict(data.srcs)
    return out


def _predictor_accuracy(data: LoadedSet, predicted: Sequence[int]) -> dict[str, Any]:
    """Predicted and source lengths against the references' (Oka et al. 2020, Table 2)."""
    from fitsub.lengthpred.training import accuracy

    assert data.srcs is not None
    keep = [i for i, s in enumerate(data.srcs) if s.strip() and data.refs[i].strip()]
    ref = [char_length(data.refs[i]) for i in keep]
    return {
        "unit": "char",
        "predicted": accuracy([predicted[i] for i in keep], ref).to_dict(),
        "src_len": accuracy([char_length(data.srcs[i]) for i in keep], ref).to_dict(),
    }


def evaluate_hyps(
    testsets: Sequence[LoadedSet],
    ratios: Sequence[float],
    options: ScoreOptions = ScoreOptions(),
    count_subwords: Callable[[str], int] | None = None,
) -> EvalReport:
    """Score existing outputs (no model): one setting `hyp` (`hyp@RATIO` when several ratios)."""
    ratios = _check_ratios(ratios)
    rows: list[Row] = []
    for data in testsets:
        if data.hyps is None:
            raise InputError(None, f"test set {data.name!r} has no system output (--hyp)")
        for ratio in ratios:
            name = "hyp" if len(ratios) == 1 else f"hyp@{ratio:g}"
            setting = Setting(name, "hyp", ratio)
            rows.append(score_row(data, setting, data.hyps, options, count_subwords, data.hyp_cues))
    meta = {"mode": "hyp", "testsets": [t.name for t in testsets]}
    return EvalReport(rows, meta)
