"""The table's commands, typed: one dataclass per kind, built once from a mailbox
`Command` (its `kind` and `data`, as the WebSocket, the relay, the director and tests send
them) by `parse`, before the machine sees it; and the commands the table posts itself
(`Fire`, `Auto`).

A field that is missing or not of its type is None (or the default the table always used),
and the machine refuses it where it always did, in the same order as its other checks
(`no_such_seat`, `bad_amount`, `bad_counter`...): over the WebSocket every message is
validated before (app/api/messages.py), so this only keeps the answers to other callers.

A new command: its class here (with `kind`, `who` and `parse`), added to `KINDS`, and its
handler in app/tables/machine.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

from app.poker import ActionKind
from app.tables.clock import Timer
from app.tables.command_base import ForPlayer as ForPlayer
from app.tables.command_base import Switch as Switch
from app.tables.command_base import TableCommand as TableCommand
from app.tables.command_base import Who as Who
from app.tables.command_base import whole
from app.tables.errors import TableError


# ------------------------------------------------------------------ players
@dataclass(slots=True, kw_only=True)
class Sit(TableCommand):
    kind = "sit"
    cash_only = True
    seat: int | None
    buy_in: int | None
    name: str
    post: bool = False

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        return cls(sender=sender, seat=whole(data.get("seat")), buy_in=whole(data.get("buy_in")),
                   name=str(data.get("name") or "player")[:32],
                   post=bool(data.get("post", False)))  # fmt: skip


@dataclass(slots=True, kw_only=True)
class TopUp(TableCommand):
    kind = "top_up"
    cash_only = True
    amount: int | None

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        return cls(sender=sender, amount=whole(data.get("amount")))


@dataclass(slots=True, kw_only=True)
class SitOut(TableCommand):
    kind = "sit_out"
    cash_only = True


@dataclass(slots=True, kw_only=True)
class SitIn(TableCommand):
    kind = "sit_in"
    post: bool = False

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        return cls(sender=sender, post=bool(data.get("post", False)))


@dataclass(slots=True, kw_only=True)
class Leave(TableCommand):
    kind = "leave"
    cash_only = True


@dataclass(slots=True, kw_only=True)
class Straddle(Switch):
    kind = "straddle"
    cash_only = True


@dataclass(slots=True, kw_only=True)
class Act(TableCommand):
    kind = "act"
    hand: str | None
    counter: int | None
    action: ActionKind | None
    amount: int | None = None
    agree: bool | None = None

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        try:
            action: ActionKind | None = ActionKind(str(data.get("action")))
        except ValueError:
            action = None
        hand, agree = data.get("hand"), data.get("agree")
        return cls(sender=sender, hand=hand if isinstance(hand, str) else None,
                   counter=whole(data.get("counter")), action=action,
                   amount=whole(data.get("amount")),
                   agree=agree if isinstance(agree, bool) else None)  # fmt: skip


@dataclass(slots=True, kw_only=True)
class OfHand(TableCommand):
    """A command about the last hand, once it is over."""

    hand: str | None

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        hand = data.get("hand")
        return cls(sender=sender, hand=hand if isinstance(hand, str) else None)


@dataclass(slots=True, kw_only=True)
class Show(OfHand):
    kind = "show"


@dataclass(slots=True, kw_only=True)
class RabbitHunt(OfHand):
    kind = "rabbit_hunt"  # the board cards that would have come (app/tables/after.py)


@dataclass(slots=True, kw_only=True)
class ShowCards(TableCommand):
    """Some of a player's hole cards shown once the hand is over (app/tables/after.py):
    as written ("As"); None when not a list of strings (refused)."""

    kind = "show_cards"
    hand: str | None
    cards: tuple[str, ...] | None

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        hand, given = data.get("hand"), data.get("cards")
        ok = isinstance(given, list) and all(isinstance(c, str) for c in given)
        shown = tuple(given) if ok and isinstance(given, list) else None
        return cls(sender=sender, hand=hand if isinstance(hand, str) else None, cards=shown)


@dataclass(slots=True, kw_only=True)
class MoreTime(TableCommand):
    kind = "more_time"


@dataclass(slots=True, kw_only=True)
class SitOutNext(Switch):
    kind = "sit_out_next"
    cash_only = True


@dataclass(slots=True, kw_only=True)
class SitOutNextBb(Switch):
    kind = "sit_out_next_bb"
    cash_only = True


@dataclass(slots=True, kw_only=True)
class SetPreference(TableCommand):
    """A seated player's showdown preferences (None: unchanged)."""

    kind = "set_preference"
    auto_muck: bool | None = None
    always_show: bool | None = None

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        def flag(name: str) -> bool | None:
            value = data.get(name)
            return value if isinstance(value, bool) else None

        return cls(sender=sender, auto_muck=flag("auto_muck"), always_show=flag("always_show"))


