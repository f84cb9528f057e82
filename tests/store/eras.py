"""What a server at each earlier migration head had stored, written as SQL in that schema.

Eras are counted by their place in the chain of migrations (0001 is era 1, 0014 era 14), so
a renumbered or added migration keeps its place. The data of era N is one evening written
the way the code of migration N wrote it, as small as it can be and still cover every kind
of row:

- players Ann (the host) and Ben, with sessions (their tokens below); from era 7 a bot;
- from era 2: a cash table with both seated, the ledger's buy-ins and Ben's top-up, hand 1
  played out (checked down) and hand 2 in progress (one action taken); from era 11 an
  adjustment with its reason; the decks plain lists before era 5, sealed from it;
- from era 6 the hands' numbers, game, pot and players; from era 7 a chat line;
- from era 8 verifiable deals: hand 1 in a session ended and revealed, hand 2 in the one
  running (its seed sealed), each hand's deal sealed, and client seeds;
- from era 10 a tournament taking registrations (Ann and Ben in).

JSON is written as each era's code wrote it: the keys a later era added (`*_SINCE`) are left
out before it. A key that no era here knows is newer than all of them, and left out too.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import JSON, DateTime, Uuid, bindparam, text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.store.decks import seal, seal_value
from app.tables.config import TableConfig
from app.tables.fairness import ServerSeed, make_deal
from app.tables.hand import Hand, awarded
from app.tournaments.settings import Settings as TournamentSettings
from app.tournaments.structure import Level, Schedule
from tests.hands import checked_down

#: the key the decks and seeds were sealed with (the server reading them needs the same)
SECRET = "an evening's secret key, kept across upgrades"
ANN_TOKEN, BEN_TOKEN = "ann-" + "a" * 40, "ben-" + "b" * 40
TABLE_CODE, TOURNAMENT_CODE = "friday-table-code", "sunday-tournament"

# The JSON keys each era's code wrote: the first era's, and the era that added each other.
TABLE_CONFIG_BASE = {
    "name", "game", "betting", "small_blind", "big_blind", "big_bet", "ante", "straddle",
    "boards", "bomb_pot_every", "bomb_pot_ante", "run_it_twice", "odd_chip", "raise_cap",
    "buy_in_min", "buy_in_max", "seats", "decision_time", "time_bank", "approval_required",
}  # fmt: skip
TABLE_CONFIG_SINCE = {"big_blind_ante": 3, "cap_heads_up": 3, "dead_button": 3,
                      "spectator_chat": 7, "reveal_seed": 8, "tournament": 10}  # fmt: skip
RECORD_BASE = {"setup", "seats", "players", "button", "straddle"}
RECORD_SINCE = {"blind_seats": 3, "names": 6, "bots": 7}
SETUP_CONFIG_SINCE = {"cap_heads_up": 3}
TOURNAMENT_BASE = {
    "name", "schedule", "starting_stack", "seats", "game", "betting", "payouts", "prize_pool",
    "max_players", "decision_time", "time_bank",
}  # fmt: skip
TOURNAMENT_SINCE = {"late_registration_level": 12, "reentries": 12, "start_when_full": 12,
                    "addon_chips": 12, "addon_price": 12, "addon_level": 12}  # fmt: skip
NEWER = 10**6  # a key no era here wrote


def as_of(data: dict[str, Any], era: int, base: set[str], since: dict[str, int]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k in base or since.get(k, NEWER) <= era}


@dataclass
class Written:
    """What was written, for the checks after the upgrade."""

    era: int
    players: dict[str, str] = field(default_factory=dict)  # name -> id
    table_id: str | None = None
    decks: dict[int, list[int]] = field(default_factory=dict)  # hand number -> deck
    finished: dict[int, dict[str, int]] = field(default_factory=dict)  # number -> seat: stack
    in_progress: tuple[int, int] | None = None  # (hand number, actions taken)
    chips_in: int = 0
    stacks: dict[str, int] = field(default_factory=dict)  # seat -> stack now


def _typed(name: str, value: Any) -> Any:
    if isinstance(value, uuid.UUID):
        return bindparam(name, type_=Uuid())
    if isinstance(value, dict | list):
        return bindparam(name, type_=JSON())
    if isinstance(value, datetime):
        return bindparam(name, type_=DateTime(timezone=True))
    return bindparam(name)


async def insert(c: AsyncConnection, table: str, **values: Any) -> None:
    """INSERT INTO `table` (its given columns): the era's own columns, nothing more."""
    names = ", ".join(values)
    statement = text(f"INSERT INTO {table} ({names}) VALUES ({', '.join(':' + k for k in values)})")
    await c.execute(statement.bindparams(*(_typed(k, v) for k, v in values.items())), values)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def write_era(c: AsyncConnection, era: int) -> Written:
    """Era `era`'s evening into a database at that revision (decks sealed with SECRET:
    `app.store.decks.use_secret(SECRET)` first)."""
    out = Written(era)
    now = datetime(2026, 11, 30, 21, 0, tzinfo=UTC)
    for name, token in (("Ann", ANN_TOKEN), ("Ben", BEN_TOKEN)):
        pid = uuid.uuid4()
        row: dict[str, Any] = {
            "id": pid,
            "display_name": name,
            "session_token_hash": token_hash(token),
        }
        if era >= 5:
            row["session_expires_at"] = now + timedelta(days=3650)
        if era >= 7:
            row["bot"] = False
        await insert(c, "players", **row)
        out.players[name] = str(pid)
    if era >= 7:  # a practice bot, not seated (its "token hash" is bot:<id>)
        bot = uuid.uuid4()
        await insert(c, "players", id=bot, display_name="Bot 1", session_token_hash=f"bot:{bot}",
                     session_expires_at=None, bot=True)  # fmt: skip
    if era >= 2:
        await _cash_table(c, era, out, now)
    if era >= 10:
        await _tournament(c, era, out)
    return out


