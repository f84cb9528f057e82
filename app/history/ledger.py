"""The ledger as CSV: every chip in and out of a table, then each player's net, real and
all-in adjusted.

A player's net is what left the table (cash-outs) plus the stack still on it, minus what
came in (buy-ins, top-ups, host adjustments). The all-in adjusted net replaces, in every
hand whose players were all in before the river, what they won by what they would win in
expectation at that moment (`app.history.record.all_in_equity`): luck taken out.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

IN_KINDS = ("buy_in", "top_up", "adjustment")


@dataclass(frozen=True)
class Entry:
    at: str
    player_id: str
    name: str
    kind: str
    amount: int


def ledger_csv(
    entries: Iterable[Entry],
    stacks: Mapping[str, int],
    luck: Mapping[str, float],
) -> str:
    """`luck` is each player's sum of (expected - won) over the all-in hands."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["time", "player_id", "name", "kind", "amount", "all_in_adjusted"])
    net: dict[str, int] = {}
    names: dict[str, str] = {}
    for e in entries:
        writer.writerow([e.at, e.player_id, _cell(e.name), e.kind, e.amount, ""])
        sign = 1 if e.kind in IN_KINDS else -1
        net[e.player_id] = net.get(e.player_id, 0) - sign * e.amount
        names[e.player_id] = e.name
    for player_id, stack in stacks.items():
        writer.writerow(["", player_id, _cell(names.get(player_id, "")), "stack", stack, ""])
        net[player_id] = net.get(player_id, 0) + stack
    for player_id, value in net.items():
        adjusted = round(value + luck.get(player_id, 0.0), 2)
        writer.writerow(["", player_id, _cell(names.get(player_id, "")), "net", value, adjusted])
    return out.getvalue()


def _cell(text: str) -> str:
    """No cell starts a formula in a spreadsheet (CSV injection)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
