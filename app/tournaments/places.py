"""Finishing places: a player with no chips is out and placed at once. Players busting in the
same hand are placed by their stacks at the start of that hand (the larger finishes better);
equal starting stacks share the place. The last player left is first."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


class PlaceError(ValueError):
    pass


@dataclass
class Standings:
    """The places given so far in a field of `entries` players (a re-entry counts as a new
    entry)."""

    entries: int
    places: dict[str, int] = field(default_factory=dict)  # player -> place (1 = winner)

    @property
    def left(self) -> int:
        return self.entries - len(self.places)

    def bust(self, started_with: Mapping[str, int]) -> dict[str, int]:
        """Place the players who busted in one hand; `started_with` is each one's stack at
        the start of that hand. Returns their places; with one player left, it is given
        place 1 by `win`."""
        if any(p in self.places for p in started_with):
            raise PlaceError("a player is placed once")
        if started_with and len(started_with) >= self.left:
            raise PlaceError("someone must be left holding the chips")
        worst = self.left  # the place of the first to go out now
        given: dict[str, int] = {}
        ordered = sorted(started_with.items(), key=lambda kv: kv[1])  # smallest first
        i = 0
        while i < len(ordered):
            j = i
            while j < len(ordered) and ordered[j][1] == ordered[i][1]:
                j += 1
            # players i..j-1 tie: they share the best of the places they cover
            shared = worst - (j - i - 1)
            for player, _ in ordered[i:j]:
                given[player] = shared
            worst -= j - i
            i = j
        self.places.update(given)
        return given

    def win(self, player: str) -> None:
        if self.left != 1 or player in self.places:
            raise PlaceError("the winner is the one player left")
        self.places[player] = 1
