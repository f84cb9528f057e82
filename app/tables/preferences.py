"""A player's showdown preferences: the player's own (app.store.preferences keeps them by
player id, durable), copied onto each seat they take (`Seat.auto_muck`, `Seat.always_show`),
so the table decides a showdown (app.tables.pace) from the seat it holds, without reading
the player store mid-hand."""

from __future__ import annotations

from typing import NamedTuple


class Preferences(NamedTuple):
    #: muck a hand the rules let the player muck (a beaten one) at once
    auto_muck: bool = True
    #: show every hand at once, even one the player could muck
    always_show: bool = False

    def json(self) -> dict[str, bool]:
        return {"auto_muck": self.auto_muck, "always_show": self.always_show}

    def changed(self, auto_muck: bool | None, always_show: bool | None) -> Preferences:
        """These with each given field set (None: left as it is)."""
        return Preferences(
            self.auto_muck if auto_muck is None else auto_muck,
            self.always_show if always_show is None else always_show,
        )
