"""The package's shape (issue 16): no import circle, deferred and TYPE_CHECKING imports included,
and no module over 400 lines. The figures come from tools/structure.py, which prints them."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _structure() -> ModuleType:
    spec = importlib.util.spec_from_file_location("structure", ROOT / "tools" / "structure.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_import_circle_in_the_package() -> None:
    s = _structure()
    graph = s.import_graph(deferred=True)
    assert "fitsub.pipeline" in graph and "fitsub.units" in graph["fitsub.pipeline.work"]
    assert s.circles(graph) == []


def test_no_import_runs_back_up_the_layers() -> None:
    s = _structure()
    graph = s.import_graph(deferred=True)
    assert "fitsub.train.loop" in graph and "fitsub.nmt.model" in graph["fitsub.train.loop"]
    assert s.upward_imports(graph) == []


def test_the_layer_check_finds_an_upward_import() -> None:
    s = _structure()
    graph = {
        "fitsub.nmt.model": {"fitsub.train.loop", "fitsub.units"},
        "fitsub.train.loop": {"fitsub.nmt.model", "fitsub.cli.train"},
        "fitsub.__main__": {"fitsub.cli"},
        "fitsub.cli": {"fitsub.cli.train"},
        "fitsub.cli.eval": {"fitsub.cli.registry"},  # only the CLI opens models
        "fitsub.cli.registry": {"fitsub.nat.backend", "fitsub.hf.backend"},
        "fitsub.hf.backend": {"fitsub.nat.backend"},  # one model family importing another
        "fitsub.train.distill": {"fitsub.cli.registry"},
    }
    assert s.upward_imports(graph) == [
        ("fitsub.hf.backend", "fitsub.nat.backend"),
        ("fitsub.nmt.model", "fitsub.train.loop"),
        ("fitsub.train.distill", "fitsub.cli.registry"),
        ("fitsub.train.loop", "fitsub.cli.train"),
    ]


def test_no_call_passes_same_typed_arguments_by_position() -> None:
    s = _structure()
    sources = s.package_sources()
    assert "Run" in s.signatures(sources) and "beam_search" in s.signatures(sources)
    assert s.wide_positional_calls(sources) == []


def test_the_call_check_finds_a_wide_positional_call() -> None:
    s = _structure()
    sources = {
        "a.py": "def cut(text: str, lang: str, most: int, least: int, ratio: float) -> str: ...\n"
        "def mix(a: int, b: str, c: float, d: bytes, e: bool) -> None: ...\n",
        "b.py": "cut(t, 'it', 5, 3, 0.9)\ncut(t, 'it', most=5, least=3, ratio=0.9)\n"
        "mix(1, 'a', 2.0, b'', True)\n",  # five positional, no two of one type: fine
    }
    assert s.wide_positional_calls(sources) == ["b.py:1 cut"]


def test_no_import_circle_among_the_scripts() -> None:
    s = _structure()
    graphs = s.script_graphs()
    assert "experiments/quality-estimation" in graphs and "bench" in graphs
    assert {d: s.circles(g) for d, g in graphs.items() if s.circles(g)} == {}


def test_the_circle_finder_finds_a_circle() -> None:
    s = _structure()
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert s.circles(graph) == [["a", "b", "c"]]


def test_no_module_over_400_lines() -> None:
    longest = _structure().file_lengths()
    assert len(longest) > 90
    assert [(n, f) for n, f in longest if n > 400] == []
