"""The notes of a finished hand leak nothing: random hands of every game, each given its
rabbit hunt (where it ended before the river) and, for the winner of a pot nobody called, a
random subset of their cards shown, and for a beaten player who mucked at the showdown, a
random subset shown there instead (app/tables/showing.py); no record or export, for any
player, a spectator or a host not dealt in, holds a card beyond what they saw before plus
the rabbit's board cards and the cards shown. The oracle is the engine's truth, as in
test_privacy.py."""

from __future__ import annotations

import dataclasses
import random

import pytest

from app.history.phh import phh_hand
from app.history.pokerstars import export_hand
from app.history.record import build
from app.poker import GAMES, card_str
from app.poker.runout import rabbit
from tests.history.gen import random_hand
from tests.history.test_privacy import allowed, phh_cards, text_cards
from tests.sizes import sample
from tests.tables.harness import cards_in

NOTED = sample(10, 60)  # hands with notes checked per game (most random hands reach the river)
TRIES = 600


@pytest.mark.parametrize("game", list(GAMES))
def test_a_hands_notes_show_the_rabbit_and_the_cards_shown_and_nothing_else(game: str) -> None:
    rng = random.Random(f"privacy-after-{game}")
    hunted = shown_some = at_showdown = checked = 0
    for number in range(1, TRIES + 1):
        if checked >= NOTED:
            break
        stored, hand = random_hand(rng, game, number)
        state = hand.state
        notes: list[dict[str, object]] = []
        boards = [[card_str(c) for c in b] for b in rabbit(state)]
        if any(boards):
            notes.append({"kind": "rabbit", "seat": hand.seats[0], "name": "x", "boards": boards})
            hunted += 1
        chooser = next((p for p in range(state.n) if state.may_show(p)), None)
        chosen: set[str] = set()
        if chooser is not None:
            held = [card_str(c) for c in state.hole[chooser]]
            chosen = set(rng.sample(held, rng.randint(1, len(held) - 1)))
            shown = [c for c in held if c in chosen]
            notes.append({"kind": "show", "seat": hand.seats[chooser], "cards": shown})
            shown_some += 1
        # a beaten player who, at the showdown, showed some cards instead of mucking
        loser = next((p for p in range(state.n) if state.mucked[p]), None)
        if loser is not None:
            held = [card_str(c) for c in state.hole[loser]]
            picked = set(rng.sample(held, rng.randint(1, len(held) - 1)))
            notes.append({"kind": "show", "seat": hand.seats[loser], "showdown": True,
                          "cards": [c for c in held if c in picked]})  # fmt: skip
            chosen |= picked
            at_showdown += 1
        if not notes:
            continue  # nothing to say after it: test_privacy.py checks these
        checked += 1
        stored = dataclasses.replace(stored, record={**stored.record, "after": notes})
        extra = {c for b in boards for c in b} | chosen
        # never a hole card of anyone, nor a card on the boards already
        holes = {card_str(c) for h in state.hole for c in h}
        assert not {c for b in boards for c in b} & holes
        for viewer in [None, "host-not-dealt-in", rng.choice(hand.players)]:
            position = hand.players.index(viewer) if viewer in hand.players else None
            may = allowed(state, position) | extra
            record = build(stored, viewer, equity=False)
            assert cards_in(record) <= may, (number, viewer, cards_in(record) - may)
            text = export_hand(record)
            assert text_cards(text) <= may, (number, viewer, text_cards(text) - may)
            phh = phh_hand(stored, viewer)
            got = phh_cards(phh) | text_cards(phh)
            assert got <= may, (number, viewer, got - may)
            assert extra <= cards_in(record) and extra <= text_cards(text) and extra <= got
    assert checked == NOTED and hunted and shown_some and at_showdown, (
        checked,
        hunted,
        shown_some,
        at_showdown,
    )
