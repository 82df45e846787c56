"""What one `fitsub translate` does, resolved from its flags: the core's options and the rest."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fitsub.backend import TranslationBackend
from fitsub.cli.console import say
from fitsub.cli.models import open_model, with_policy
from fitsub.pipeline import TranslateOptions


@dataclass(frozen=True, kw_only=True)
class Run:
    """What one `fitsub translate` does, resolved from its flags and fitsub.toml."""

    opts: TranslateOptions
    meta: dict[str, Any]  # the run's settings, as the JSON report records them
    model: Path | None
    src_lang: str
    device: str
    beam: int
    threads: int | None
    fmt: str | None
    encoding: str | None
    report: Path | None
    strict: bool
    quiet: bool
    length_policy: str
    length_predictor: Path | None
    table_format: str
    wide: bool = False  # every column of the per-segment table, whatever the terminal's width

    @property
    def lang(self) -> str:
        """The target language."""
        return self.opts.lang

    def with_model(self) -> tuple[TranslateOptions, TranslationBackend]:
        """The options with their length policy, and the backend: loaded once per run."""
        opts = with_policy(
            self.opts,
            length_policy=self.length_policy,
            length_predictor=self.length_predictor,
            model=self.model,
            src_lang=self.src_lang,
            lang=self.lang,
        )
        backend = open_model(
            self.model,
            src_lang=self.src_lang,
            lang=self.lang,
            device=self.device,
            beam=self.beam,
            threads=self.threads,
        )
        for what in ("lexicon_note", "links_note", "engine_note"):  # each said once
            note = getattr(backend, what, None)
            if isinstance(note, str) and not self.quiet:
                say(f"note: {note}")
        return opts, backend
