"""How the command line is put together: one table of commands, built only when needed, and
one way of showing an error."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run

from fitsub.cli import COMMANDS, PANELS, command_function
from fitsub.cli.console import error_text
from fitsub.errors import FitsubError, InputError

# torch, transformers and the model code; not `fitsub.lengthpred.policy` (names, no model)
HEAVY = ("torch", "transformers", "fitsub.nmt", "fitsub.nat", "fitsub.hf", "fitsub.train")
HEAVY += ("fitsub.lengthpred.predictor", "fitsub.lengthpred.model")


def imported_by(args: list[str]) -> set[str]:
    """The top modules (and fitsub's model packages) a fresh `fitsub ARGS` run imports."""
    code = (
        "import sys\nfrom fitsub.cli import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "Usage: " in done.stdout
    return {m for m in done.stderr.split() if m.startswith(HEAVY)}


@pytest.mark.parametrize(
    "args",
    [["--help"], ["translate", "--lang", "it", "--help"], ["budget", "--lang", "it", "--help"]],
)
def test_help_imports_no_model_code(args: list[str]) -> None:
    assert imported_by(args) == set()


def test_train_help_imports_no_torch() -> None:
    """`train --help` reads its defaults from the torch-free configs (`fitsub.nmt.config`,
    `fitsub.train.config`) and imports nothing else of the model code."""
    assert imported_by(["train", "--help"]) == {
        "fitsub.nmt",
        "fitsub.nmt.config",
        "fitsub.train",
        "fitsub.train.config",
    }


def test_help_lists_every_command_with_its_docstring_summary(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(["--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    for name, (_, summary) in COMMANDS.items():
        doc = inspect.getdoc(command_function(name)) or ""
        assert " ".join(doc.split("\n\n")[0].split()) == summary
        assert f"{name} {summary.split()[0]}" in shown.replace("│", "").replace("  ", " ")


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_has_its_own_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run([name, "--help"]) == 0
    out = capsys.readouterr().out
    assert f" {name} [OPTIONS]" in " ".join(out.split())  # after the program's name


def test_help_lists_the_commands_in_panels_translate_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`fitsub --help`: the panels Translate, Models, Evaluate in that order, `translate` the
    first command, each command inside its own panel, and no command left outside a panel."""
    assert run(["--help"]) == 0
    lines = [line.strip("│╭╮╰╯─ ") for line in capsys.readouterr().out.splitlines()]
    panels = [
        line for line in lines if line in {"Options", "Commands", "Translate", "Models", "Evaluate"}
    ]
    assert panels == ["Options", "Translate", "Models", "Evaluate"]
    listed = [line.split()[0] for line in lines if line and line.split()[0] in COMMANDS]
    assert listed[0] == "translate"
    assert sorted(listed) == sorted(COMMANDS)  # each once: none in the default panel
    for panel, names in PANELS:
        start = lines.index(panel)
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i] in dict(PANELS)), len(lines)
        )
        inside = [
            line.split()[0] for line in lines[start:end] if line and line.split()[0] in COMMANDS
        ]
        assert inside == [name for name in names if name in COMMANDS]


def test_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["tranlsate", "x.srt"]) == 2
    err = " ".join(capsys.readouterr().err.replace("│", " ").split())
    assert "No such command 'tranlsate'. Did you mean 'translate'?" in err


def test_errors_name_settings_by_their_flags() -> None:
    err = InputError("a.txt", "must be at least 1, got 0", line=3, setting="max_segments")
    assert error_text(err) == "a.txt:3: --max-segments must be at least 1, got 0"
    assert str(err) == "a.txt:3: max_segments must be at least 1, got 0"  # Python callers
    assert error_text(FitsubError("broken")) == "broken"
    assert error_text(ValueError("odd")) == "ValueError: odd"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--device", "gpu"], "fitsub: error: --device must be auto, cpu or cuda, got 'gpu'"),
        (["--ratio", "0"], "fitsub: error: --ratio must be positive, got 0.0"),
        (["--cpl", "-1"], "fitsub: error: --cpl must be positive, got -1"),
        (["--min-ratio", "2"], "fitsub: error: --min-ratio must be in (0, --ratio], got 2.0"),
    ],
)
def test_bad_values_are_one_line_naming_the_flag(
    tmp_path: Path, flags: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "a.srt"
    src.write_text("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", "utf-8")
    assert run(["translate", "--lang", "it", str(src), *flags]) == 2
    assert capsys.readouterr().err.strip() == message
    assert not (tmp_path / "a.it.srt").exists()


def test_core_setting_errors_show_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, hyp, ref = (tmp_path / n for n in ("t.en", "t.hyp", "t.it"))
    for path in (src, hyp, ref):
        path.write_text("one line\n", "utf-8")
    args = ["eval", "--src", str(src), "--hyp", str(hyp), "--ref", str(ref), "--lang", "it"]
    args += ["--json", "-"]
    assert run([*args, "--max-segments", "0"]) == 2
    assert (
        capsys.readouterr().err.strip() == "fitsub: error: --max-segments must be at least 1, got 0"
    )
    assert run(args) == 0
    assert json.loads(capsys.readouterr().out)["rows"][0]["metrics"]["n"] == 1
