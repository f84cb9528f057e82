"""The games, declared as data: one ``GameSpec`` per game, one ``HandConfig`` per table.

Every Omaha game differs from the others only in a few numbers and switches (hole cards,
hi-lo, Courchevel's exposed first board card, board count, betting structure), so they are
values, not classes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from .errors import ConfigError

DECK_SIZE: Final = 52
MAX_SEATS: Final = 10


class Betting(StrEnum):
    POT_LIMIT = "pot-limit"
    NO_LIMIT = "no-limit"
    FIXED_LIMIT = "fixed-limit"


class OddChip(StrEnum):
    """Who gets a chip that will not split evenly between tied hands.

    ``position``: the first tied player clockwise of the button (flop games in card rooms).
    ``high-card``: the tied high hand whose own hole cards used in it include the highest
    card by rank then suit (spades, hearts, diamonds, clubs), the tied low hand whose hole
    cards used include the lowest (Robert's Rules style; board cards are shared and decide
    nothing). Between the high and low halves the odd chip always goes to the high; between
    boards or runs, to the first. Within one pot no player receives a second odd chip from
    a split between tied hands while a tied player in that split has none (Robert's, Ties).
    """

    POSITION = "position"
    HIGH_CARD = "high-card"


@dataclass(frozen=True, slots=True)
class GameSpec:
    key: str
    name: str
    hole_cards: int
    hi_lo: bool = False
    #: Courchevel: the first board card is dealt face up before the pre-flop betting.
    courchevel: bool = False
    #: the name where room is short (a table's title line, app.tables.labels); "" the name
    short: str = ""

    @property
    def burns(self) -> int:
        return 4 if self.courchevel else 3


GAMES: Final[dict[str, GameSpec]] = {
    g.key: g
    for g in (
        GameSpec("omaha", "Omaha", 4),
        GameSpec("omaha-hi-lo", "Omaha hi-lo eight or better", 4, hi_lo=True, short="Omaha hi-lo"),
        GameSpec("five-card-omaha", "Five-card Omaha", 5, short="5-card Omaha"),
        GameSpec("big-o", "Big O", 5, hi_lo=True),
        GameSpec("six-card-omaha", "Six-card Omaha", 6, short="6-card Omaha"),
        GameSpec(
            "six-card-omaha-hi-lo", "Six-card Omaha hi-lo", 6, hi_lo=True, short="6-card hi-lo"
        ),
        GameSpec("courchevel", "Courchevel", 5, courchevel=True),
        GameSpec("courchevel-hi-lo", "Courchevel hi-lo", 5, hi_lo=True, courchevel=True),
    )
}


def cards_needed(game: GameSpec, players: int, boards: int = 1) -> int:
    """Cards one deal uses: hole cards, every board, and one burn per street (shared by
    the boards of a double-board game)."""
    return game.hole_cards * players + 5 * boards + game.burns


def max_players(game: GameSpec, boards: int = 1) -> int:
    fit = (DECK_SIZE - 5 * boards - game.burns) // game.hole_cards
    return min(MAX_SEATS, fit)


@dataclass(frozen=True, slots=True)
class HandConfig:
    """The rules a table deals by. Amounts are integer chips.

    ``small_bet`` is the minimum bet (the big blind) in pot and no limit, and the small bet
    of fixed limit (pre-flop and flop); ``big_bet`` is fixed limit's turn and river size.
    ``raise_cap`` is fixed limit's bets per round: a bet and three raises, the big blind
    counting as the pre-flop bet. The cap applies to a pot of three or more players who are
    not all in; ``cap_heads_up`` keeps it heads-up too (tournament practice, TDA), while by
    default two players left with chips may raise without limit (Robert's Rules, cash games)
    unless the round was capped before it became heads-up.
    """

    game: GameSpec
    betting: Betting
    small_bet: int
    big_bet: int = 0
    boards: int = 1
    bomb_pot: bool = False
    run_it_twice: bool = False
    raise_cap: int = 4
    odd_chip: OddChip = OddChip.POSITION
    cap_heads_up: bool = False

    def __post_init__(self) -> None:
        if self.small_bet <= 0:
            raise ConfigError("the minimum bet must be a positive number of chips")
        if self.betting is Betting.FIXED_LIMIT and self.big_bet <= 0:
            raise ConfigError("fixed limit needs a big bet")
        if self.boards not in (1, 2):
            raise ConfigError(f"{self.boards} boards: a hand has one board or two")
        if self.raise_cap < 2:
            raise ConfigError("the raise cap must allow at least a bet and a raise")

    @property
    def hi_lo(self) -> bool:
        return self.game.hi_lo

    def check_players(self, players: int) -> None:
        """Refuse a deal the deck cannot complete, before any card is dealt."""
        if players < 2:
            raise ConfigError("a hand needs at least two players")
        most = max_players(self.game, self.boards)
        if players > most:
            boards = " with two boards" if self.boards == 2 else ""
            raise ConfigError(
                f"{self.game.name}{boards} deals at most {most} players from one deck "
                f"({players} would need {cards_needed(self.game, players, self.boards)} cards)"
            )

    def bet_size(self, street: int) -> int:
        """Fixed limit: the small bet pre-flop and on the flop, the big bet after."""
        if self.betting is FIXED_LIMIT and street >= 2:  # (see ``FIXED_LIMIT`` below)
            return self.big_bet
        return self.small_bet


# Read on the hot path: see ``actions.FOLD``.
FIXED_LIMIT: Final = Betting.FIXED_LIMIT
NO_LIMIT: Final = Betting.NO_LIMIT
POSITION: Final = OddChip.POSITION
