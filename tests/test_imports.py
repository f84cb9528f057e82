"""The import graph of ``app``: no cycle, counting the imports made for type checking only.

The graph is read from the source (``ast``), not from ``sys.modules``: every ``import`` and
``from ... import`` anywhere in a module, inside ``if TYPE_CHECKING:`` and inside functions
too, is an edge from the module to the ``app`` module it names. ``from pkg import name``
is an edge to ``pkg.name`` when that is a module, else to ``pkg`` (its ``__init__``).
A module is not counted as importing its own package's ``__init__`` through a relative
import of a sibling (``from . import x`` names ``x``, not the package).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app"


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(root: Path, package: str) -> dict[str, Path]:
    return {_module_name(root, p): p for p in sorted((root / package).rglob("*.py"))}


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute name of ``from <level dots><name> import ...`` written in ``module``."""
    if level == 0:
        return name or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def import_graph(root: Path = ROOT, package: str = "app") -> dict[str, set[str]]:
    """Each module of ``package`` (a directory under ``root``) and the modules of
    ``package`` it imports."""
    modules = _modules(root, package)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(module, is_package, node.level, node.module)
                for alias in node.names:
                    sub = f"{base}.{alias.name}" if base else alias.name
                    targets.append(sub if sub in modules else base)
            for target in targets:
                # ``import app.a.b`` names app.a.b (and runs app and app.a: packages
                # whose ``__init__`` a module cannot avoid, so not counted as its edges).
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                inside = target == package or target.startswith(package + ".")
                if inside and target != module:
                    graph[module].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path that ends where it starts, or None."""
    white, grey, black = 0, 1, 2
    colour = dict.fromkeys(graph, white)
    for root in sorted(graph):
        if colour[root] != white:
            continue
        stack: list[tuple[str, list[str]]] = [(root, sorted(graph[root]))]
        path = [root]
        colour[root] = grey
        while stack:
            node, todo = stack[-1]
            if not todo:
                colour[node] = black
                stack.pop()
                path.pop()
                continue
            nxt = todo.pop(0)
            if colour[nxt] == grey:
                return [*path[path.index(nxt) :], nxt]
            if colour[nxt] == white:
                colour[nxt] = grey
                stack.append((nxt, sorted(graph[nxt])))
                path.append(nxt)
    return None


def all_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """A cycle per edge that closes one, found by removing each such edge in turn: enough
    to list every knot in a failure message, not a full enumeration."""
    g = {k: set(v) for k, v in graph.items()}
    found = []
    while (cycle := find_cycle(g)) is not None:
        found.append(cycle)
        g[cycle[-2]].discard(cycle[-1])
    return found


def test_the_graph_is_read() -> None:
    graph = import_graph()
    # Edges the checker must see: a plain one, a relative one, a type-only one.
    assert "app.poker" in graph["app.tables.dealer"]  # from app.poker import HandState
    assert "app.poker.hand" in graph["app.poker.state"]
    assert "app.scale.placement" in graph["app.scale.owner"]  # under TYPE_CHECKING
    assert len(graph) > 100


def test_find_cycle_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_type_only_and_late_imports_count(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from .b import B\n")
    (pkg / "a.py").write_text("from pkg.sub import b\nimport os\n")
    (pkg / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..a import A\n"
        "def f():\n    from . import c\n"
    )
    (pkg / "sub" / "c.py").write_text("import pkg.a\n")
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg.a"] == {"pkg.sub.b"}
    assert graph["pkg.sub.b"] == {"pkg.a", "pkg.sub.c"}
    assert graph["pkg.sub.c"] == {"pkg.a"}
    assert graph["pkg.sub"] == {"pkg.sub.b"}
    assert find_cycle(graph) == ["pkg.a", "pkg.sub.b", "pkg.a"]


def test_app_has_no_import_cycle() -> None:
    cycles = all_cycles(import_graph())
    assert not cycles, "import cycles in app:\n" + "\n".join(" -> ".join(c) for c in cycles)
