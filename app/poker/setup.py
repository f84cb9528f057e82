"""What a hand starts from, apart from the deck: the rules, the stacks and the forced bets."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ConfigError
from .games import HandConfig

_INT = frozenset((int,))


@dataclass(frozen=True, slots=True)
class HandSetup:
    """Everything a hand starts from except the deck. Per-player tuples are in position
    order (0 = first clockwise of the button); an empty tuple means all zero.

    ``blinds`` are blinds and straddles: live bets that set the pre-flop action order (the
    player after the largest one acts first). ``posts`` are live bets by players coming in
    out of position (they do not move the action); ``dead`` chips go straight to the main
    pot and stake nothing: a missed blind posted dead, and a big-blind ante (one player
    antes for the table, so nobody matches it); they are posted after the live bets, so a
    short stack's chips go to its blind first. ``antes`` are antes everyone posts alike
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
        players = len(self.stacks)  # ``players``, without a property call: read every hand
        if not values:
            return (0,) * players
        if len(values) != players:
            raise ConfigError(f"{what} lists {len(values)} players, the hand has {players}")
        return values

    def validate(self) -> None:
        self.config.check_players(self.players)
        for what, values in (
            ("stacks", self.stacks),
            ("blinds", self.blinds),
            ("antes", self.antes),
            ("posts", self.posts),
            ("dead", self.dead),
        ):
            if not values:
                continue  # an empty tuple is all zero (``per_player``)
            self.per_player(values, what)  # one for each player
            if _INT.issuperset(map(type, values)) and min(values) >= 0:
                continue  # plain non-negative ints: the usual case, checked in C
            for v in values:
                if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                    raise ConfigError(f"{what} must be whole, non-negative chip counts: {v!r}")
        if min(self.stacks) <= 0:  # ``check_players``: two players or more
            raise ConfigError("every player dealt in needs chips")
        if self.config.bomb_pot and (any(self.blinds) or any(self.posts)):
            raise ConfigError("a bomb pot has antes only: no blinds and no pre-flop betting")
