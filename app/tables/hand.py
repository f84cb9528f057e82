"""One hand at a table: the engine's `HandState` plus which seat sits at which position.

A hand is stored as its setup, its deck order and its actions, never as derived state; this
module turns those into JSON-able records and back (`Hand.replay`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.poker import GAMES, Action, ActionKind, Betting, HandConfig, HandSetup, HandState, OddChip
from app.poker.events import PotAwarded
from app.tables.fairness import HandDeal


def setup_to_json(setup: HandSetup) -> dict[str, Any]:
    c = setup.config
    return {
        "config": {
            "game": c.game.key,
            "betting": str(c.betting),
            "small_bet": c.small_bet,
            "big_bet": c.big_bet,
            "boards": c.boards,
            "bomb_pot": c.bomb_pot,
            "run_it_twice": c.run_it_twice,
            "raise_cap": c.raise_cap,
            "odd_chip": str(c.odd_chip),
            "cap_heads_up": c.cap_heads_up,
        },
        "stacks": list(setup.stacks),
        "blinds": list(setup.blinds),
        "antes": list(setup.antes),
        "posts": list(setup.posts),
        "dead": list(setup.dead),
    }


def setup_from_json(data: dict[str, Any]) -> HandSetup:
    c = data["config"]
    config = HandConfig(
        game=GAMES[c["game"]],
        betting=Betting(c["betting"]),
        small_bet=int(c["small_bet"]),
        big_bet=int(c["big_bet"]),
        boards=int(c["boards"]),
        bomb_pot=bool(c["bomb_pot"]),
        run_it_twice=bool(c["run_it_twice"]),
        raise_cap=int(c["raise_cap"]),
        odd_chip=OddChip(c["odd_chip"]),
        # Hands stored before the setting existed were dealt with the cap kept heads-up.
        cap_heads_up=bool(c.get("cap_heads_up", True)),
    )
    return HandSetup(
        config=config,
        stacks=tuple(data["stacks"]),
        blinds=tuple(data["blinds"]),
        antes=tuple(data["antes"]),
        posts=tuple(data["posts"]),
        dead=tuple(data["dead"]),
    )


def action_to_json(action: Action) -> dict[str, Any]:
    return {
        "player": action.player,
        "kind": str(action.kind),
        "amount": action.amount,
        "agree": action.agree,
    }


def action_from_json(data: dict[str, Any]) -> Action:
    return Action(
        player=int(data["player"]),
        kind=ActionKind(data["kind"]),
        amount=data.get("amount"),
        agree=data.get("agree"),
    )


def awarded(state: HandState) -> int:
    """Every chip awarded so far: the hand's pot once it is over (returned bets excluded)."""
    return sum(e.amount for e in state.log if isinstance(e, PotAwarded))


@dataclass
class Hand:
    """The hand in progress (or just finished) at a table."""

    id: str
    number: int
    button: int
    seats: tuple[int, ...]  # seat number of each position
    players: tuple[str, ...]  # player id of each position
    state: HandState
    straddle: int | None = None
    #: the seats of the small and big blind (the dead button places the next hand's by them)
    blind_seats: tuple[int | None, int | None] = (None, None)
    #: the players' names as dealt, by position (for the hand's history)
    names: tuple[str, ...] = ()
    #: positions played by practice bots (app.bots): the hand's record marks them
    bots: tuple[int, ...] = ()
    #: hole cards of positions that mucked or folded are never shown: the engine's `shown`
    #: flags say what is public.
    meta: dict[str, Any] = field(default_factory=dict)
    #: the deck's commitments and salts (app.tables.fairness); None for a hand dealt before
    deal: HandDeal | None = None
    #: what was asked for once the hand was over, in order (app/tables/after.py): the
    #: rabbit hunt's boards, the cards a player chose to show. Public notes, never a result.
    after: tuple[dict[str, Any], ...] = ()

    @property
    def counter(self) -> int:
        """The number of actions applied so far: the next action must carry this value."""
        return len(self.state.history)

    def position_of_seat(self, seat: int) -> int | None:
        try:
            return self.seats.index(seat)
        except ValueError:
            return None

    def position_of_player(self, player_id: str) -> int | None:
        try:
            return self.players.index(player_id)
        except ValueError:
            return None

    def record(self) -> dict[str, Any]:
        """The durable description of the hand apart from its deck and actions."""
        return {
            "setup": setup_to_json(self.state.setup),
            "seats": list(self.seats),
            "players": list(self.players),
            "button": self.button,
            "straddle": self.straddle,
            "blind_seats": list(self.blind_seats),
            "names": list(self.names),
            "bots": list(self.bots),
            "after": [dict(note) for note in self.after],
        }

    @classmethod
    def replay(
        cls,
        hand_id: str,
        number: int,
        record: dict[str, Any],
        deck: list[int],
        actions: list[dict[str, Any]],
    ) -> Hand:
        setup = setup_from_json(record["setup"])
        state = HandState.replay(setup, deck, [action_from_json(a) for a in actions])
        return cls(
            id=hand_id,
            number=number,
            button=int(record["button"]),
            seats=tuple(record["seats"]),
            players=tuple(record["players"]),
            state=state,
            straddle=record.get("straddle"),
            blind_seats=tuple(record.get("blind_seats") or (None, None)),
            names=tuple(record.get("names", ())),
            bots=tuple(record.get("bots", ())),
            after=tuple(record.get("after", ())),
        )
