"""The shape of app as a whole: no module over 500 lines, and app/poker a pure rules core
(the standard library, phevaluator and itself: no I/O library, no other part of app)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app"
#: what app/poker may import besides itself (`datetime`: PHH's date fields, not a clock)
POKER_MAY_IMPORT = {"phevaluator"}
POKER_MAY_NOT = {"asyncio", "socket", "time", "os", "subprocess", "threading"}


@pytest.mark.parametrize("path", sorted(APP.rglob("*.py")), ids=lambda p: str(p.relative_to(APP)))
def test_no_module_of_app_over_500_lines(path: Path) -> None:
    assert len(path.read_text().splitlines()) <= 500


def _absolute_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def test_poker_is_a_pure_rules_core() -> None:
    for path in sorted((APP / "poker").rglob("*.py")):
        for name in _absolute_imports(path):
            top = name.split(".")[0]
            if name == "app.poker" or name.startswith("app.poker."):
                continue
            assert top in sys.stdlib_module_names or top in POKER_MAY_IMPORT, (path, name)
            assert top not in POKER_MAY_NOT, (path, name)


def test_the_director_is_its_state_and_plain_functions_not_mixins() -> None:
    """Issue 24: no mixin over a shared state. The director's jobs are functions over
    `Tournament`; nothing in app/tournaments or app/tables is abstract."""
    from app.tournaments.director import HANDLERS, Director
    from app.tournaments.state import Tournament

    assert Director.__bases__ == (Tournament,)
    assert all(callable(h) and not hasattr(h, "__self__") for h in HANDLERS.values())
    for package in ("tournaments", "tables"):
        for path in sorted((APP / package).glob("*.py")):
            tree = ast.parse(path.read_text())
            names = {
                ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Name | ast.Attribute)
            }
            assert not names & {"ABC", "abstractmethod", "abc.ABC"}, path.name


def test_the_relay_composes_its_sides_not_mixins() -> None:
    """Issue 24: the relay's gateway and owner are objects with their own state, held by
    `Relay` and sharing only the one `Streams`; nothing in app/scale is abstract or inherits
    from another class of app/scale."""
    from app.scale.gateway import Gateway
    from app.scale.owner import Owner
    from app.scale.relay import Relay
    from app.scale.streams import Streams

    assert Relay.__bases__ == Gateway.__bases__ == Owner.__bases__ == (object,)
    assert Streams.__bases__ == (object,)
    for path in sorted((APP / "scale").glob("*.py")):
        tree = ast.parse(path.read_text())
        names = {ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Name | ast.Attribute)}
        assert not names & {"ABC", "abstractmethod", "abc.ABC", "RelayState"}, path.name
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                assert len(node.bases) <= 1, (path.name, node.name)
    bases = {ast.unparse(b) for p in (APP / "scale").glob("*.py")
             for n in ast.walk(ast.parse(p.read_text())) if isinstance(n, ast.ClassDef)
             for b in n.bases}  # fmt: skip
    assert not bases & {"Gateway", "Owner", "Streams", "Relay"}
