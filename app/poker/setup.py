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
        stacks = self.stacks
        players = len(stacks)  # ``players``, without a property call: read every hand
        self.config.check_players(players)
        # The usual case at once, checked in C (every hand passes here): each list empty or
        # one for each player, plain non-negative ints, every stack positive. Anything else
        # goes through the rules one by one, which name what is wrong.
        blinds, antes, posts, dead = self.blinds, self.antes, self.posts, self.dead
        every = (*stacks, *blinds, *antes, *posts, *dead)
        if not (
            (len(blinds) == players or not blinds)
            and (len(antes) == players or not antes)
            and (len(posts) == players or not posts)
            and (len(dead) == players or not dead)
            and _INT.issuperset(map(type, every))
            and min(every) >= 0
            and min(stacks) > 0
        ):
            self._validate_each()
        if self.config.bomb_pot and (any(blinds) or any(posts)):
            raise ConfigError("a bomb pot has antes only: no blinds and no pre-flop betting")

    def _validate_each(self) -> None:
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
            for v in values:
                if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                    raise ConfigError(f"{what} must be whole, non-negative chip counts: {v!r}")
        if min(self.stacks) <= 0:  # ``check_players``: two players or more
            raise ConfigError("every player dealt in needs chips")
