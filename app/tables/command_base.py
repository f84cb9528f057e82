"""The base of the table's typed commands (app/tables/commands.py has every kind): who may
send one, how one is read from a mailbox `Command`'s data, and the shapes several share."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar, Self


class Who(Enum):
    ANYONE = "anyone"
    HOST = "host"  # only the table's host
    DIRECTOR = "director"  # a tournament's director (no client message maps to these)
    TABLE = "table"  # the table itself (its viewers coming and going, its timers)


@dataclass(slots=True, kw_only=True)
class TableCommand:
    kind: ClassVar[str]
    who: ClassVar[Who] = Who.ANYONE
    #: refused at a tournament table: chips in or out, sitting out, cash-game host commands
    cash_only: ClassVar[bool] = False
    sender: str | None = None

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        return cls(sender=sender)


@dataclass(slots=True, kw_only=True)
class Switch(TableCommand):
    """A command that turns something on (the default) or off."""

    on: bool = True

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        return cls(sender=sender, on=bool(data.get("on", True)))


@dataclass(slots=True, kw_only=True)
class ForPlayer(TableCommand):
    """A command about another player."""

    player_id: str

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        return cls(sender=sender, player_id=str(data.get("player_id")))


def whole(value: object) -> int | None:
    """A whole number (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None
