"""docs/protocol.md lists every error code the server can send, and only those: the codes are
read from the code itself (every `TableError`, engine `IllegalAction`, WebSocket `error` and
REST `detail` in app/), so the list cannot drift from what is sent."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: calls whose string argument at this position (or keyword `code`) is an error code
CALLS = {"TableError": 0, "error": 0, "IllegalAction": 1}


def _name(node: ast.expr) -> str | None:
    """The called name: `TableError(...)`, `errors.IllegalAction(...)`; not `log.error`."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and node.attr != "error":
        return node.attr
    return None


def _strings(node: ast.expr | None) -> set[str]:
    """String constants an expression evaluates to (a constant, or either branch of an if)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.IfExp):
        return _strings(node.body) | _strings(node.orelse)
    return set()


def codes_in_code() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "app").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # A class's default `code = "..."` (PokerError's) is not sent unless raised without one.
        defaults = {id(n) for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for n in c.body}
        for node in ast.walk(tree):
            position = CALLS.get(_name(node.func) or "") if isinstance(node, ast.Call) else None
            if isinstance(node, ast.Call) and position is not None:
                if len(node.args) > position:
                    found |= _strings(node.args[position])
                found |= {c for k in node.keywords if k.arg == "code" for c in _strings(k.value)}
            elif isinstance(node, ast.Dict):  # {"code": "no_session", ...}
                for key, value in zip(node.keys, node.values, strict=True):
                    if isinstance(key, ast.Constant) and key.value == "code":
                        found |= _strings(value)
            elif (  # code = "bad_json" if ... else "bad_message"
                isinstance(node, ast.Assign)
                and id(node) not in defaults
                and any(isinstance(t, ast.Name) and t.id == "code" for t in node.targets)
            ):
                found |= _strings(node.value)
    return found


def codes_in_docs() -> set[str]:
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text.split("<!-- error codes: begin -->")[1].split("<!-- error codes: end -->")[0]
    return set(re.findall(r"^\| `([a-z_]+)` \|", section, re.MULTILINE))


def test_the_protocol_lists_every_error_code_the_server_sends() -> None:
    in_code, in_docs = codes_in_code(), codes_in_docs()
    assert len(in_code) > 30  # the scan finds the codes (it would pass on an empty set)
    assert not in_code - in_docs, f"sent but not in docs/protocol.md: {sorted(in_code - in_docs)}"
    assert not in_docs - in_code, f"documented but never sent: {sorted(in_docs - in_code)}"
