"""The schema stands alone: it imports nothing from the actor (or any other part of app but
the store's own column types), and every bound the server enforces on a text it stores fits
in the column it is stored in."""

from __future__ import annotations

import ast
from pathlib import Path

from sqlalchemy import String

import app.store.models as models
from app.api.identity import NAME_LENGTH
from app.store.models import ChatRow, LedgerEntry, Player, SeatRow
from app.tables.adjust import REASONS_MAX
from app.tables.config import CHAT_MAX


def _length(column: object) -> int:
    kind = column.type  # type: ignore[attr-defined]
    assert isinstance(kind, String) and kind.length is not None
    return int(kind.length)


def test_the_schema_imports_nothing_from_the_rest_of_app() -> None:
    tree = ast.parse(Path(models.__file__).read_text())
    imported = {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module is not None
    } | {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
         for alias in node.names}  # fmt: skip
    ours = {name for name in imported if name == "app" or name.startswith("app.")}
    assert ours <= {"app.store.decks"}, ours


def test_every_stored_text_bound_fits_its_column() -> None:
    assert _length(SeatRow.__table__.c.pending_adjust_reason) >= REASONS_MAX
    assert _length(LedgerEntry.__table__.c.reason) >= REASONS_MAX
    assert _length(ChatRow.__table__.c.text) >= CHAT_MAX
    for column in (Player.__table__.c.display_name, SeatRow.__table__.c.name,
                   ChatRow.__table__.c.name):  # fmt: skip
        assert _length(column) >= NAME_LENGTH
