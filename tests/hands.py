"""One small hand played through the engine, for tests that need a stored hand but not a
random one: heads-up pot-limit Omaha 1/2, called before the flop and checked down to the
showdown (no all-in, so no equity is ever computed for it)."""

from __future__ import annotations

import random
import uuid
from dataclasses import replace

from app.poker import GAMES, Action, ActionKind, Betting, HandConfig, HandSetup, HandState
from app.tables.hand import Hand
from app.tables.seat import Seat
from app.tables.store_protocol import TableStore


def checked_down(
    players: tuple[str, str],
    names: tuple[str, str] = ("Ann", "Ben"),
    stacks: tuple[int, int] = (100, 100),
    *,
    number: int = 1,
    seats: tuple[int, int] = (1, 0),
    seed: int = 7,
    deck: list[int] | None = None,
    actions: int | None = None,
) -> tuple[Hand, list[int]]:
    """The finished hand (or, with `actions`, the hand after that many) and its deck (by
    default shuffled from `seed`). Position 0 (first after the button) posts the big blind;
    position 1 is the button and posts the small blind (heads-up)."""
    config = HandConfig(game=GAMES["omaha"], betting=Betting.POT_LIMIT, small_bet=2)
    setup = HandSetup(config, stacks, blinds=(2, 1))
    if deck is None:
        deck = list(range(52))
        random.Random(seed).shuffle(deck)
    state = HandState(setup, deck)
    while not state.complete and (actions is None or len(state.history) < actions):
        legal = state.legal_actions()
        assert legal is not None
        if ActionKind.SHOW in legal.kinds():
            state.apply(Action(legal.player, ActionKind.SHOW))
        elif legal.check:
            state.apply(Action(legal.player, ActionKind.CHECK))
        else:
            state.apply(Action(legal.player, ActionKind.CALL))
    hand = Hand(
        id=str(uuid.uuid4()),
        number=number,
        button=seats[-1],
        seats=seats,
        players=players,
        state=state,
        names=names,
    )
    return hand, deck


async def store_hand(store: TableStore, table_id: str, hand: Hand, deck: list[int]) -> None:
    """Write a finished hand as a table does: its start, then each action (the last one with
    the seats' new stacks)."""
    seats = [
        Seat(number=s, player_id=p, name=name, stack=stack)
        for s, p, name, stack in zip(
            hand.seats, hand.players, hand.names, hand.state.setup.stacks, strict=True
        )
    ]
    replayed = replace(hand, state=HandState(hand.state.setup, deck))
    await store.start_hand(table_id, replayed, deck, seats, hand.button, hand.number)
    for counter, action in enumerate(hand.state.history):
        replayed.state.apply(action)
        final = None
        if replayed.state.complete:
            seats = [s._replace(stack=replayed.state.stacks[p]) for p, s in enumerate(seats)]
            final = seats
        await store.record_action(table_id, replayed, counter, action, final)
