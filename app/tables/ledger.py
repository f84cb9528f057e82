"""The ledger as players read it, and settle-up: who pays whom at the end of the evening.

Pure functions. A player's net is what they take away minus what they brought:
``stack + chips in the middle + cash-outs - buy-ins - top-ups - adjustments``. By the ledger
identity (docs/protocol.md section 7) the nets of a table add up to zero at every moment.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from app.tables.store_protocol import LedgerTotal

KINDS = ("buy_in", "top_up", "adjustment", "cash_out")
#: above this many players with a non-zero net, settle-up matches greedily (still at most
#: players - 1 payments) instead of searching every grouping (2^n work)
EXACT_UP_TO = 14


@dataclass(frozen=True)
class Payment:
    payer: str
    payee: str
    amount: int


def ledger_lines(
    totals: list[LedgerTotal], live: Mapping[str, tuple[int, int]]
) -> list[dict[str, Any]]:
    """Per player: the ledger's totals, the stack, the chips in the middle and the net.
    `live` maps each seated player to (stack, chips they have in the middle)."""
    rows: dict[str, dict[str, Any]] = {}
    for t in totals:
        row = rows.setdefault(
            t.player_id,
            {"player_id": t.player_id, "name": t.name, "bot": t.bot, **dict.fromkeys(KINDS, 0)},
        )
        row[t.kind] += t.amount
    for pid, row in rows.items():
        stack, middle = live.get(pid, (0, 0))
        row["seated"] = pid in live
        row["stack"], row["in_play"] = stack, middle
        row["net"] = (
            stack + middle + row["cash_out"] - row["buy_in"] - row["top_up"] - row["adjustment"]
        )
    return sorted(rows.values(), key=lambda r: (-r["net"], r["name"], r["player_id"]))


def people_nets(
    nets: Mapping[str, int], bots: Collection[str]
) -> tuple[dict[str, int], dict[str, int]]:
    """What the people at a table settle among themselves, and what of each one's net is not
    settled: practice bots play with chips nobody pays for, so a bot's winnings or losses are
    no one's money to pay or collect.

    Without the bots the people's nets add up to what the bots lost (or minus what they won).
    The larger side (the winners when the bots lost, else the losers) is brought down to the
    smaller in proportion to each one's net, in whole chips (largest remainder, then by id):
    each person's share of the bots' result is in proportion to their own. Returns the nets
    to settle (adding up to zero) and the unsettled part of each net (non-zero only)."""
    people = {p: n for p, n in nets.items() if p not in bots}
    won = sum(n for n in people.values() if n > 0)
    lost = -sum(n for n in people.values() if n < 0)
    if won == lost:
        return people, {}
    sign = 1 if won > lost else -1  # the side brought down: the winners (1) or the losers
    big, small = max(won, lost), min(won, lost)
    side = sorted(p for p, n in people.items() if n * sign > 0)
    scaled = {p: abs(people[p]) * small // big for p in side}
    remainders = sorted(side, key=lambda p: (-(abs(people[p]) * small % big), p))
    for p in remainders[: small - sum(scaled.values())]:
        scaled[p] += 1
    settled = dict(people)
    unsettled: dict[str, int] = {}
    for p in side:
        settled[p] = sign * scaled[p]
        if settled[p] != people[p]:
            unsettled[p] = people[p] - settled[p]
    return settled, unsettled


def settle_up(nets: Mapping[str, int]) -> list[Payment]:
    """The fewest payments that bring every net to zero (nets must add up to zero).

    The fewest is the number of players with a non-zero net minus the largest number of
    groups they split into whose nets each add up to zero: each group of k settles in k - 1
    payments, and no fewer. Groups are found exactly (a search over subsets) for up to
    `EXACT_UP_TO` players, else everyone is one group; within a group the largest debt
    pays the largest credit first. Never more than players - 1 payments.
    """
    if sum(nets.values()) != 0:
        raise ValueError("the nets do not add up to zero")
    people = sorted((p for p, n in nets.items() if n), key=lambda p: (-abs(nets[p]), p))
    groups = _zero_groups(people, nets) if len(people) <= EXACT_UP_TO else [people]
    payments: list[Payment] = []
    for group in groups:
        payments.extend(_settle_group({p: nets[p] for p in group}))
    return payments


def _zero_groups(people: list[str], nets: Mapping[str, int]) -> list[list[str]]:
    """Split into the most groups whose nets add up to zero (dynamic programme over subsets:
    best[mask] = most zero-sum groups a set of people can be cut into, counting the mask's
    own remainder once it sums to zero)."""
    n = len(people)
    if n == 0:
        return []
    values = [nets[p] for p in people]
    full = (1 << n) - 1
    total = [0] * (full + 1)
    best = [0] * (full + 1)
    came_from = [0] * (full + 1)
    for mask in range(1, full + 1):
        low = mask & -mask
        total[mask] = total[mask ^ low] + values[low.bit_length() - 1]
        top, via = -1, 0
        m = mask
        while m:
            bit = m & -m
            m ^= bit
            if best[mask ^ bit] > top:
                top, via = best[mask ^ bit], mask ^ bit
        best[mask] = top + (1 if total[mask] == 0 else 0)
        came_from[mask] = via
    # Walk back from everyone: each time the running set sums to zero, a group closes.
    groups: list[list[str]] = []
    mask, closed = full, full
    while mask:
        prev = came_from[mask]
        if total[prev] == 0 and prev != 0:
            groups.append([people[i] for i in range(n) if (closed ^ prev) >> i & 1])
            closed = prev
        mask = prev
    groups.append([people[i] for i in range(n) if closed >> i & 1])
    return [g for g in groups if g]


def _settle_group(nets: dict[str, int]) -> list[Payment]:
    """Largest debtor pays largest creditor: each payment clears at least one of them, so a
    group of k settles in at most k - 1 payments."""
    payers = sorted(((-n, p) for p, n in nets.items() if n < 0), key=lambda x: (-x[0], x[1]))
    payees = sorted(((n, p) for p, n in nets.items() if n > 0), key=lambda x: (-x[0], x[1]))
    out: list[Payment] = []
    i = j = 0
    while i < len(payers) and j < len(payees):
        owe, payer = payers[i]
        due, payee = payees[j]
        amount = min(owe, due)
        out.append(Payment(payer, payee, amount))
        payers[i], payees[j] = (owe - amount, payer), (due - amount, payee)
        if owe == amount:
            i += 1
        if due == amount:
            j += 1
    return out
