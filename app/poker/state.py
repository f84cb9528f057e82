"""The hand state machine.

A hand is a pure function of its ``HandSetup`` (rules, stacks, forced bets), the deck order
it is handed and the actions applied: the engine never shuffles and never reads a clock, so
replaying the same inputs rebuilds the same hand. That is how hands are stored, recovered
after a crash and exported.

Players are numbered by position: 0 is the first player clockwise of the button, the last is
the button (PHH's p1..pN). Heads-up the button posts the small blind, so there the blind list
reads ``(big, small)``: whoever builds the setup decides who posts what; the engine applies it.

Each action follows pokerkit's verify/can/do habit: ``verify`` raises ``IllegalAction`` naming
the rule, ``can`` answers yes or no, ``apply`` verifies first and only then changes anything,
returning the events it caused.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .actions import Action, ActionKind, LegalActions, Phase, Street
from .cards import Card, card_str, rank_of
from .errors import ConfigError, IllegalAction
from .evaluation import HandDescription, describe_high, describe_low, high_value, low_value
from .events import (
    Acted,
    BetReturned,
    BettingRoundStarted,
    BoardDealt,
    CardsShown,
    Event,
    ForcedBet,
    HandEnded,
    HoleCardsDealt,
    Mucked,
    PotAwarded,
    PotsGathered,
    RunItTwiceOffered,
    RunItTwiceVoted,
    RunsDecided,
)
from .games import Betting, HandConfig, OddChip
from .pots import Pot, build_pots, split_evenly, split_high_low

_FLOP_CARDS = 3
_CARDS = frozenset(range(52))
_INT_TYPES = frozenset((int, bool))
_INT = frozenset((int,))


@dataclass(frozen=True, slots=True)
class HandSetup:
    """Everything a hand starts from except the deck. Per-player tuples are in position
    order (0 = first clockwise of the button); an empty tuple means all zero.

    ``blinds`` are blinds and straddles: live bets that set the pre-flop action order (the
    player after the largest one acts first). ``posts`` are live bets by players coming in
    out of position (they do not move the action); ``dead`` chips go straight to the main
    pot and stake nothing: a missed blind posted dead, and a big-blind ante (one player
    antes for the table, so nobody matches it). ``antes`` are antes everyone posts alike
    (a classic ante, a bomb pot): each is a stake matched by the others' antes.
    """

    config: HandConfig
    stacks: tuple[int, ...]
    blinds: tuple[int, ...] = ()
    antes: tuple[int, ...] = ()
    posts: tuple[int, ...] = ()
    dead: tuple[int, ...] = ()

    @property
    def players(self) -> int:
        return len(self.stacks)

    def per_player(self, values: tuple[int, ...], what: str) -> tuple[int, ...]:
        if not values:
            return (0,) * self.players
        if len(values) != self.players:
            raise ConfigError(f"{what} lists {len(values)} players, the hand has {self.players}")
        return values

    def validate(self) -> None:
        self.config.check_players(self.players)
        for what, values in (
            ("stacks", self.stacks),
            ("blinds", self.per_player(self.blinds, "blinds")),
            ("antes", self.per_player(self.antes, "antes")),
            ("posts", self.per_player(self.posts, "posts")),
            ("dead", self.per_player(self.dead, "dead")),
        ):
            if _INT.issuperset(map(type, values)) and (not values or min(values) >= 0):
                continue  # plain non-negative ints: the usual case, checked in C
            for v in values:
                if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                    raise ConfigError(f"{what} must be whole, non-negative chip counts: {v!r}")
        if any(s <= 0 for s in self.stacks):
            raise ConfigError("every player dealt in needs chips")
        if self.config.bomb_pot and (any(self.blinds) or any(self.posts)):
            raise ConfigError("a bomb pot has antes only: no blinds and no pre-flop betting")


def _label(p: int) -> str:
    return f"p{p + 1}"


class HandState:
    """One hand of Omaha, from forced bets to the last chip awarded."""

    def __init__(self, setup: HandSetup, deck: Sequence[Card]) -> None:
        setup.validate()
        cfg = setup.config
        n = setup.players
        self._check_deck(deck)
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
        self.hole: list[tuple[Card, ...]] = [() for _ in range(n)]
        # boards[run][board] -> cards
        self.boards: list[list[list[Card]]] = [[[] for _ in range(cfg.boards)]]
        self.street = Street.PREFLOP
        self.phase = Phase.BETTING
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
        self._pots_key: tuple[int | bool, ...] = ()
        self._pots: list[Pot] = []
        self.history: list[Action] = []
        self.log: list[Event] = []
        self._start()

    # ----------------------------------------------------------------- construction
    def _check_deck(self, deck: Sequence[Card]) -> None:
        if not (_INT_TYPES.issuperset(map(type, deck)) and _CARDS.issuperset(deck)) and any(
            not isinstance(c, int) or not 0 <= c < 52 for c in deck
        ):  # the usual case checked in C; the rule itself only when that fails
            raise ConfigError("the deck holds something that is not a card")
        if len(set(deck)) != len(deck):
            raise ConfigError("the deck holds a card twice")

    @classmethod
    def replay(cls, setup: HandSetup, deck: Sequence[Card], actions: Iterable[Action]) -> HandState:
        state = cls(setup, deck)
        for action in actions:
            state.apply(action)
        return state

    def _draw(self, count: int) -> tuple[Card, ...]:
        end = self._next + count
        if end > len(self.deck):
            raise ConfigError("the deck ran out of cards")
        cards = self.deck[self._next : end]
        self._next = end
        return cards

    def _start(self) -> None:
        s, cfg, ev = self.setup, self.config, self.log
        needed = self.n * cfg.game.hole_cards + cfg.boards * 5 + cfg.game.burns
        if len(self.deck) < needed:
            raise ConfigError(f"the deck has {len(self.deck)} cards, this deal needs {needed}")
        for kind, amounts, live in (
            ("ante", s.per_player(s.antes, "antes"), False),
            ("dead", s.per_player(s.dead, "dead"), False),
            ("blind", s.per_player(s.blinds, "blinds"), True),
            ("post", s.per_player(s.posts, "posts"), True),
        ):
            for p, amount in enumerate(amounts):
                put = min(amount, self.stacks[p])
                if put <= 0:
                    continue
                self.stacks[p] -= put
                self.committed[p] += put
                if live:
                    self.bets[p] += put
                elif kind == "dead":
                    self.dead[p] += put
                ev.append(ForcedBet(p, kind, put, self.stacks[p] == 0))
        hole = cfg.game.hole_cards
        # One card at a time, clockwise from the first player left of the button.
        dealt = self._draw(hole * self.n)
        for p in range(self.n):
            self.hole[p] = tuple(dealt[p + k * self.n] for k in range(hole))
            ev.append(HoleCardsDealt(p, self.hole[p]))
        if cfg.game.courchevel:
            self.burns.extend(self._draw(1))
            for b in range(cfg.boards):
                card = self._draw(1)
                self.boards[0][b].extend(card)
                ev.append(BoardDealt(Street.PREFLOP, b, 0, card))
        if cfg.bomb_pot:
            self._finish_round_and_continue(ev)
        else:
            self._open_round(Street.PREFLOP, ev)

    # -------------------------------------------------------------------- queries
    @property
    def complete(self) -> bool:
        return self.phase is Phase.COMPLETE

    def contenders(self) -> list[int]:
        return [p for p in range(self.n) if not self.folded[p]]

    def may_show(self, p: object) -> bool:
        """After a pot nobody called: its winner may show their hand, once (TDA and most
        rooms allow it). The show is the hand's last action."""
        return (
            self.phase is Phase.COMPLETE
            and self.contenders() == [p]
            and isinstance(p, int)
            and not self.shown[p]
        )

    def _can_bet(self, p: int) -> bool:
        return not self.folded[p] and self.stacks[p] > 0

    def is_all_in(self, p: int) -> bool:
        return not self.folded[p] and self.stacks[p] == 0

    def pot_total(self) -> int:
        """Every chip in the middle, bets of this round included."""
        return sum(self.committed)

    def pots(self) -> list[Pot]:
        """Pots as they stand, counting only chips gathered from previous rounds."""
        gathered = [c - b for c, b in zip(self.committed, self.bets, strict=True)]
        return build_pots(gathered, self.folded, self.dead)

    def _gathered(self) -> list[Pot]:
        """``build_pots`` of every chip committed, built once for each state of the chips."""
        key = (*self.committed, *self.folded, *self.dead)
        if self._pots_key != key:
            self._pots_key, self._pots = key, build_pots(self.committed, self.folded, self.dead)
        return self._pots

    def board(self, run: int = 0, board: int = 0) -> tuple[Card, ...]:
        return tuple(self.boards[run][board])

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

    # ------------------------------------------------------------- betting limits
    def _raise_range(self, p: int) -> tuple[ActionKind, int, int, int] | None:
        cfg = self.config
        all_in_to = self.bets[p] + self.stacks[p]
        if all_in_to <= self.max_bet:
            return None  # can only call (perhaps all in) or fold
        if not any(q != p and self._can_bet(q) for q in range(self.n)):
            return None  # everyone else is all in: nobody to bet against
        seen = self.level_seen[p]
        kind = ActionKind.RAISE if self.max_bet > 0 else ActionKind.BET
        if cfg.betting is Betting.FIXED_LIMIT:
            # Robert's (Betting and Raising 6), TDA 47-B: only a full bet, or an all-in of
            # at least half a bet, reopens the betting for a player who has acted; facing a
            # smaller all-in a player may complete it: the raise goes a bet above the last
            # full level, not above the all-in.
            if seen is not None and self.full_level <= seen:
                return None
            if self._cap_reached():
                return None
            fixed = min(self.full_level + cfg.bet_size(self.street), all_in_to)
            return kind, fixed, fixed, fixed
        if seen is not None and self.max_bet - seen < self.min_increment:
            return None  # a short all-in does not reopen the betting for who has acted
        to_call = self.max_bet - self.bets[p]
        pot_limit_to = self.max_bet + self.pot_total() + to_call
        min_to = self.max_bet + self.min_increment
        if cfg.betting is Betting.NO_LIMIT:
            max_to = all_in_to
        else:
            max_to = min(max(pot_limit_to, min_to), all_in_to)
        # The pot-sized bet is never below the minimum (a pot smaller than the big blind).
        pot_to = min(max(pot_limit_to, min_to), all_in_to)
        return kind, min(min_to, all_in_to), max_to, pot_to

    def _cap_reached(self) -> bool:
        """Fixed limit: no more raises this round. Robert's (Betting and Raising 3, 4): the
        cap applies to a pot of three or more players who are not all in, and once reached
        a later fold does not lift it; ``cap_heads_up`` keeps it heads-up (TDA)."""
        if self.bet_count < self.config.raise_cap:
            return False
        return self.capped or self.config.cap_heads_up or self._players_with_chips() >= 3

    def _players_with_chips(self) -> int:
        return sum(1 for q in range(self.n) if not self.folded[q] and self.stacks[q] > 0)

    def legal_actions(self) -> LegalActions | None:
        p = self.actor
        if p is None:
            return None
        if self.phase is Phase.RUN_IT_TWICE:
            return LegalActions(p, self.phase, vote=True)
        if self.phase is Phase.SHOWDOWN:
            return LegalActions(p, self.phase, show=True, muck=self._may_muck(p))
        to_call = self.max_bet - self.bets[p]
        rr = self._raise_range(p)
        return LegalActions(
            p,
            self.phase,
            fold=True,
            check=to_call == 0,
            call=min(to_call, self.stacks[p]),
            raise_kind=rr[0] if rr else None,
            min_to=rr[1] if rr else 0,
            max_to=rr[2] if rr else 0,
            pot_to=rr[3] if rr else 0,
        )

    # -------------------------------------------------------------- verify / can
    def verify(self, action: Action) -> None:
        """Raise ``IllegalAction`` naming the rule if ``action`` is not allowed now."""
        p = action.player
        phase = self.phase
        if phase is Phase.COMPLETE:
            if action.kind is ActionKind.SHOW and self.may_show(p):
                return
            raise IllegalAction("the hand is over", "hand_over")
        if p != self.actor or not isinstance(p, int):  # the actor is a player or None
            if not isinstance(p, int) or not 0 <= p < self.n:
                raise IllegalAction(f"there is no player {p!r} in this hand", "no_such_player")
            who = "nobody" if self.actor is None else _label(self.actor)
            raise IllegalAction(f"it is {who}'s turn, not {_label(p)}'s", "not_your_turn")
        kind = action.kind
        if phase is Phase.BETTING:
            self._verify_betting(p, kind, action.amount)
            return
        if phase is Phase.RUN_IT_TWICE:
            if kind is not ActionKind.RUN_TWICE or not isinstance(action.agree, bool):
                raise IllegalAction("the players all in are voting on running it twice", "vote")
            return
        if self.phase is Phase.SHOWDOWN:
            if kind is ActionKind.SHOW:
                return
            if kind is ActionKind.MUCK:
                if not self._may_muck(p):
                    raise IllegalAction(
                        "this hand is not beaten by the hands shown: it must be shown in full",
                        "must_show",
                    )
                return
            raise IllegalAction("at the showdown a hand is shown or mucked", "showdown")
        raise AssertionError(f"no actor in phase {phase}")  # pragma: no cover

    def _verify_betting(self, p: int, kind: ActionKind, amount: int | None) -> None:
        if amount is not None and kind is not ActionKind.BET and kind is not ActionKind.RAISE:
            raise IllegalAction(f"{kind} takes no amount", "unexpected_amount")
        to_call = self.max_bet - self.bets[p]
        if kind is ActionKind.FOLD:
            return
        if kind is ActionKind.CHECK:
            if to_call:
                raise IllegalAction(f"cannot check facing a bet: {to_call} to call", "cannot_check")
            return
        if kind is ActionKind.CALL:
            if not to_call:
                raise IllegalAction("nothing to call: check instead", "cannot_call")
            return
        if kind is ActionKind.BET or kind is ActionKind.RAISE:
            self._verify_wager(p, kind, amount)
            return
        raise IllegalAction(f"{kind} is not a betting action", "not_betting")

    def _verify_wager(self, p: int, kind: ActionKind, amount: int | None) -> None:
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise IllegalAction(f"{kind} needs a whole number of chips to bet to", "bad_amount")
        rr = self._raise_range(p)
        if rr is None:
            cap = self.config.raise_cap
            if self.config.betting is Betting.FIXED_LIMIT and self._cap_reached():
                raise IllegalAction(f"the betting is capped at {cap} bets this round", "capped")
            raise IllegalAction(f"{_label(p)} may not bet or raise now", "cannot_raise")
        want, lo, hi, _ = rr
        if kind is not want:
            raise IllegalAction(
                "nobody has bet: bet instead of raise"
                if want is ActionKind.BET
                else "there is a bet: raise instead of bet",
                "wrong_wager",
            )
        if amount > self.bets[p] + self.stacks[p]:
            raise IllegalAction(
                f"{kind} to {amount} is more than {_label(p)} has "
                f"({self.bets[p] + self.stacks[p]})",
                "over_stack",
            )
        if amount < lo:
            what = "fixed bet" if self.config.betting is Betting.FIXED_LIMIT else "minimum"
            raise IllegalAction(f"{kind} to {amount} is below the {what} of {lo}", "below_minimum")
        if amount > hi:
            what = {
                Betting.POT_LIMIT: "pot limit",
                Betting.FIXED_LIMIT: "fixed bet",
                Betting.NO_LIMIT: "stack",
            }[self.config.betting]
            raise IllegalAction(f"{kind} to {amount} is above the {what} of {hi}", "above_maximum")

    def can(self, action: Action) -> bool:
        try:
            self.verify(action)
        except IllegalAction:
            return False
        return True

    # ------------------------------------------------------------------------- do
    def apply(self, action: Action) -> list[Event]:
        """Apply a legal action and return the events it caused; an illegal one raises
        ``IllegalAction`` and changes nothing."""
        self.verify(action)
        events: list[Event] = []
        self.history.append(action)
        if self.phase is Phase.COMPLETE:  # a show after an uncontested win
            self.shown[action.player] = True
            events.append(CardsShown(action.player, self.hole[action.player]))
        elif self.phase is Phase.RUN_IT_TWICE:
            self._vote(action.player, bool(action.agree), events)
        elif self.phase is Phase.SHOWDOWN:
            self._show_or_muck(action.player, action.kind is ActionKind.SHOW, events)
        else:
            self._wager(action, events)
        self.log.extend(events)
        return events

    def _wager(self, action: Action, events: list[Event]) -> None:
        p, kind = action.player, action.kind
        put = 0
        if kind is ActionKind.FOLD:
            self.folded[p] = True
        elif kind is ActionKind.CALL:
            put = min(self.max_bet - self.bets[p], self.stacks[p])
        elif kind in (ActionKind.BET, ActionKind.RAISE):
            assert action.amount is not None
            to = action.amount
            put = to - self.bets[p]
            if self.config.betting is Betting.FIXED_LIMIT:
                # A full bet, or an all-in of at least half a bet, which counts as one.
                if 2 * (to - self.full_level) >= self.config.bet_size(self.street):
                    self.full_level = to
                    self.bet_count += 1
                    if self.bet_count >= self.config.raise_cap and self._players_with_chips() >= 3:
                        self.capped = True
            else:
                increment = to - self.max_bet
                if increment >= self.min_increment:
                    self.min_increment = increment
                    self.bet_count += 1
            self.max_bet = to
            self.last_aggressor = p
        stacks, bets = self.stacks, self.bets
        stacks[p] -= put
        bets[p] += put
        self.committed[p] += put
        self.level_seen[p] = self.max_bet
        events.append(
            Acted(p, kind, put, bets[p], stacks[p], stacks[p] == 0 and kind is not ActionKind.FOLD)
        )
        if self.folded.count(False) == 1:
            self._close_round(events)
            self._award(events)
            return
        nxt = self._next_to_act(p + 1)
        if nxt is not None:
            self.actor = nxt
            return
        self._finish_round_and_continue(events)

    # ------------------------------------------------------------------ rounds
    def _needs_to_act(self, p: int) -> bool:
        if not self._can_bet(p):
            return False
        return self.level_seen[p] is None or self.bets[p] < self.max_bet

    def _next_to_act(self, start: int) -> int | None:
        # The hot path of every action: _can_bet and _needs_to_act inlined.
        n, folded, stacks, bets, max_bet = self.n, self.folded, self.stacks, self.bets, self.max_bet
        able = 0
        last = 0
        for q in range(n):
            if not folded[q] and stacks[q] > 0:
                able += 1
                last = q
        if able == 1 and bets[last] >= max(bets):
            # Alone with chips behind, matching every chip bet (a blind all in for less is
            # called in full only by a player with someone to bet against): nothing to do.
            return None
        seen = self.level_seen
        for k in range(n):
            q = (start + k) % n
            if not folded[q] and stacks[q] > 0 and (seen[q] is None or bets[q] < max_bet):
                return q
        return None

    def _open_round(self, street: Street, events: list[Event]) -> None:
        """Start a betting round; close it at once if nobody can act."""
        self.street = street
        self.phase = Phase.BETTING
        self.level_seen = [None] * self.n
        self.last_aggressor = None
        size = self.config.bet_size(street)
        if street is Street.PREFLOP:
            blinds = self.setup.per_player(self.setup.blinds, "blinds")
            posts = self.setup.per_player(self.setup.posts, "posts")
            # A blind, straddle or post all in for less must still be called in full (000:
            # the next player "must at least match" the big blind): the level to call is
            # what was due, not what was posted; the shortfall makes a side pot.
            self.max_bet = max(max(blinds), max(posts), max(self.bets))
            self.min_increment = max(size, max(blinds))
            self.full_level = self.max_bet
            # The blinds count as the opening bet (and a straddle as a raise) for the cap.
            self.bet_count = sum(1 for level in set(blinds) if level >= size)
            if self.n == 2:
                # Heads-up the button (last) posts first, the other player last: the button
                # acts first, with equal blinds too.
                top = 0 if blinds[0] >= blinds[1] else 1
            else:
                top = max(range(self.n), key=lambda i: (blinds[i], i))
            start = (top + 1) % self.n if blinds[top] > 0 else 0
        else:
            self.max_bet = 0
            self.min_increment = size
            self.full_level = 0
            self.bet_count = 0
            start = 0
        self.capped = (
            self.config.betting is Betting.FIXED_LIMIT
            and self.bet_count >= self.config.raise_cap
            and self._players_with_chips() >= 3
        )
        events.append(BettingRoundStarted(street))
        self.actor = self._next_to_act(start)
        if self.actor is None:
            self._finish_round_and_continue(events)

    def _close_round(self, events: list[Event]) -> None:
        """Return an uncalled bet, gather the bets into the pots."""
        bets = self.bets
        top = bets.index(max(bets))  # the first of the largest, as a stable sort has it
        excess = bets[top] - max(b for i, b in enumerate(bets) if i != top)
        if excess > 0:
            self.bets[top] -= excess
            self.committed[top] -= excess
            self.stacks[top] += excess
            events.append(BetReturned(top, excess))
        self.bets = [0] * self.n
        self.max_bet = 0
        self.actor = None
        pots = self._gathered()
        events.append(PotsGathered(tuple((pot.amount, pot.eligible) for pot in pots)))

    def _finish_round_and_continue(self, events: list[Event]) -> None:
        self._close_round(events)
        if len(self.contenders()) == 1:
            self._award(events)
            return
        if self.street is Street.RIVER:
            if any(self.is_all_in(p) for p in self.contenders()):
                self._table_hands(events)  # TDA: face up for all-ins, the river too
            self._start_showdown(events)
            return
        if sum(1 for p in range(self.n) if self._can_bet(p)) <= 1:
            self._all_in(events)
            return
        nxt = Street(self.street + 1)
        self._deal_street(nxt, 0, events)
        self._open_round(nxt, events)

    def _deal_street(self, street: Street, run: int, events: list[Event]) -> None:
        count = _FLOP_CARDS if street is Street.FLOP else 1
        if street is Street.FLOP and self.config.game.courchevel:
            count -= 1
        self.burns.extend(self._draw(1))
        for b in range(self.config.boards):
            cards = self._draw(count)
            self.boards[run][b].extend(cards)
            events.append(BoardDealt(street, b, run, cards))
        self.street = street

    # --------------------------------------------------------- all in, run it twice
    def _table_hands(self, events: list[Event]) -> None:
        for p in self.contenders():
            if not self.shown[p]:
                self.shown[p] = True
                events.append(CardsShown(p, self.hole[p]))

    def _all_in(self, events: list[Event]) -> None:
        """No more betting is possible: the hands are tabled and the board run out."""
        self._table_hands(events)
        if self.config.run_it_twice and self._second_run_fits():
            self.phase = Phase.RUN_IT_TWICE
            self.votes = {}
            voters = tuple(self.contenders())
            events.append(RunItTwiceOffered(voters))
            self.actor = voters[0]
            return
        self._run_out(events)

    def _remaining_run_cards(self) -> int:
        streets = [s for s in Street if s > self.street]
        per_board = sum(
            (_FLOP_CARDS - (1 if self.config.game.courchevel else 0)) if s is Street.FLOP else 1
            for s in streets
        )
        return len(streets) + per_board * self.config.boards

    def _second_run_fits(self) -> bool:
        if self.street is Street.RIVER:
            return False
        return len(self.deck) - self._next >= 2 * self._remaining_run_cards()

    def _vote(self, p: int, agree: bool, events: list[Event]) -> None:
        self.votes[p] = agree
        events.append(RunItTwiceVoted(p, agree))
        voters = self.contenders()
        if agree and len(self.votes) < len(voters):
            self.actor = voters[voters.index(p) + 1]
            return
        self.runs = 2 if agree else 1
        events.append(RunsDecided(self.runs))
        self._run_out(events)

    def _run_out(self, events: list[Event]) -> None:
        self.actor = None
        start = self.street
        shared = [list(b) for b in self.boards[0]]
        for run in range(self.runs):
            if run:
                self.boards.append([list(b) for b in shared])
            for street in Street:
                if street > start:
                    self._deal_street(street, run, events)
        self.street = Street.RIVER
        self._award(events)

    # ---------------------------------------------------------------- showdown
    def _start_showdown(self, events: list[Event]) -> None:
        contenders = self.contenders()
        first = self.last_aggressor
        if first is None or self.folded[first]:
            first = contenders[0]
        k = contenders.index(first)
        self.showdown_order = contenders[k:] + contenders[:k]
        self.phase = Phase.SHOWDOWN
        pending = [p for p in self.showdown_order if not self.shown[p]]
        if not pending:
            self._award(events)
            return
        self.actor = pending[0]

    def _show_or_muck(self, p: int, show: bool, events: list[Event]) -> None:
        if show:
            self.shown[p] = True
            events.append(CardsShown(p, self.hole[p]))
        else:
            self.mucked[p] = True
            events.append(Mucked(p))
        pending = [q for q in self.showdown_order if not self.shown[q] and not self.mucked[q]]
        if pending:
            self.actor = pending[0]
            return
        self._award(events)

    def _values_of(self, run: int, b: int, p: int) -> tuple[int, int | None]:
        """``p``'s high value and low value (None: no qualifying low) on one board of one
        run; lower is better. Computed once per hand."""
        key = (run, b, p)
        got = self._values.get(key)
        if got is None:
            board = self.boards[run][b]
            low = low_value(self.hole[p], board) if self.config.hi_lo else None
            got = self._values[key] = (high_value(self.hole[p], board), low)
        return got

    def _may_muck(self, p: int) -> bool:
        """Whether ``p`` may muck, from what is public and ``p``'s own cards only: in every
        pot ``p`` is in, on every board of every run, a hand already shown beats ``p``'s
        high, and ``p`` has no low or a shown low beats it (001: the others reveal "only if
        they can top the hands that have already been revealed"). The first to show must
        show; a hand that could win or tie any part must be shown in full."""
        shown = [q for q in self.contenders() if q != p and self.shown[q]]
        if not shown:
            return False
        for pot in self._gathered():
            if p not in pot.eligible:
                continue
            rivals = [q for q in shown if q in pot.eligible]
            if not rivals:
                return False
            for run in range(self.runs):
                for b in range(self.config.boards):
                    high, low = self._values_of(run, b, p)
                    theirs = [self._values_of(run, b, q) for q in rivals]
                    if high <= min(v[0] for v in theirs):
                        return False
                    if low is not None:
                        lows = [v[1] for v in theirs if v[1] is not None]
                        if not lows or low <= min(lows):
                            return False
        return True

    # ------------------------------------------------------------------ award
    def _odd_chip_card(self, run: int, b: int, p: int, low: bool) -> int:
        """The high-card rule's key for ``p`` (smaller wins the chip): the player's own two
        hole cards used in the hand (as the hand reader names them) decide, the highest by
        rank then suit for the high, the lowest (ace low, clubs lowest) for the low. Board
        cards are shared and decide nothing; two players never hold the same card."""
        board = self.boards[run][b]
        if low:
            d = describe_low(self.hole[p], board)
            assert d is not None
            return min(((rank_of(c) + 1) % 13) * 4 + (c & 3) for c in d.hole_used)
        return -max(self._describe_high(run, b, p).hole_used)

    def _describe_high(self, run: int, b: int, p: int) -> HandDescription:
        """``p``'s best high on one board of one run, named once per hand (the award names
        each share; the odd-chip order reads it too), its value already known."""
        key = (run, b, p)
        got = self._named.get(key)
        if got is None:
            value = self._values_of(run, b, p)[0]
            got = self._named[key] = describe_high(self.hole[p], self.boards[run][b], value)
        return got

    def _tie_order(self, players: list[int], run: int, b: int, low: bool) -> list[int]:
        if self.config.odd_chip is OddChip.POSITION:
            return sorted(players)
        return sorted(players, key=lambda p: self._odd_chip_card(run, b, p, low))

    def _divide(self) -> list[tuple[int, int, int, str, int, int, bool]]:
        """Each share of each pot: (pot, run, board, half, player, amount, contested).

        A pot is split between the runs, then the boards (an odd chip to the first), then
        high and low (an odd chip to the high); each part goes to its best hands. The odd
        chips of a part split between tied hands go one at a time in the odd-chip order,
        passing over a player who already had one from this pot while a tied player in that
        part has none (Robert's, Ties: "No player may receive more than one odd chip"); the
        high-low split's odd chip counts for a high hand that takes it alone.
        A mucked hand gives up its claim: it is dropped from every pot that someone else
        still contests; a pot only it could win (others folded) stays its own.
        """
        shares: list[tuple[int, int, int, str, int, int, bool]] = []
        cfg = self.config
        pots = self._gathered()
        for k, pot in enumerate(pots):
            eligible = [p for p in pot.eligible if not self.mucked[p]] or list(pot.eligible)
            odd: dict[int, int] = {}  # odd chips each player has had from this pot
            for run, run_amount in enumerate(split_evenly(pot.amount, self.runs)):
                for b, amount in enumerate(split_evenly(run_amount, cfg.boards)):
                    if len(eligible) == 1:
                        shares.append((k, run, b, "whole", eligible[0], amount, False))
                        continue
                    values = {p: self._values_of(run, b, p) for p in eligible}
                    high_values = {p: v[0] for p, v in values.items()}
                    low_values = {p: v[1] for p, v in values.items() if v[1] is not None}
                    halves: list[tuple[str, int, dict[int, int]]] = []
                    if low_values:
                        hi_amount, lo_amount = split_high_low(amount)
                        halves.append(("high", hi_amount, high_values))
                        halves.append(("low", lo_amount, low_values))
                    else:
                        halves.append(("whole", amount, high_values))
                    for half, half_amount, half_values in halves:
                        best = min(half_values.values())
                        tied = [p for p in eligible if half_values.get(p) == best]
                        if half == "high" and len(tied) == 1 and half_amount > amount - half_amount:
                            # The hi-lo split's odd chip is an odd chip too (Robert's, Ties 5c):
                            # the high hand that took it gets none from the low's tie.
                            odd[tied[0]] = odd.get(tied[0], 0) + 1
                        order = self._tie_order(tied, run, b, half == "low")
                        base, extra = divmod(half_amount, len(order))
                        lucky = sorted(order, key=lambda p: odd.get(p, 0))[:extra]
                        for p in lucky:
                            odd[p] = odd.get(p, 0) + 1
                        for p in order:
                            share = base + (1 if p in lucky else 0)
                            if share:
                                shares.append((k, run, b, half, p, share, True))
        return shares

    def _award(self, events: list[Event]) -> None:
        self.actor = None
        contenders = self.contenders()
        if len(contenders) == 1:
            # Uncontested: the last player in takes every pot without showing.
            (p,) = contenders
            for k, pot in enumerate(self._gathered()):
                self.stacks[p] += pot.amount
                events.append(PotAwarded(k, 0, 0, "whole", p, pot.amount, None, ()))
        else:
            for k, run, b, half, p, amount, contested in self._divide():
                board = self.boards[run][b]
                name: str | None = None
                used: tuple[Card, ...] = ()
                if not contested and not self.shown[p]:
                    pass  # won without a contest: the hand stays unseen
                elif half == "low":
                    d = describe_low(self.hole[p], board)
                    if d is not None:
                        name, used = d.name, d.cards
                else:
                    dh = self._describe_high(run, b, p)
                    name, used = dh.name, dh.cards
                self.stacks[p] += amount
                events.append(PotAwarded(k, run, b, half, p, amount, name, used))
        self.committed = [0] * self.n
        self.dead = [0] * self.n
        self.phase = Phase.COMPLETE
        events.append(HandEnded(tuple(self.stacks)))

    # ------------------------------------------------------------------ helpers
    def describe(self) -> str:
        """A one-line summary for debugging; never includes hole cards."""
        boards = " | ".join(
            " ".join(card_str(c) for c in board) for run in self.boards for board in run
        )
        return f"{self.street.label} {self.phase} actor={self.actor} board=[{boards}]"