@dataclass(slots=True, kw_only=True)
class Chat(TableCommand):
    kind = "chat"
    text: str
    name: str = ""  # a spectator's (a seated player's is their seat's)

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        return cls(sender=sender, text=str(data.get("text", "")).strip(),
                   name=str(data.get("name") or "spectator")[:32])  # fmt: skip


class React(Chat):
    kind = "react"  # a seated player's reaction on their seat: `text` names it (REACTIONS)


@dataclass(slots=True, kw_only=True)
class Seed(TableCommand):
    kind = "seed"
    seed: str  # "" when not text (refused as `bad_seed`)

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        value = data.get("seed")
        return cls(sender=sender, seed=value if isinstance(value, str) else "")


# ------------------------------------------------------------------- the host
@dataclass(slots=True, kw_only=True)
class Approve(ForPlayer):
    kind = "approve"
    who = Who.HOST
    cash_only = True


@dataclass(slots=True, kw_only=True)
class Refuse(ForPlayer):
    kind = "refuse"
    who = Who.HOST
    cash_only = True


@dataclass(slots=True, kw_only=True)
class CancelRequest(TableCommand):
    """The requester withdraws their own seat request."""

    kind = "cancel_request"
    cash_only = True


@dataclass(slots=True, kw_only=True)
class Pause(TableCommand):
    kind = "pause"
    who = Who.HOST
    cash_only = True


@dataclass(slots=True, kw_only=True)
class Resume(TableCommand):
    kind = "resume"
    who = Who.HOST
    cash_only = True


@dataclass(slots=True, kw_only=True)
class SetStakes(TableCommand):
    kind = "set_stakes"
    who = Who.HOST
    cash_only = True
    changes: Mapping[str, Any]  # checked by `TableConfig.with_stakes`

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        return cls(sender=sender, changes={k: v for k, v in data.items() if v is not None})


@dataclass(slots=True, kw_only=True)
class Remove(TableCommand):
    kind = "remove"
    who = Who.HOST
    cash_only = True
    seat: int | None

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        return cls(sender=sender, seat=whole(data.get("seat")))


@dataclass(slots=True, kw_only=True)
class Adjust(TableCommand):
    kind = "adjust"
    who = Who.HOST
    cash_only = True
    seat: int | None
    amount: int | None
    reason: str | None  # None: not text (refused as `bad_reason`); "" none given

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        reason = data.get("reason", "")
        return cls(sender=sender, seat=whole(data.get("seat")), amount=whole(data.get("amount")),
                   reason=None if not isinstance(reason, str | None) else reason or "")  # fmt: skip


@dataclass(slots=True, kw_only=True)
class TransferHost(ForPlayer):
    kind = "transfer_host"
    who = Who.HOST
    cash_only = True


@dataclass(slots=True, kw_only=True)
class AddBot(TableCommand):
    kind = "add_bot"
    who = Who.HOST
    cash_only = True
    seat: int | None
    buy_in: int | None
    most: bool = False  # no buy-in given: the table's maximum

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        buy_in = data.get("buy_in")
        return cls(sender=sender, seat=whole(data.get("seat")), buy_in=whole(buy_in),
                   most=buy_in is None)  # fmt: skip


@dataclass(slots=True, kw_only=True)
class BombPotNext(Switch):
    kind = "bomb_pot_next"
    who = Who.HOST
    cash_only = True


@dataclass(slots=True, kw_only=True)
class SpectatorChat(Switch):
    kind = "spectator_chat"
    who = Who.HOST


@dataclass(slots=True, kw_only=True)
class Close(TableCommand):
    kind = "close"
    who = Who.HOST
    cash_only = True


@dataclass(slots=True, kw_only=True)
class RotateSeed(TableCommand):
    kind = "rotate_seed"
    who = Who.HOST


@dataclass(slots=True, kw_only=True)
class Ledger(TableCommand):
    kind = "ledger"


# ------------------------------------------------------------ the director
@dataclass(slots=True, kw_only=True)
class TSeat(TableCommand):
    kind = "t_seat"
    who = Who.DIRECTOR
    player_id: str
    name: str
    seat: int | None
    stack: int | None
    bot: bool = False

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        return cls(sender=sender, player_id=str(data["player_id"]), seat=whole(data["seat"]),
                   stack=whole(data["stack"]), name=str(data.get("name") or "player")[:32],
                   bot=bool(data.get("bot", False)))  # fmt: skip


