"""README.md as a newcomer reads it: its excerpt is the demo's real output, and every command in
its "Three commands" block runs as written from a fresh clone after `make demo` (the shipped
models, the repository's samples, writing under build/ only)."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "readme_excerpt", ROOT / "tools/readme_excerpt.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_excerpt_is_what_the_demo_prints(tmp_path: Path) -> None:
    """Fails when a model, the table or the pipeline changed what the demo prints: rerun
    `make readme` (tools/readme_excerpt.py)."""
    tool = _tool()
    readme = README.read_text(encoding="utf-8")
    block = tool.excerpt(tool.demo_output(tmp_path))
    assert tool.with_excerpt(readme, block) == readme, "run: make readme"
    assert "│ 1  │" in block and "within budget:" in block  # the table and the summary


def test_the_excerpt_tool_replaces_only_its_block() -> None:
    tool = _tool()
    text = f"intro\n{tool.START}\nold\n{tool.END}\noutro\n"
    assert tool.with_excerpt(text, "new") == f"intro\n{tool.START}\nnew\n{tool.END}\noutro\n"


def _commands() -> list[str]:
    """The shell lines of the README's code block under "## Three commands"."""
    section = README.read_text(encoding="utf-8").split("## Three commands", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block is not None
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_every_readme_command_runs_as_written_after_make_demo(tmp_path: Path) -> None:
    """A fresh clone after `make demo`: the repository's samples and models, a `build/`; each
    command exits 0 and writes under build/ only."""
    clone = tmp_path / "clone"
    clone.mkdir()
    for name in ("samples", "models"):
        (clone / name).symlink_to(ROOT / name)
    (clone / "build").mkdir()
    commands = _commands()
    assert len(commands) == 3 and all(c.startswith(".venv/bin/fitsub ") for c in commands)
    fitsub = f"{shlex.quote(sys.executable)} -m fitsub"  # the test's own environment
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FITSUB_CONFIG": ""}
    for command in commands:
        done = subprocess.run(
            command.replace(".venv/bin/fitsub", fitsub, 1),
            shell=True,
            cwd=clone,
            env=env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, f"{command}\n{done.stderr[-800:]}"
    written = sorted(p.name for p in (clone / "build").iterdir())
    assert len(written) >= 3, written
    assert sorted(p.name for p in clone.iterdir()) == ["build", "models", "samples"]
