"""The review worker (app.history.work, a spawned process) imports the module of each function
it is sent; a function defined beside its caller in app.api would bring FastAPI, Starlette and
SQLAlchemy into every worker's start (it did: a second of CPU each, four fifths of the
worker's time in the tests). Every function any `app` module sends with `.call(fn, ...)` or
`partial(....call, fn, ...)` lives in a module that imports none of the web stack or the
store."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("fastapi", "starlette", "sqlalchemy", "asyncpg", "redis", "uvicorn")


def sent_to_the_worker() -> dict[str, str]:
    """`module:function` -> the module that defines it, for each function sent."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "app").rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            args = node.args
            if isinstance(node.func, ast.Name) and node.func.id == "partial" and args:
                if not (isinstance(args[0], ast.Attribute) and args[0].attr == "call"):
                    continue
                args = args[1:]
            elif not (isinstance(node.func, ast.Attribute) and node.func.attr == "call"):
                continue
            if args and isinstance(args[0], ast.Name):
                fn = getattr(importlib.import_module(module), args[0].id, None)
                if callable(fn) and getattr(fn, "__module__", "").startswith("app."):
                    found[f"{module}:{args[0].id}"] = fn.__module__
    return found


def test_what_the_review_worker_runs_imports_no_web_stack() -> None:
    sent = sent_to_the_worker()
    # The three jobs of today: a viewer's equities, every view of an all-in hand, the luck.
    assert {"compute", "every_view", "all_in_of_hands"} <= {k.split(":")[1] for k in sent}, sent
    modules = sorted(set(sent.values()))
    probe = (
        f"import sys; [__import__(m) for m in {modules!r}];"
        f" print(sorted({{n.split('.')[0] for n in sys.modules}} & set({HEAVY!r})))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=ROOT, check=True)  # fmt: skip
    assert out.stdout.strip() == "[]", (modules, out.stdout)
