"""Structure figures of the `fitsub` package: largest files, longest functions, import circles,
and the wall time of `fitsub --help` (median of 5 fresh processes).

    .venv/bin/python tools/structure.py            # figures
    .venv/bin/python tools/structure.py --no-help  # without the timing (no subprocesses)

Two import graphs: the design graph counts every import in a module (inside functions and under
`if TYPE_CHECKING:` too: a circle hidden by a deferred import is still a circle), the runtime
graph only the imports that run when the module is imported. tests/unit/test_structure.py asserts the
design graph has no circle.
"""

from __future__ import annotations

import argparse
import ast
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "fitsub"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING"
    )


def _top_level_imports(tree: ast.Module, with_type_checking: bool) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    stack: list[ast.stmt] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        elif isinstance(node, ast.If):
            if _is_type_checking(node) and not with_type_checking:
                stack.extend(node.orelse)
                continue
            stack.extend(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            stack.extend(node.body + node.orelse + node.finalbody)
            for h in node.handlers:
                stack.extend(h.body)
    return out


def import_graph(deferred: bool = True) -> dict[str, set[str]]:
    """Module → the fitsub modules it imports: every import anywhere in it (inside functions and
    under `TYPE_CHECKING` too: the dependencies of the design) when `deferred`, else only those
    that run when it is imported."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for mod, path in modules.items():
        is_pkg = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = (
            [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
            if deferred
            else _top_level_imports(tree, with_type_checking=False)
        )
        for node in nodes:
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    pkg = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    pkg = pkg[: len(pkg) - (node.level - 1)]
                    base = ".".join(pkg + ([base] if base else []))
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            for t in targets:
                if t in modules and t != mod:
                    graph[mod].add(t)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


# The layers (docs/development.md): a package on the left never imports one on the right.
# The model packages know nothing of training, evaluation, the pipeline or the CLI; `nmt` (the
# autoregressive Transformer) is the base that `nat` and the adapters build on, and the model
# families know nothing of each other (`hf` never imports `nat`); `fitsub.cli.registry` (which
# model `--model` names, and its loader) sits above them all, inside the CLI, so only the CLI
# opens models: the pipeline, training and evaluation are handed a backend. Training and evaluation are
# siblings; only the CLI and `fitsub.__main__` import the CLI. The budget (`fitsub.budget`) sits
# below the pipeline: it knows nothing of models, file formats or the quality checks.
MODELS = ("nmt", "nat", "hf", "lengthpred", "convert")
HIGHER = ("train", "eval", "pipeline", "review", "cli")
FORBIDDEN: dict[str, tuple[str, ...]] = {
    **{m: HIGHER for m in MODELS},
    "nmt": ("nat", "hf", "lengthpred", "convert", *HIGHER),
    "nat": ("hf", "lengthpred", "convert", *HIGHER),
    "hf": ("nat", *HIGHER),
    "metrics": (*MODELS, *HIGHER),
    "formats": (*MODELS, *HIGHER),
    "markup": (*MODELS, "formats", *HIGHER),
    "budget": (*MODELS, "formats", "quality", *HIGHER),
    "pipeline": ("train", "eval", "review", "cli"),
    "train": ("eval", "pipeline", "review", "cli"),
    "eval": ("train", "pipeline", "review", "cli"),
}


def script_graphs() -> dict[str, dict[str, set[str]]]:
    """For each folder of scripts (`experiments/<study>`, `bench`, `tools`, `recipes`): which of
    its own modules each module imports (by file name, as the scripts import one another)."""
    graphs: dict[str, dict[str, set[str]]] = {}
    folders = [
        *sorted((ROOT / "experiments").iterdir()),
        ROOT / "bench",
        ROOT / "tools",
        ROOT / "recipes",
    ]
    for folder in folders:
        mods = {p.stem: p for p in folder.glob("*.py")} if folder.is_dir() else {}
        graph: dict[str, set[str]] = {m: set() for m in mods}
        for m, path in mods.items():
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                names = [node.module] if isinstance(node, ast.ImportFrom) else []
                names += [a.name for a in node.names] if isinstance(node, ast.Import) else []
                graph[m].update(n for n in names if n in mods and n != m)
        if graph:
            graphs[folder.relative_to(ROOT).as_posix()] = graph
    return graphs


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def upward_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(importer, imported) pairs that break `FORBIDDEN`, and any import of `fitsub.cli` from
    outside it (bar `fitsub.__main__`)."""
    out = []
    for mod, deps in graph.items():
        here = _package(mod)
        for dep in deps:
            there = _package(dep)
            if there == here:
                continue
            if there in FORBIDDEN.get(here, ()) or (there == "cli" and mod != "fitsub.__main__"):
                out.append((mod, dep))
    return sorted(out)


def file_lengths() -> list[tuple[int, str]]:
    return sorted(
        (
            (len(p.read_text(encoding="utf-8").splitlines()), str(p.relative_to(ROOT)))
            for p in PACKAGE.rglob("*.py")
        ),
        reverse=True,
    )


def function_lengths() -> list[tuple[int, str]]:
    out = []
    for p in PACKAGE.rglob("*.py"):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno:
                n = node.end_lineno - node.lineno + 1
                out.append((n, f"{p.relative_to(ROOT)}:{node.lineno} {node.name}"))
    return sorted(out, reverse=True)


def _parameters(fn: ast.FunctionDef, method: bool) -> list[tuple[str, str]]:
    args = fn.args.posonlyargs + fn.args.args
    if method and args and args[0].arg in ("self", "cls"):
        args = args[1:]
    return [(a.arg, ast.unparse(a.annotation) if a.annotation else "") for a in args]


def signatures(sources: dict[str, str]) -> dict[str, list[list[tuple[str, str]]]]:
    """Name → the (parameter, annotation) lists of every function, method, class `__init__` and
    dataclass / NamedTuple (its fields) of that name in `sources` (path → text)."""
    out: dict[str, list[list[tuple[str, str]]]] = {}
    for text in sources.values():
        for node in ast.parse(text).body:
            if isinstance(node, ast.FunctionDef):
                out.setdefault(node.name, []).append(_parameters(node, method=False))
            if not isinstance(node, ast.ClassDef):
                continue
            fields: list[tuple[str, str]] = []
            init = None
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    if item.name == "__init__":
                        init = _parameters(item, method=True)
                    else:
                        out.setdefault(item.name, []).append(_parameters(item, method=True))
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    if "ClassVar" not in ast.unparse(item.annotation):
                        fields.append((item.target.id, ast.unparse(item.annotation)))
            shaped = [ast.unparse(d) for d in node.decorator_list + node.bases]
            if init is not None:
                out.setdefault(node.name, []).append(init)
            elif any("dataclass" in s or s == "NamedTuple" for s in shaped):
                out.setdefault(node.name, []).append(fields)
    return out


def wide_positional_calls(sources: dict[str, str], most: int = 4) -> list[str]:
    """`path:line name` of each call that passes more than `most` arguments by position to a
    function or class of `sources` when two of those parameters are declared with one type: two
    swapped arguments would pass the type check (they go by keyword). A name defined twice
    with different parameters is not judged."""
    known = signatures(sources)
    out = []
    for path, text in sources.items():
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.Call) or len(node.args) <= most:
                continue
            if any(isinstance(a, ast.Starred) for a in node.args):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            shapes = {tuple(s) for s in known.get(name or "", [])}
            if len(shapes) != 1:
                continue
            types = [t for _, t in next(iter(shapes))[: len(node.args)]]
            if any(t and types.count(t) > 1 for t in types):
                out.append(f"{path}:{node.lineno} {name}")
    return sorted(out)