@dataclass(slots=True, kw_only=True)
class TUnseat(TableCommand):
    kind = "t_unseat"
    who = Who.DIRECTOR
    player_id: str

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        return cls(sender=sender, player_id=str(data["player_id"]))


@dataclass(slots=True, kw_only=True)
class TAddon(TableCommand):
    kind = "t_addon"
    who = Who.DIRECTOR
    player_id: str
    amount: int | None

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        return cls(sender=sender, player_id=str(data["player_id"]), amount=whole(data["amount"]))


#: what a deal may change: the level's stakes, and the fixed-limit cap heads-up (TDA 48)
STAKES = ("small_blind", "big_blind", "ante", "big_blind_ante", "cap_heads_up")


@dataclass(slots=True, kw_only=True)
class TDeal(TableCommand):
    kind = "t_deal"
    who = Who.DIRECTOR
    stakes: Mapping[str, Any]

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        return cls(sender=sender, stakes={k: data[k] for k in STAKES if k in data})


@dataclass(slots=True, kw_only=True)
class TClose(TableCommand):
    kind = "t_close"
    who = Who.DIRECTOR
    #: false (a table broken mid-tournament): its seed ends sealed, shown at the end
    reveal: bool = True

    @classmethod
    def parse(cls, sender: str | None, data: Mapping[str, Any]) -> Self:
        return cls(sender=sender, reveal=bool(data.get("reveal", True)))


# --------------------------------------------------------------- the table
@dataclass(slots=True, kw_only=True)
class Start(TableCommand):
    """The table starts (or restarts from the store): the first command of its actor."""

    kind = "start"
    who = Who.TABLE


@dataclass(slots=True, kw_only=True)
class Attach(TableCommand):
    """A connection (or a bot) starts watching; `stream`/`since`: where it resumes."""

    kind = "attach"
    who = Who.TABLE
    viewer: int
    stream: str | None = None
    since: int | None = None


@dataclass(slots=True, kw_only=True)
class Detach(TableCommand):
    kind = "detach"
    who = Who.TABLE
    viewer: int


@dataclass(slots=True, kw_only=True)
class Fire(TableCommand):
    """A timer is due (the actor posts it when `at` comes)."""

    kind = "fire"
    who = Who.TABLE
    timer: Timer
    at: float


@dataclass(slots=True, kw_only=True)
class Auto(TableCommand):
    """Act for the player to act at `counter` of `hand`, who is gone."""

    kind = "auto"
    who = Who.TABLE
    hand: str
    counter: int


#: the commands `parse` builds, by kind (attach and detach: the actor's, with their viewer)
KINDS: dict[str, type[TableCommand]] = {
    c.kind: c
    for c in (Sit, TopUp, SitOut, SitIn, Leave, Straddle, Act, Show, RabbitHunt, ShowCards,
              MoreTime, SitOutNext, SitOutNextBb, SetPreference, Chat, React, Seed, Approve,
              Refuse, CancelRequest, Pause,
              Resume, SetStakes, Remove, Adjust, TransferHost, AddBot, BombPotNext, SpectatorChat,
              Close, RotateSeed, Ledger, TSeat, TUnseat, TAddon, TDeal, TClose)
}  # fmt: skip
PLAYER_COMMANDS = frozenset(k for k, c in KINDS.items() if c.who is Who.ANYONE and k != "ledger")
HOST_COMMANDS = frozenset(k for k, c in KINDS.items() if c.who is Who.HOST)
CASH_ONLY = frozenset(k for k, c in KINDS.items() if c.cash_only)
DIRECTOR_COMMANDS = frozenset(k for k, c in KINDS.items() if c.who is Who.DIRECTOR)


def check_kind(kind: str, sender: str | None, host_id: str, tournament: bool) -> None:
    """Who may send `kind` at this table, before anything else is looked at."""
    if tournament and kind in CASH_ONLY:
        raise TableError("tournament", "not at a tournament table: chips stay in play")
    if tournament and kind == "rotate_seed":  # it shows the folded hands of players still in
        raise TableError("tournament", "a tournament table's seed is revealed at its end")
    if not tournament and kind in DIRECTOR_COMMANDS:
        raise TableError("unknown_command", f"unknown command {kind!r}")
    if kind in HOST_COMMANDS and sender != host_id:
        raise TableError("not_host", "only the host can do that")


def parse(kind: str, sender: str | None, data: Mapping[str, Any]) -> TableCommand:
    command = KINDS.get(kind)
    if command is None:
        raise TableError("unknown_command", f"unknown command {kind!r}")
    return command.parse(sender, data)
