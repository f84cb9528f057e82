"""Liveness through database outages, on the machine driven synchronously (no event loop, no
clock but the test's): whatever writes were refused, and whenever, the table is never left
with nothing armed while it could deal, and once the store answers again it plays on
without anyone doing more than a client does (act on its turn, top up when busted, and send
again what was answered `unavailable`).

Found by the short fault run (tests/scale/test_nemesis.py): PostgreSQL went down just as an
all-in hand ended with two of three players busted; their top-ups were refused and the
players never sent them again, so the table, with one stack left to deal to, waited for
ever. The table was right to wait (a top-up answered `unavailable` changed nothing); the
players now send it again (tests/scale/test_players.py). These hold the table's side."""

from __future__ import annotations

import random
from collections import deque

import pytest

from app.poker import ActionKind
from app.tables.clock import NEXT_HAND
from app.tables.commands import Attach, Fire, TableCommand, TopUp, parse
from app.tables.config import TableConfig
from app.tables.effects import Need, Post, Write
from app.tables.errors import TableError
from app.tables.machine import Outcome
from app.tables.ops import AddChips
from app.tables.runtime import Runtime
from tests.tables.harness import random_action
from tests.tables.test_machine import DOWN, Table

#: the short fault run's pace: the next hand at once, no away grace, no decision clock
RUNTIME = Runtime(between_hands=0.0, away_grace=3600.0, retry_delay=1.0)
PLAYERS = ("host", "a", "b")


class Driven(Table):
    """`Table` with what the actor adds: the commands the table posts to itself are run
    after the one that posted them, and timers fire when their time has come. Besides
    `failing` (writes of a kind refused), `flaky`: the chance that any write is refused."""

    flaky = 0.0
    rng = random.Random(0)

    def run(self, command: TableCommand) -> Outcome:
        queue: deque[TableCommand] = deque([command])
        first: Outcome | None = None
        while queue:
            outcome = self.machine.run(queue.popleft(), self.now, self.refuse)
            first = first or outcome
            queue.extend(e.command for e in outcome.did if isinstance(e, Post))
        assert first is not None
        return first

    def refuse(self, need: Need) -> TableError | None:
        if not isinstance(need, Write):
            return None
        failing = self.failing
        if (failing is not None and isinstance(need.op, failing)) or self.rng.random() < self.flaky:
            return DOWN
        return None

    def tick(self, seconds: float) -> None:
        self.now += seconds
        while due := sorted((at, t) for t, at in self.core.clock.deadlines.items()
                            if at <= self.now):  # fmt: skip
            at, timer = due[0]
            self.run(Fire(timer=timer, at=at))

    def stuck(self) -> bool:
        """No hand in play, no deal armed, and yet two stacks to deal to."""
        core = self.core
        dealable = sum(1 for s in core.seats.taken() if s.can_be_dealt())
        return not core.hand_running() and not core.clock.armed(NEXT_HAND) and dealable >= 2


def watched_table() -> Driven:
    """Three players seated and watching (an unwatched table would rightly go idle)."""
    t = Driven(TableConfig(seats=3, decision_time=0), RUNTIME)
    for viewer, player in enumerate(PLAYERS, start=1):
        t.run(Attach(sender=player, viewer=viewer))
        t.sit(player, viewer - 1)
    t.tick(0.0)
    assert t.core.hand is not None
    return t


def client_step(t: Driven, rng: random.Random, *, all_in: float = 0.5) -> None:
    """What the players' clients do: the player to act acts (all in often, to bust
    players); a busted player tops up. A refused command is sent again next time."""
    hand = t.core.hand
    if hand is not None and t.core.hand_running() and hand.state.actor is not None:
        legal = hand.state.legal_actions()
        assert legal is not None
        data = random_action(hand.state, rng)
        if legal.raise_kind is not None and rng.random() < all_in:
            data = {"action": str(legal.raise_kind), "amount": legal.max_to}
        player = hand.players[hand.state.actor]
        t.run(parse("act", player, {"hand": hand.id, "counter": hand.counter, **data}))
    for seat in t.core.seats.taken():
        if seat.stack == 0 and not t.core.in_hand(seat) and not seat.pending_top_up:
            t.run(TopUp(sender=seat.player_id, amount=100))


