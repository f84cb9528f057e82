"""What the director answers of its tournament: the clock, the field, the standings."""

from __future__ import annotations

from typing import Any

from app.tables.command import Command
from app.tournaments.addon import addon_open, prize_pool
from app.tournaments.payouts import preset, split
from app.tournaments.state import Tournament


async def on_status(t: Tournament, c: Command) -> dict[str, Any]:
    return status_view(t)


def status_view(t: Tournament) -> dict[str, Any]:
    schedule = t.settings.schedule
    moment = schedule.at(t.elapsed())
    level = schedule.levels[moment.level]
    left = [e for e in t.entries.values() if e.place is None]
    chips = sum(sum(s.stacks.values()) for s in t.tables.values())
    return {
        "id": t.id,
        "name": t.settings.name,
        "status": t.status,
        "level": moment.level + 1,
        "on_break": moment.on_break,
        "remaining": moment.remaining,
        "blinds": level.to_json(),
        "next": schedule.levels[moment.next_level].to_json()
        if moment.next_level is not None
        else None,
        "players_left": len(left) if t.status != "registering" else len(t.entries),
        "entries": len(t.entries),
        "average_stack": chips // len(left) if left and chips else 0,
        "payouts": split(prize_pool(t), payouts(t)),
        "prize_pool": prize_pool(t),
        "addon": {
            "chips": t.settings.addon_chips,
            "price": t.settings.addon_price,
            "level": t.settings.addon_at(),
            "open": addon_open(t),
            "taken": sum(1 for e in t.entries.values() if e.addon),
        }
        if t.settings.addon_chips
        else None,
        "standings": results(t),
        "hand_for_hand": hand_for_hand(t),
        "seats": t.settings.seats,
        "start_at": t.settings.start_at,
    }


def hand_for_hand(t: Tournament) -> bool:
    """Near the money at more than one table: the next round can burst the bubble. The
    tables always play a round a hand each and wait for each other (`rounds.on_hand_ended`),
    so every round is played hand for hand; this says the bubble is near (TDA RP-8)."""
    if t.status not in ("running", "paused") or len(t.tables) < 2:
        return False
    paid = sum(1 for amount in split(prize_pool(t), payouts(t)) if amount > 0)
    return 0 < paid < t.standings.left <= paid + len(t.tables)


def results(t: Tournament) -> list[dict[str, Any]]:
    """The places given so far, best first: place, player, prize."""
    placed = [e for e in t.entries.values() if e.place is not None]
    placed.sort(key=lambda e: (e.place or 0, e.name))
    return [{"place": e.place, "player_id": e.player_id, "name": e.name, "prize": e.prize,
             "addon": e.addon} for e in placed]  # fmt: skip


def payouts(t: Tournament) -> tuple[int, ...]:
    """The basis points paid per place (the preset for the field when none was set)."""
    if t.settings.payouts is not None:
        return t.settings.payouts
    return preset(max(2, len(t.entries)))
