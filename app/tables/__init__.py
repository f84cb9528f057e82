"""The table actor: one asyncio task per table that owns seats, the button, the clock and the
current hand; shuffles; turns engine events into per-seat views.

- `config.TableConfig`: what a table deals (game, stakes, seats, clock).
- `button.plan_deal`: who is dealt in, the button, the blinds (the seat rules).
- `table.Table`: the actor and its mailbox; `registry.TableRegistry` runs and restarts them.
  Its handlers by concern: `seating`, `host`, `clock`, `dealer`, `chat`, `broadcast`, `writes`
  (sharing `state.TableState`).
- `views`: the redaction: what each viewer may see.
- `store.TableStore`: what the actor needs from the database.
"""

from app.tables.config import TableConfig
from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.table import Runtime, Table
from app.tables.viewer import Viewer

__all__ = ["Runtime", "Table", "TableConfig", "TableError", "TableRegistry", "Viewer"]