def all_in_ending_as_the_store_goes_down(t: Driven) -> None:
    """Everyone all in, the host (stacked deck) wins the lot: the hand ends stored, two
    players busted, and the store goes down at once."""
    hand = t.core.hand
    assert hand is not None
    while t.core.hand_running():
        legal = hand.state.legal_actions()
        assert legal is not None
        if legal.raise_kind is not None:
            t.act(legal.raise_kind, legal.max_to)
        elif legal.call:
            t.act(ActionKind.CALL)
        else:
            t.act(ActionKind.CHECK)
        t.tick(0.0)  # the table's own show or muck at the showdown
    t.failing = object  # every write refused from here
    t.tick(0.0)
    assert [s.stack for s in t.core.seats.taken()] == [300, 0, 0]


def test_busted_players_top_ups_refused_then_sent_again_deal_the_next_hand() -> None:
    """The stalled table of the short fault run, step by step."""
    t = watched_table()
    all_in_ending_as_the_store_goes_down(t)
    number = t.core.kept.hand_number
    for player in ("a", "b"):  # each top-up refused: nothing changed
        refused = t.run(TopUp(sender=player, amount=100))
        assert refused.error is not None and refused.error.code == "unavailable"
    t.tick(10.0)
    # One stack: nothing to deal, and nothing to arm: the table waits for a top-up, which
    # only a player can send (a refused one is theirs to send again).
    assert not t.core.clock.deadlines and not t.core.hand_running() and not t.stuck()
    t.failing = None  # the store answers again; the top-up is sent again
    done = t.run(TopUp(sender="a", amount=100))
    assert done.error is None and done.result == {"status": "done", "stack": 100}
    t.tick(0.0)
    assert t.core.hand_running() and t.core.kept.hand_number == number + 1


def test_top_ups_refused_while_the_store_is_down_only_for_them() -> None:
    """Only the top-ups' writes refused (the deal's would be stored): the same wait."""
    t = watched_table()
    all_in_ending_as_the_store_goes_down(t)
    t.failing = AddChips
    for player in ("a", "b"):
        assert t.run(TopUp(sender=player, amount=100)).error is not None
    t.tick(10.0)
    assert not t.core.hand_running() and not t.stuck()
    t.failing = None
    for player in ("a", "b"):
        t.run(TopUp(sender=player, amount=100))
    t.tick(0.0)
    hand = t.core.hand
    assert hand is not None and t.core.hand_running() and len(hand.players) == 3


@pytest.mark.parametrize("seed", range(12))
def test_outages_at_any_moment_never_leave_a_table_that_could_deal_with_nothing_armed(
    seed: int,
) -> None:
    """Hands played by clients (all in often) while the store goes down, refuses some writes
    (any write of a command: the flows' every step) and comes back, at random moments: after
    every step the table is dealing, or has a deal armed, or has fewer than two stacks to
    deal to (a busted player's top-up to come); once the store is back for good, hands are
    dealt again."""
    rng = random.Random(seed)
    t = watched_table()
    t.rng = random.Random(seed)
    for step in range(400):
        if rng.random() < 0.08:
            t.flaky = rng.choice((0.0, 0.0, 0.3, 1.0))
        client_step(t, rng)
        assert not t.stuck(), (seed, step)
        t.tick(rng.choice((0.0, 0.0, 0.5, 1.0)))
        assert not t.stuck(), (seed, step)
    t.flaky = 0.0
    number = t.core.kept.hand_number
    for _ in range(200):
        client_step(t, rng)
        t.tick(1.0)
    assert t.core.kept.hand_number >= number + 3, seed
