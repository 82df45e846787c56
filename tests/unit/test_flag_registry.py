"""The flag registry (`fitsub.quality.registry`) is each flag's one definition: the docs' tables
say what it says, every check it names exists, no other file of fitsub/ defines a flag's name,
severity or meaning, and the live recounts the review page ports give the Python's flags on the
shared cases (tests/fixtures/live_flags.json; the browser runs `checks.js` on the same cases)."""

from __future__ import annotations

import ast
import importlib
import json
import re
from pathlib import Path

from fitsub.quality.flags import segment_flags
from fitsub.quality.registry import (
    FLAG_NAMES,
    FLAGS,
    QUALITY_FLAGS,
    RECHECKED,
    SEVERITIES,
    severity_of,
)
from fitsub.review.page.live import page_checks

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "fitsub"
REGISTRY = PACKAGE / "quality" / "registry.py"
CASES = REPO / "tests" / "fixtures" / "live_flags.json"
# the registry's module-level names for the flags and the severities
NAME_CONSTANTS = {
    node.targets[0].id
    for node in ast.parse(REGISTRY.read_text("utf-8")).body
    if isinstance(node, ast.Assign)
    and isinstance(node.targets[0], ast.Name)
    and isinstance(node.value, ast.Constant)
    and node.value.value in FLAGS
}
SEVERITY_CONSTANTS = {"ERROR", "BUDGET", "TIMING", "NOTE"}


def table_rows(text: str, heading: str) -> list[list[str]]:
    """The cells of the table under `heading` (a Markdown section), header and rule left out."""
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows[1:]]


def test_the_docs_flag_table_is_the_registry() -> None:
    rows = table_rows((REPO / "docs" / "quality.md").read_text("utf-8"), "## The flags")
    assert [row[:3] for row in rows] == [
        [f"`{k.name}`", f"`{k.severity}`", k.meaning] for k in FLAGS.values()
    ]


def test_the_readme_says_what_each_quality_flag_means() -> None:
    rows = table_rows((REPO / "README.md").read_text("utf-8"), "## What the flags mean")
    said = {row[0].strip("`"): "the fitted line " + row[1] for row in rows}
    assert said == {name: FLAGS[name].meaning for name in FLAG_NAMES}


def test_every_flag_names_a_check_that_exists_and_a_known_severity() -> None:
    for kind in FLAGS.values():
        module, function = kind.check.split(":")
        assert callable(getattr(importlib.import_module(module), function)), kind.check
        assert kind.severity in SEVERITIES and severity_of(kind.name) == kind.severity
        assert kind.live_part == "" or kind.live is not None
    assert FLAG_NAMES == tuple(k.name for k in QUALITY_FLAGS)
    assert severity_of("a-flag-nobody-defined") == SEVERITIES[0]  # an unknown flag is an error
    assert RECHECKED == ("number-changed", "meaning-reversed", "untranslated")


def test_the_review_page_gets_the_registry() -> None:
    checks = page_checks("it")
    assert list(checks["flags"]) == list(FLAGS)
    for name, kind in FLAGS.items():
        sent = checks["flags"][name]
        assert (sent["severity"], sent["meaning"], sent["live"]) == (
            kind.severity,
            kind.meaning,
            kind.live,
        )
    assert checks["live"] == [[k.name, k.live] for k in QUALITY_FLAGS if k.live]


def second_definitions(source: str, label: str) -> list[str]:
    """Where Python `source` (the file `label`) writes a flag's name, meaning or severity: the
    name as a string, a meaning's text, a `FlagKind`, or a table keyed by a flag's constant that
    gives it a string or a severity."""
    meanings = [k.meaning for k in FLAGS.values()]
    found = []
    for node in ast.walk(ast.parse(source)):
        where = f"{label}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in FLAGS or any(m in node.value for m in meanings):
                found.append(f"{where} {node.value[:60]!r}")
        elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith("FlagKind"):
            found.append(f"{where} FlagKind(...)")
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                keyed = isinstance(key, ast.Name) and key.id in NAME_CONSTANTS
                said = (isinstance(value, ast.Constant) and isinstance(value.value, str)) or (
                    isinstance(value, ast.Name) and value.id in SEVERITY_CONSTANTS
                )
                if keyed and said:
                    found.append(f"{where} {{{key.id}: {ast.unparse(value)}}}")
    return found


def test_no_other_file_defines_a_flag() -> None:
    assert len(NAME_CONSTANTS) == len(FLAGS)
    found = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != REGISTRY
        for hit in second_definitions(path.read_text("utf-8"), str(path.relative_to(REPO)))
    ]
    meanings = [k.meaning for k in FLAGS.values()]
    quoted = re.compile("[\"'](" + "|".join(map(re.escape, FLAGS)) + ")[\"']")
    for path in sorted(p for ext in ("js", "css", "html") for p in PACKAGE.rglob(f"*.{ext}")):
        text = path.read_text("utf-8")
        found += [f"{path.relative_to(REPO)} {m.group(0)}" for m in quoted.finditer(text)]
        found += [f"{path.relative_to(REPO)} {m!r}" for m in meanings if m in text]
    assert found == [], "flag metadata defined outside fitsub/quality/registry.py"


def test_the_scan_finds_a_second_definition() -> None:
    source = (
        "from fitsub.quality.registry import BUDGET, OVER_BUDGET, TOO_SHORT\n"
        "SEVERITY = {OVER_BUDGET: BUDGET}\n"
        "NAME = 'cut-word'\n"
        "COUNTS = {TOO_SHORT: summary.too_short}\n"  # counts keyed by a flag define nothing
        f"SAID = 'in short: {FLAGS['too-short'].meaning}'\n"
    )
    found = [hit.split(" ", 1)[1] for hit in second_definitions(source, "probe.py")]
    assert found[:2] == ["{OVER_BUDGET: BUDGET}", "'cut-word'"]
    assert len(found) == 3 and found[2].startswith("'in short: the cue is on screen")


def test_the_python_checks_give_the_shared_live_cases() -> None:
    cases = json.loads(CASES.read_text("utf-8"))["cases"]
    assert (
        len(cases) >= 15 and any(c["flags"] for c in cases) and any(not c["flags"] for c in cases)
    )
    live = {k.name for k in QUALITY_FLAGS if k.live}
    for case in cases:
        flags = segment_flags(
            case["source"], case["edited"], case["unconstrained"], None, tgt_lang=case["lang"]
        )
        assert [[f.name, f.detail] for f in flags if f.name in live] == case["flags"], case


def test_the_dub_check_flags_are_registered_once() -> None:
    from fitsub.dubbing import check

    for name, ratio in (("too-long-to-speak", 1.2), ("too-short-to-speak", 0.8)):
        assert name in FLAGS and FLAGS[name].severity == "budget"
        assert check.flag_for(ratio) == name  # dub-check's flag is the registry's name
        assert f"{round(100 * check.TOLERANCE)} %" in FLAGS[name].meaning
    assert check.TOO_LONG is FLAGS["too-long-to-speak"].name
    assert check.TOO_SHORT is FLAGS["too-short-to-speak"].name
