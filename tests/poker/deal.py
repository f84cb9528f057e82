"""Build deck orders that deal chosen cards, for known-answer tests.

The engine deals hole cards one at a time from the first player left of the button, then
per street a burn and each board's cards (board 0 first). ``stacked_deck`` inverts that.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.poker.cards import FULL_DECK, Card, parse_cards


def stacked_deck(
    holes: Sequence[str],
    boards: Sequence[str] = (),
    *,
    courchevel: bool = False,
    runs: Sequence[Sequence[str]] = (),
) -> list[Card]:
    """``holes`` per player; ``boards`` the full board of each board (up to five cards);
    ``runs`` optional later runouts: for each extra run, the cards it adds per board."""
    hole_cards = [parse_cards(h) for h in holes]
    board_cards = [parse_cards(b) for b in boards]
    named: list[Card] = [c for h in hole_cards for c in h] + [c for b in board_cards for c in b]
    named += [c for run in runs for b in run for c in parse_cards(b)]
    assert len(set(named)) == len(named), "a card named twice"
    spare = iter(c for c in FULL_DECK if c not in set(named))
    deck: list[Card] = []
    n = len(hole_cards)
    size = len(hole_cards[0])
    for k in range(size):
        deck.extend(hole_cards[p][k] for p in range(n))
    steps = [1, 2, 1, 1] if courchevel else [3, 1, 1]
    position = [0] * len(board_cards)
    for step in steps:
        deck.append(next(spare))  # burn
        for b, cards in enumerate(board_cards):
            take = cards[position[b] : position[b] + step]
            position[b] += step
            deck.extend(take)
            deck.extend(next(spare) for _ in range(step - len(take)))
    for run in runs:
        extra = [parse_cards(b) for b in run]
        # The second runout deals the streets still to come: one burn per street.
        lengths = {len(b) for b in extra}
        assert len(lengths) == 1
        remaining = len(extra[0])
        street_sizes = {5: [3, 1, 1], 2: [1, 1], 1: [1], 4: [2, 1, 1]}[remaining]
        offsets = [0] * len(extra)
        for step in street_sizes:
            deck.append(next(spare))
            for b, cards in enumerate(extra):
                deck.extend(cards[offsets[b] : offsets[b] + step])
                offsets[b] += step
    deck.extend(spare)
    return deck
