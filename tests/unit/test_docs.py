"""Docs that tests keep true: docs/development.md's module table names every module of fitsub/
and nothing that does not exist; the README stays a five-minute read; the guides tell what
fitsub does, not the project's history."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TOKEN = re.compile(r"`([^`]+)`")


def _expand(token: str) -> list[str]:
    """`a/{b,c}.py` → [`a/b.py`, `a/c.py`]."""
    m = re.search(r"\{([^}]*)\}", token)
    if m is None:
        return [token]
    return [
        x
        for part in m.group(1).split(",")
        for x in _expand(token[: m.start()] + part.strip() + token[m.end() :])
    ]


def table_modules(text: str) -> set[str]:
    """The .py files the module table's rows name: a path without `fitsub/` is inside it, a bare
    file name sits in the folder of the name before it (`cli/translate.py`, `translation.py`)."""
    names: set[str] = set()
    for line in text.splitlines():
        if not line.startswith("| `"):
            continue
        folder = "fitsub"
        for token in TOKEN.findall(line.split("|")[1]):
            for name in _expand(token.strip()):
                if not name.endswith(".py") or "*" in name:
                    continue
                if "/" not in name:
                    name = f"{folder}/{name}"
                elif not name.startswith("fitsub/"):
                    name = f"fitsub/{name}"
                folder = name.rsplit("/", 1)[0]
                names.add(name)
    return names


def package_modules() -> set[str]:
    """Every module of fitsub/ a reader needs to find: all but `__main__.py` and the `__init__.py`
    files that only name their package (no function or class of their own)."""
    out = set()
    for path in (REPO / "fitsub").rglob("*.py"):
        rel = path.relative_to(REPO).as_posix()
        if path.name == "__main__.py":
            continue
        if path.name == "__init__.py" and not re.search(
            r"^(def|class) ", path.read_text("utf-8"), re.M
        ):
            continue
        out.add(rel)
    return out


def test_the_module_table_names_every_module_and_no_other() -> None:
    named = table_modules((REPO / "docs" / "development.md").read_text("utf-8"))
    modules = package_modules()
    assert sorted(modules - named) == [], "modules missing from docs/development.md's table"
    ghosts = sorted(n for n in named if not (REPO / n).is_file())
    assert ghosts == [], "docs/development.md names modules that do not exist"


def test_the_readme_is_a_five_minute_read() -> None:
    words = len((REPO / "README.md").read_text("utf-8").split())
    assert words <= 900, f"README.md has {words} words"


def test_the_guides_tell_no_work_history() -> None:
    history = re.compile(r"\bissue \d+|\bsession \d+|\bissues? #?\d+", re.I)
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    found = [
        f"{p.name}: {m.group(0)}" for p in pages for m in history.finditer(p.read_text("utf-8"))
    ]
    assert found == []


def test_the_results_index_lists_every_page() -> None:
    results = REPO / "docs" / "results"
    index = (results / "README.md").read_text("utf-8")
    missing = [
        p.name
        for p in sorted(results.glob("*.md"))
        if p.name != "README.md" and f"({p.name})" not in index
    ]
    assert missing == []
