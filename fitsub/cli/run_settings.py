"""The run's settings, recorded beside its output for `fitsub review --serve`.

`fitsub translate --review page.html` writes `OUT.fitsub.json` next to the translated file
`OUT`: the resolved options (language, model, profile, glossary, dictionary terms, ratio,
limits, unit, dubbing ranking, beam, length policy) as `fitsub translate` flags, the source and
the review page. `fitsub review --serve OUT` reads it back into the same `TranslateFlags`, so
one segment is re-translated as the run translated it (a record without `rank_by`, written
before it: the estimate; without `terms`: no dictionary terms). The paths are absolute; the
file is written atomically.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fitsub.cli.translation import Run, TranslateFlags
from fitsub.errors import InputError
from fitsub.io.atomic import atomic_write_text
from fitsub.review.strict_json import loads

VERSION = 1
SUFFIX = ".fitsub.json"


def settings_path(output: Path) -> Path:
    """`talk.it.srt` → `talk.it.srt.fitsub.json`."""
    return output.with_name(output.name + SUFFIX)


def _absolute(path: Path | None) -> str | None:
    return None if path is None else str(Path(path).resolve())


def run_flags(run: Run) -> dict[str, Any]:
    """The flags that make `fitsub translate` run as `run` did (the resolved values)."""
    opts, speech = run.opts, run.opts.speech
    ratio_given = speech is None  # a speech unit takes its ratio from the profile, not a flag
    return {
        "lang": run.lang,
        "src_lang": run.src_lang,
        "profile": run.profile,
        "ratio": opts.ratio if ratio_given else None,
        "min_ratio": opts.min_ratio if ratio_given else None,
        "cpl": opts.limits.cpl,
        "lines": opts.limits.lines,
        "cps": opts.limits.cps,
        "unit": None if speech is None else speech.unit,
        "isochrony": "source" if speech is None else speech.isochrony,
        "speech_rate": None if speech is None else speech.rate,
        "rank_by": "estimate" if speech is None else speech.rank_by,
        "model": _absolute(run.model),
        "beam": run.beam,
        "glossary": _absolute(run.glossary),
        "terms": run.terms,
        "per_cue": run.per_cue,
        "length_policy": run.length_policy,
        "length_predictor": _absolute(run.length_predictor),
        "quality_threshold": run.quality_threshold,
        "fmt": run.fmt,
        "encoding_in": run.encoding,
    }


def write_run_settings(run: Run, *, src: Path, out: Path, review: Path) -> Path:
    """Write `OUT.fitsub.json` (module docstring); return its path."""
    path = settings_path(out)
    record = {
        "fitsub_run_settings": VERSION,
        "source": _absolute(src),
        "output": _absolute(out),
        "review": _absolute(review),
        "flags": run_flags(run),
    }
    atomic_write_text(path, json.dumps(record, ensure_ascii=False, indent=1) + "\n")
    return path


_PATHS = ("model", "glossary", "length_predictor")


def read_run_settings(
    output: Path, *, device: str, threads: int | None
) -> tuple[TranslateFlags, Path]:
    """The `TranslateFlags` recorded beside `output`, and the review page's path; an
    `InputError` (one line) when the file is missing or is not such a record."""
    path = settings_path(output)
    if not path.is_file():
        raise InputError(
            path, "no run settings: translate with --review PAGE.html first (it writes this file)"
        )
    record = loads(path.read_text(encoding="utf-8"), path, "a fitsub run-settings file")
    if not isinstance(record, dict) or record.get("fitsub_run_settings") != VERSION:
        raise InputError(path, "not a fitsub run-settings file of this version")
    given = dict(record["flags"])
    for key in _PATHS:
        given[key] = None if given.get(key) is None else Path(given[key])
    flags = TranslateFlags(
        **given,
        inputs=[Path(record["source"])],
        output=output,
        out_dir=None,
        device=device,
        threads=threads,
        compare=True,
        report=None,
        review=None,
        table_format="tsv",
        wide=False,
        strict=False,
        quiet=True,
    )
    return flags, Path(record["review"])
