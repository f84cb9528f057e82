"""Random finished hands, played through the engine directly (no table, no sockets), and the
stored form review reads them from."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime

from app.history.record import StoredHand
from app.poker import GAMES, Action, ActionKind, Betting, HandConfig, HandSetup, HandState
from app.poker.games import max_players
from app.tables.hand import Hand, action_to_json

NAMES = ("Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi", "Ivan", "Judy")


def random_action(state: HandState, rng: random.Random) -> Action:
    legal = state.legal_actions()
    assert legal is not None
    p = legal.player
    kinds = legal.kinds()
    if ActionKind.RUN_TWICE in kinds:
        return Action(p, ActionKind.RUN_TWICE, agree=rng.random() < 0.6)
    if ActionKind.SHOW in kinds:
        if ActionKind.MUCK in kinds and rng.random() < 0.5:
            return Action(p, ActionKind.MUCK)
        return Action(p, ActionKind.SHOW)
    r = rng.random()
    if legal.raise_kind is not None and r < 0.35:
        amount = rng.choice([legal.min_to, legal.max_to, legal.pot_to,
                             rng.randint(legal.min_to, legal.max_to)])  # fmt: skip
        return Action(p, legal.raise_kind, amount)
    if r < 0.45 and not legal.check:
        return Action(p, ActionKind.FOLD)
    if legal.check:
        return Action(p, ActionKind.CHECK)
    return Action(p, ActionKind.CALL)


def show_after_win(state: HandState, rng: random.Random) -> None:
    """Now and then the winner of a pot nobody contested shows their hand."""
    for p in range(state.n):
        if state.may_show(p) and rng.random() < 0.4:
            state.apply(Action(p, ActionKind.SHOW))


def stored_hand(
    state: HandState,
    deck: list[int],
    serial: int,
    seats: tuple[int, ...],
    players: tuple[str, ...],
    names: tuple[str, ...],
    straddle: int | None = None,
) -> tuple[StoredHand, Hand]:
    """A finished hand as the table keeps it and as the store gives it to review."""
    hand = Hand(
        id=str(uuid.uuid4()),
        number=serial,
        button=seats[-1],
        seats=seats,
        players=players,
        state=state,
        straddle=straddle,
        names=names,
    )
    stored = StoredHand(
        serial=serial,
        table_name="Friday",
        table_seats=10,
        small_blind=1,
        started_at=datetime(2026, 11, 30, 20, 15, 3, tzinfo=UTC),
        ended_at=datetime(2026, 11, 30, 20, 16, 0, tzinfo=UTC),
        record=hand.record(),
        deck=deck,
        actions=[action_to_json(a) for a in state.history],
        names={},
        at_table=serial % 97 + 1,  # the table numbers its hands its own way
    )
    return stored, hand


def _seats(rng: random.Random, n: int) -> tuple[int, ...]:
    seats = tuple(sorted(rng.sample(range(10), n)))
    k = rng.randrange(n)
    return seats[k:] + seats[:k]  # position order, the button last


def random_hand(
    rng: random.Random,
    game: str,
    serial: int,
    players: list[str] | None = None,
    betting: Betting | None = None,
    two_boards_run_twice: bool = False,
) -> tuple[StoredHand, Hand]:
    """A finished random hand of `game`: stakes, boards, bomb pot, straddle, run it twice
    and short stacks drawn at random. `players` (ids) picks who is dealt in, else fresh;
    `betting` the betting structure, else drawn too; `two_boards_run_twice` deals two
    boards at a table that runs it twice (the players still vote)."""
    spec = GAMES[game]
    boards = 2 if rng.random() < 0.2 and max_players(spec, 2) >= 2 else 1
    boards = 2 if two_boards_run_twice else boards
    most = max_players(spec, boards)
    n = rng.randint(2, most) if players is None else min(len(players), most)
    betting = rng.choice(list(Betting)) if betting is None else betting
    bomb = rng.random() < 0.1
    config = HandConfig(
        game=spec,
        betting=betting,
        small_bet=2,
        big_bet=4 if betting is Betting.FIXED_LIMIT else 0,
        boards=boards,
        bomb_pot=bomb,
        run_it_twice=rng.random() < 0.4 or two_boards_run_twice,
    )
    stacks = tuple(rng.choice([3, 10, 25, 60, 100, 200, 400]) for _ in range(n))
    seats = _seats(rng, n)
    straddle = None
    antes: tuple[int, ...] = ()
    posts: tuple[int, ...] = ()
    dead: tuple[int, ...] = ()
    if bomb:
        blinds: tuple[int, ...] = ()
        antes = (2,) * n
    else:
        blind_list = [1, 2] + [0] * (n - 2) if n > 2 else [2, 1]
        if n > 3 and rng.random() < 0.2:
            blind_list[2] = 4
            straddle = seats[2]
        blinds = tuple(blind_list)
        roll = rng.random()
        if roll < 0.2:
            antes = (1,) * n
        elif roll < 0.35:  # a big-blind ante, dead money posted by the big blind
            dead = tuple(2 if b == 2 else 0 for b in blind_list)
        if n > 4 and rng.random() < 0.15:
            # A player coming in out of position posts a live big blind, and one coming
            # back posts the small blind they missed, dead; one who missed only the small
            # blind posts only that (app/tables/button.py).
            k = rng.randrange(3 if straddle is None else 4, n)
            posts = tuple(2 if i == k else 0 for i in range(n))
            owed = rng.random()
            if owed < 0.5:
                dead = tuple(d + (1 if i == k else 0) for i, d in enumerate(dead or (0,) * n))
            if owed < 0.2:
                posts = ()
    setup = HandSetup(config, stacks, blinds=blinds, antes=antes, posts=posts, dead=dead)
    deck = list(range(52))
    rng.shuffle(deck)
    state = HandState(setup, deck)
    while not state.complete:
        state.apply(random_action(state, rng))
    show_after_win(state, rng)
    ids = tuple(players[:n]) if players is not None else tuple(str(uuid.uuid4()) for _ in range(n))
    return stored_hand(state, deck, serial, seats, ids, tuple(rng.sample(NAMES, n)), straddle)
