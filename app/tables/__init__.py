"""One table: a pure state machine behind a thin actor.

- `config.TableConfig`: what a table deals (game, stakes, seats, clock).
- `button.plan_deal`: who is dealt in, the button, the blinds (the seat rules).
- `machine.TableMachine`: the table's logic, synchronous: a typed command (`commands`) and the
  time in, effects (`effects`, `ops`) out; its state in `core`, its parts by concern
  (`seating`, `host`, `chat`, `seeds`, `tournament`, `watching`, `play`, `dealer`), the seat
  book (`seat`) and the clocks as data (`clock`).
- `table.Table`: the actor: its mailbox, the effects executed (`broadcast`, `writes`,
  timers on its `timers.Clock`); `registry.TableRegistry` runs and restarts them.
- `views`: the redaction: what each viewer may see.
- `store.TableStore`: what the actor needs from the database.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.tables.config import TableConfig
    from app.tables.errors import TableError
    from app.tables.registry import TableRegistry
    from app.tables.table import Runtime, Table
    from app.tables.viewer import Viewer

__all__ = ["Runtime", "Table", "TableConfig", "TableError", "TableRegistry", "Viewer"]

# Imported when first asked for (PEP 562): a module that needs only the hand's parts (the
# review worker's process: `app.tables.hand`, `views`) does not load the actor, the registry
# and, through them, the database and Redis clients (0.4 s of imports in each such process).
_WHERE = {
    "TableConfig": "config",
    "TableError": "errors",
    "TableRegistry": "registry",
    "Runtime": "table",
    "Table": "table",
    "Viewer": "viewer",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(f"app.tables.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'app.tables' has no attribute {name!r}")