def package_sources() -> dict[str, str]:
    """Each module of the package: its path (from the repository root) → its text."""
    return {
        str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
        for p in sorted(PACKAGE.rglob("*.py"))
    }


def help_time(runs: int = 5) -> float:
    exe = Path(sys.executable).with_name("fitsub")
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([str(exe), "--help"], check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-help", action="store_true", help="skip the `fitsub --help` timing")
    args = ap.parse_args()
    files = file_lengths()
    funcs = function_lengths()
    print("largest files:", ", ".join(f"{f} {n}" for n, f in files[:5]))
    print("files over 400 lines:", sum(1 for n, _ in files if n > 400))
    print("longest functions:", ", ".join(f"{f} {n}" for n, f in funcs[:5]))
    print("functions over 60 lines:", sum(1 for n, _ in funcs if n > 60))
    print(f"import circles at import time: {len(circles(import_graph(deferred=False)))}")
    found = circles(import_graph(deferred=True))
    print(f"import circles, deferred imports included: {len(found)}")
    scripts = {d: c for d, g in script_graphs().items() if (c := circles(g))}
    print(f"import circles among the scripts (experiments, bench, tools, recipes): {len(scripts)}")
    for c in found:
        print("  ", " ↔ ".join(c))
    upward = upward_imports(import_graph(deferred=True))
    print(f"imports that run back up the layers: {len(upward)}")
    for a, b in upward:
        print("  ", a, "→", b)
    wide = wide_positional_calls(package_sources())
    print(f"calls with over four positional arguments, two of one type: {len(wide)}")
    for call in wide:
        print("  ", call)
    if not args.no_help:
        print(f"fitsub --help: {help_time():.3f} s (median of 5)")


if __name__ == "__main__":
    main()
