"""A hand's data: the deck and what has been drawn from it, the chips, the cards held and
on the boards, whose turn it is; and the questions read from them alone.

``Hand`` changes nothing by itself but ``draw``: the rules that move it are the plain
functions of ``betting``, ``runout`` and ``showdown``, which ``HandState`` drives.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import countOf

from .actions import BETTING, COMPLETE, PREFLOP, Action
from .cards import Card, card_str
from .errors import ConfigError
from .evaluation import (
    HandDescription,
    describe_checked_high,
    describe_checked_low,
    high_value,
    low_value,
)
from .events import Event
from .pots import Pot, build_pots
from .setup import HandSetup

_CARDS = frozenset(range(52))


def check_deck(deck: Sequence[Card]) -> None:
    # The usual case checked in C, the types first (a set needs hashable cards): every card
    # an int, as many different ones as the deck holds, all of them cards. ``countOf``
    # compares by identity first: cheaper than a set of the types. The rules themselves
    # only when that fails.
    n = len(deck)
    if countOf(map(type, deck), int) == n:
        cards = set(deck)
        if len(cards) == n and cards <= _CARDS:
            return
    if any(not isinstance(c, int) or not 0 <= c < 52 for c in deck):
        raise ConfigError("the deck holds something that is not a card")
    if len(set(deck)) != len(deck):
        raise ConfigError("the deck holds a card twice")


class Hand:
    """The state of one hand of Omaha as data. Players are numbered by position."""

    # Slots: a hand has 35 attributes, more than the 29 that CPython 3.11 lets the instances
    # of a class share; past them each hand had a dict of its own, on which every attribute
    # and method read missed its fast path (issue 29). A subclass may still add attributes.
    __slots__ = (
        "_named", "_named_low", "_next", "_pots", "_pots_key", "_values", "actor",
        "bet_count", "bets", "boards", "burns", "capped", "committed", "config", "dead",
        "deck", "folded", "full_level", "history", "hole", "last_aggressor", "level_seen",
        "log", "max_bet", "min_increment", "mucked", "n", "phase", "runs", "setup",
        "showdown_order", "shown", "stacks", "street", "votes",
    )  # fmt: skip

    def __init__(self, setup: HandSetup, deck: Sequence[Card]) -> None:
        setup.validate()
        cfg = setup.config
        n = setup.players
        check_deck(deck)
        self.setup = setup
        self.config = cfg
        self.n = n
        self.deck: tuple[Card, ...] = tuple(deck)
        self._next = 0
        self.burns: list[Card] = []
        self.stacks = list(setup.stacks)
        self.bets = [0] * n
        self.committed = [0] * n
        self.dead = [0] * n  # dead money inside ``committed``: main pot only
        self.folded = [False] * n
        self.shown = [False] * n
        self.mucked = [False] * n
        self.hole: list[tuple[Card, ...]] = [()] * n
        # boards[run][board] -> cards
        self.boards: list[list[list[Card]]] = [[[] for _ in range(cfg.boards)]]
        self.street = PREFLOP
        self.phase = BETTING
        self.actor: int | None = None
        self.max_bet = 0
        self.min_increment = cfg.small_bet
        self.bet_count = 0
        # Fixed limit: the level of the last full bet (an all-in of half a bet or more counts
        # as one): the next raise goes a bet above it; and whether the round is capped for
        # good (the cap was reached while three or more players had chips).
        self.full_level = 0
        self.capped = False
        self.level_seen: list[int | None] = [None] * n
        self.last_aggressor: int | None = None
        self.runs = 1
        self.votes: dict[int, bool] = {}
        self.showdown_order: list[int] = []
        # (run, board, player) -> (high value, low value or None), filled at the showdown
        self._values: dict[tuple[int, int, int], tuple[int, int | None]] = {}
        self._named: dict[tuple[int, int, int], HandDescription] = {}  # as _values
        self._named_low: dict[tuple[int, int, int], HandDescription | None] = {}
        self._pots_key: tuple[int | bool, ...] = ()
        self._pots: list[Pot] = []
        self.history: list[Action] = []
        self.log: list[Event] = []

    # ------------------------------------------------------------------- the deck
    def draw(self, count: int) -> tuple[Card, ...]:
        """The next ``count`` cards of the deck, in order (the dealer's job only)."""
        end = self._next + count
        if end > len(self.deck):
            raise ConfigError("the deck ran out of cards")
        cards = self.deck[self._next : end]
        self._next = end
        return cards

    @property
    def cards_left(self) -> int:
        return len(self.deck) - self._next

    # -------------------------------------------------------------------- queries
    @property
    def complete(self) -> bool:
        return self.phase is COMPLETE

    # The counts below are loops, not comprehensions or ``any`` over a generator: in 3.11
    # each of those builds a function or a generator and calls it, several times the cost
    # of six turns of a loop (issue 29).
    def contenders(self) -> list[int]:
        folded = self.folded
        out = []
        for p in range(self.n):
            if not folded[p]:
                out.append(p)
        return out

    def may_show(self, p: object) -> bool:
        """After a pot nobody called: its winner may show their hand, once (TDA and most
        rooms allow it). The show is the hand's last action."""
        return (
            self.phase is COMPLETE
            and self.contenders() == [p]
            and isinstance(p, int)
            and not self.shown[p]
        )

    def can_bet(self, p: int) -> bool:
        return not self.folded[p] and self.stacks[p] > 0

    def is_all_in(self, p: int) -> bool:
        return not self.folded[p] and self.stacks[p] == 0

    def players_with_chips(self) -> int:
        folded = self.folded
        count = 0
        for p, stack in enumerate(self.stacks):
            if stack > 0 and not folded[p]:
                count += 1
        return count

    def anyone_all_in(self) -> bool:
        """Whether a player still in has no chips behind."""
        folded = self.folded
        for p, stack in enumerate(self.stacks):  # noqa: SIM110 (a loop: see above)
            if stack == 0 and not folded[p]:
                return True
        return False

    def pot_total(self) -> int:
        """Every chip in the middle, bets of this round included."""
        return sum(self.committed)

    def pots(self) -> list[Pot]:
        """Pots as they stand, counting only chips gathered from previous rounds."""
        gathered = [c - b for c, b in zip(self.committed, self.bets, strict=True)]
        return build_pots(gathered, self.folded, self.dead)

    def gathered(self) -> list[Pot]:
        """``build_pots`` of every chip committed, built once for each state of the chips."""
        key = (*self.committed, *self.folded, *self.dead)
        if self._pots_key != key:
            self._pots_key, self._pots = key, build_pots(self.committed, self.folded, self.dead)
        return self._pots

    def board(self, run: int = 0, board: int = 0) -> tuple[Card, ...]:
        return tuple(self.boards[run][board])

    # ------------------------------------------------------------ hand values
    def values_of(self, run: int, b: int, p: int) -> tuple[int, int | None]:
        """``p``'s high value and low value (None: no qualifying low) on one board of one
        run; lower is better. Computed once per hand."""
        key = (run, b, p)
        got = self._values.get(key)
        if got is None:
            board = self.boards[run][b]
            low = low_value(self.hole[p], board) if self.config.hi_lo else None
            got = self._values[key] = (high_value(self.hole[p], board), low)
        return got

    def describe_high(self, run: int, b: int, p: int) -> HandDescription:
        """``p``'s best high on one board of one run, named once per hand (the award names
        each share; the odd-chip order reads it too), its value already known."""
        key = (run, b, p)
        got = self._named.get(key)
        if got is None:
            value = self.values_of(run, b, p)[0]
            hole, board = self.hole[p], self.boards[run][b]
            got = self._named[key] = describe_checked_high(hole, board, value)
        return got

    def describe_low(self, run: int, b: int, p: int) -> HandDescription | None:
        """``p``'s best low on one board of one run (None: no qualifying low), as
        ``describe_high``."""
        key = (run, b, p)
        if key not in self._named_low:
            self._named_low[key] = describe_checked_low(self.hole[p], self.boards[run][b])
        return self._named_low[key]

    # ------------------------------------------------------------------ records
    def fingerprint(self) -> tuple[object, ...]:
        """Everything that makes this hand what it is, for replay-equality checks."""
        return (
            self.deck,
            self._next,
            tuple(self.stacks),
            tuple(self.bets),
            tuple(self.committed),
            tuple(self.dead),
            tuple(self.folded),
            tuple(self.shown),
            tuple(self.mucked),
            tuple(tuple(tuple(b) for b in run) for run in self.boards),
            self.street,
            self.phase,
            self.actor,
            self.max_bet,
            self.min_increment,
            self.bet_count,
            self.full_level,
            self.capped,
            tuple(self.level_seen),
            self.last_aggressor,
            self.runs,
            tuple(sorted(self.votes.items())),
            tuple(self.history),
            tuple(self.log),
        )

    def describe(self) -> str:
        """A one-line summary for debugging; never includes hole cards."""
        boards = " | ".join(
            " ".join(card_str(c) for c in board) for run in self.boards for board in run
        )
        return f"{self.street.label} {self.phase} actor={self.actor} board=[{boards}]"