async def _cash_table(c: AsyncConnection, era: int, out: Written, now: datetime) -> None:
    ann, ben = out.players["Ann"], out.players["Ben"]
    table_id = uuid.uuid4()
    out.table_id = str(table_id)
    config = as_of(TableConfig(name="Friday", decision_time=0).model_dump(mode="json"), era,
                   TABLE_CONFIG_BASE, TABLE_CONFIG_SINCE)  # fmt: skip
    table: dict[str, Any] = {
        "id": table_id, "code": TABLE_CODE, "host_id": uuid.UUID(ann), "config": config,
        "button": 0, "paused": False, "hand_number": 2,
    }  # fmt: skip
    if era >= 4:
        table |= {"next_config": None, "requests": []}
    if era >= 7:
        table["bomb_pot_next"] = False
    if era >= 9:
        table["owner_epoch"] = 3
    await insert(c, "tables", **table)

    # Ann at seat 0 (the button: position 1, the small blind), Ben at seat 1 (the big blind).
    ledger: list[tuple[str, str, int, str | None]] = [
        (ann, "buy_in", 100, None),
        (ben, "buy_in", 100, None),
        (ben, "top_up", 20, None),
    ]
    seeds: list[ServerSeed] = []
    if era >= 8:
        seeds = [ServerSeed.new(), ServerSeed.new()]
    first, deck1 = _hand(era, out, seeds, 1, (120, 100), None)
    after = {0: int(first.state.stacks[1]), 1: int(first.state.stacks[0])}  # by seat
    adjusted = 5 if era >= 11 else 0
    if adjusted:
        ledger.append((ann, "adjustment", adjusted, "rebuy owed from Thursday"))
    second, deck2 = _hand(era, out, seeds, 2, (after[1], after[0] + adjusted), 1)
    out.finished[1] = {str(seat): stack for seat, stack in after.items()}
    out.in_progress = (2, 1)
    out.stacks = {"0": after[0] + adjusted, "1": after[1]}
    out.chips_in = sum(amount for _, _, amount, _ in ledger)

    for number, seat_of in ((0, ann), (1, ben)):
        stack = out.stacks[str(number)]
        seat: dict[str, Any] = {
            "table_id": table_id, "number": number, "player_id": uuid.UUID(seat_of),
            "name": "Ann" if seat_of == ann else "Ben", "stack": stack, "sitting_out": False,
            "waiting": False, "post": False, "time_bank": 60.0,
        }  # fmt: skip
        if era >= 3:
            seat["missed_blinds"] = 0
        if era >= 4:
            seat |= {"leaving": False, "removed": False, "straddle": False,
                     "pending_top_up": 0, "pending_adjust": 0}  # fmt: skip
        if era >= 7:
            seat |= {"sit_out_next": False, "sit_out_next_bb": False}
        if era >= 8:
            seat["client_seed"] = f"{seat['name']}'s seed"
        if era >= 11:
            seat["pending_adjust_reason"] = ""
        if era >= 13:
            seat["away_since"] = None
        await insert(c, "seats", **seat)
    for player, kind, amount, reason in ledger:
        entry: dict[str, Any] = {"table_id": table_id, "player_id": uuid.UUID(player),
                                 "kind": kind, "amount": amount}  # fmt: skip
        if era >= 11:
            entry["reason"] = reason
        await insert(c, "ledger", **entry)

    if era >= 8:  # the first session ended (revealed) before hand 2; the second runs
        for k, seed in enumerate(seeds):
            row: dict[str, Any] = {"id": uuid.UUID(seed.id), "table_id": table_id,
                                   "seed": seal_value(seed.seed.hex()), "seed_hash": seed.hash,
                                   "created_at": now + timedelta(minutes=k)}  # fmt: skip
            if k == 0:
                row |= {"ended_at": now + timedelta(minutes=1), "revealed": True}
            await insert(c, "deal_seeds", **row)
    for hand, deck, ended in ((first, deck1, True), (second, deck2, False)):
        await _store_hand(c, era, table_id, hand, deck, ended, now)
    if era >= 7:
        await insert(c, "chat", table_id=table_id, player_id=uuid.UUID(ben), name="Ben", seat=1,
                     text="nice hand")  # fmt: skip


