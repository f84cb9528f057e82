"""The shape of app/tables: no import cycle among its modules (type-only and function-local
imports included), none over 500 lines, no mixin left, and its table logic pure: the machine's
modules import no asyncio, no clock and no store."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TABLES = ROOT / "app" / "tables"
#: the machine: pure and synchronous (the actor's modules are table, broadcast, writes,
#: timers, registry, viewer; store and views are shared)
MACHINE = ("machine", "core", "seat", "clock", "commands", "effects", "ops", "seating", "host",
           "chat", "seeds", "tournament", "watching", "play", "dealer", "button")  # fmt: skip
IMPURE = {"asyncio", "time", "datetime", "app.tables.table", "app.tables.writes",
          "app.tables.broadcast", "app.tables.timers", "app.tables.registry"}  # fmt: skip


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every module `path` imports, anywhere in it (`from p import m`: the module p.m if it
    is one, else p)."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path.parent)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                is_module = (ROOT / Path(*sub.split("."))).with_suffix(".py").exists()
                found.add(sub if is_module else base)
    return found


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in TABLES.glob("*.py")}
    return {m: imports(p) & modules.keys() - {m} for m, p in modules.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle_in_app_tables() -> None:
    assert cycles(graph()) == []


def test_the_cycle_check_sees_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


#: store.py holds the in-memory store of the tests for now, which moves into tests/ (issue 24's
#: store part): it may not grow meanwhile
LONGER = {"store.py": 544}


@pytest.mark.parametrize("path", sorted(TABLES.glob("*.py")), ids=lambda p: p.name)
def test_no_module_over_500_lines(path: Path) -> None:
    assert len(path.read_text().splitlines()) <= LONGER.get(path.name, 500)


def test_the_machine_imports_no_clock_no_asyncio_and_no_store() -> None:
    for name in MACHINE:
        found = imports(TABLES / f"{name}.py")
        assert not {m for m in found if m in IMPURE or m.startswith("app.store")}, name


def test_no_mixin_over_a_shared_state() -> None:
    assert not (TABLES / "state.py").exists()
    for path in TABLES.glob("*.py"):
        tree = ast.parse(path.read_text())
        bases = [ast.unparse(b) for n in ast.walk(tree) if isinstance(n, ast.ClassDef)
                 for b in n.bases]  # fmt: skip
        assert "TableState" not in bases and "TableCore" not in bases, path.name
