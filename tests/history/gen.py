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


def random_hand(
    rng: random.Random, game: str, serial: int, players: list[str] | None = None
) -> tuple[StoredHand, Hand]:
    """A finished random hand of `game`: stakes, boards, bomb pot, straddle, run it twice
    and short stacks drawn at random. `players` (ids) picks who is dealt in, else fresh."""
    spec = GAMES[game]
    boards = 2 if rng.random() < 0.2 and max_players(spec, 2) >= 2 else 1
    most = max_players(spec, boards)
    n = rng.randint(2, most) if players is None else min(len(players), most)
    betting = rng.choice(list(Betting))
    bomb = rng.random() < 0.1
    config = HandConfig(
        game=spec,
        betting=betting,
        small_bet=2,
        big_bet=4 if betting is Betting.FIXED_LIMIT else 0,
        boards=boards,
        bomb_pot=bomb,
        run_it_twice=rng.random() < 0.4,
    )
    stacks = tuple(rng.choice([3, 10, 25, 60, 100, 200, 400]) for _ in range(n))
    seats = tuple(sorted(rng.sample(range(10), n)))
    k = rng.randrange(n)
    seats = seats[k:] + seats[:k]  # position order, the button last
    straddle = None
    if bomb:
        blinds: tuple[int, ...] = ()
        antes = (2,) * n
    else:
        blind_list = [1, 2] + [0] * (n - 2) if n > 2 else [2, 1]
        if n > 3 and rng.random() < 0.2:
            blind_list[2] = 4
            straddle = seats[2]
        blinds = tuple(blind_list)
        antes = (1,) * n if rng.random() < 0.2 else ()
    setup = HandSetup(config, stacks, blinds=blinds, antes=antes)
    deck = list(range(52))
    rng.shuffle(deck)
    state = HandState(setup, deck)
    while not state.complete:
        state.apply(random_action(state, rng))
    ids = tuple(players[:n]) if players is not None else tuple(str(uuid.uuid4()) for _ in range(n))
    hand = Hand(
        id=str(uuid.uuid4()),
        number=serial,
        button=seats[-1],
        seats=seats,
        players=ids,
        state=state,
        straddle=straddle,
        names=tuple(rng.sample(NAMES, n)),
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
        at_table=serial,
    )
    return stored, hand