def _hand(era: int, out: Written, seeds: list[ServerSeed], number: int,
          stacks: tuple[int, int], actions: int | None) -> tuple[Hand, list[int]]:  # fmt: skip
    """Hand `number`, by position (Ben, Ann): dealt from its session's seed from era 8."""
    players = (out.players["Ben"], out.players["Ann"])
    client_seeds = ("Ann's seed", "Ben's seed")
    deck: list[int] | None = None
    deal = None
    if seeds:
        deck, deal = make_deal(seeds[number - 1], str(out.table_id), number, client_seeds)
    hand, deck = checked_down(players, ("Ben", "Ann"), stacks, number=number, seats=(1, 0),
                              seed=number, deck=deck, actions=actions)  # fmt: skip
    hand.blind_seats = (0, 1)
    hand.deal = deal
    out.decks[number] = list(deck)
    return hand, list(deck)


async def _store_hand(c: AsyncConnection, era: int, table_id: uuid.UUID, hand: Hand,
                      deck: list[int], ended: bool, now: datetime) -> None:  # fmt: skip
    record = hand.record()
    record["setup"]["config"] = as_of(record["setup"]["config"], era,
                                      set(record["setup"]["config"]) - {"cap_heads_up"},
                                      SETUP_CONFIG_SINCE)  # fmt: skip
    record = as_of(record, era, RECORD_BASE, RECORD_SINCE)
    hid = uuid.UUID(hand.id)
    row: dict[str, Any] = {"id": hid, "table_id": table_id, "number": hand.number,
                           "record": record, "deck": seal(deck) if era >= 5 else deck,
                           "started_at": now + timedelta(minutes=hand.number)}  # fmt: skip
    if ended:
        stacks = {str(seat): int(hand.state.stacks[p]) for p, seat in enumerate(hand.seats)}
        row |= {
            "result": {"stacks": stacks},
            "ended_at": now + timedelta(minutes=hand.number, seconds=30),
        }
    if era >= 6:  # (the pot once over: every chip awarded)
        row |= {"game": "omaha", "pot": awarded(hand.state) if ended else None}
    if era >= 8 and hand.deal is not None:
        row["deal"] = seal_value(hand.deal.stored())
    await insert(c, "hands", **row)
    if era >= 6:  # (the server-wide number: the database's, read back as the code did)
        dealt = text(
            "INSERT INTO hand_players (hand_id, position, player_id, serial) "
            "SELECT id, :position, :player_id, serial FROM hands WHERE id = :hand_id"
        ).bindparams(bindparam("hand_id", type_=Uuid()), bindparam("player_id", type_=Uuid()))
        for position, player in enumerate(hand.players):
            values = {"hand_id": hid, "position": position, "player_id": uuid.UUID(player)}
            await c.execute(dealt, values)
    for counter, action in enumerate(hand.state.history):
        await insert(c, "hand_actions", hand_id=hid, counter=counter, player=action.player,
                     kind=str(action.kind), amount=action.amount, agree=action.agree)  # fmt: skip


async def _tournament(c: AsyncConnection, era: int, out: Written) -> None:
    schedule = Schedule((Level(10, 20, minutes=10.0), Level(20, 40, minutes=10.0)), 0, 0.0)
    settings = TournamentSettings(name="Sunday", schedule=schedule, starting_stack=1500,
                                  payouts=(7000, 3000), prize_pool=100)  # fmt: skip
    tid = uuid.uuid4()
    row: dict[str, Any] = {
        "id": tid, "code": TOURNAMENT_CODE, "host_id": uuid.UUID(out.players["Ann"]),
        "settings": as_of(settings.to_json(), era, TOURNAMENT_BASE, TOURNAMENT_SINCE),
        "status": "registering", "elapsed": 0.0, "tables": [],
    }  # fmt: skip
    if era >= 14:
        row["owner_epoch"] = 0
    await insert(c, "tournaments", **row)
    for name in ("Ann", "Ben"):
        entry: dict[str, Any] = {"tournament_id": tid, "player_id": uuid.UUID(out.players[name]),
                                 "name": name, "bot": False, "place": None, "prize": 0,
                                 "number": 1}  # fmt: skip
        if era >= 12:
            entry["addon"] = False
        await insert(c, "tournament_entries", **entry)
