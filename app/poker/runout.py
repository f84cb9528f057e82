"""Dealing the board: a street's burn and cards, and the run-out once no more betting is
possible (hands tabled, the vote on running it twice, each run dealt to the river)."""

from __future__ import annotations

from .actions import FLOP, RIVER, STREETS, Phase, Street
from .cards import Card
from .events import (
    Event,
    board_dealt,
    cards_shown,
    run_it_twice_offered,
    run_it_twice_voted,
    runs_decided,
)
from .hand import Hand
from .showdown import award

FLOP_CARDS = 3


def deal_street(hand: Hand, street: Street, run: int, events: list[Event]) -> None:
    count = FLOP_CARDS if street is FLOP else 1
    if street is FLOP and hand.config.game.courchevel:
        count -= 1
    hand.burns.extend(hand.draw(1))
    for b in range(hand.config.boards):
        cards = hand.draw(count)
        hand.boards[run][b].extend(cards)
        events.append(board_dealt(street, b, run, cards))
    hand.street = street


def table_hands(hand: Hand, events: list[Event]) -> None:
    for p in hand.contenders():
        if not hand.shown[p]:
            hand.shown[p] = True
            events.append(cards_shown(p, hand.hole[p]))


def all_in(hand: Hand, events: list[Event]) -> None:
    """No more betting is possible: the hands are tabled and the board run out."""
    table_hands(hand, events)
    if hand.config.run_it_twice and _second_run_fits(hand):
        hand.phase = Phase.RUN_IT_TWICE
        hand.votes = {}
        voters = tuple(hand.contenders())
        events.append(run_it_twice_offered(voters))
        hand.actor = voters[0]
        return
    run_out(hand, events)


def _remaining_run_cards(hand: Hand) -> int:
    streets = [s for s in Street if s > hand.street]
    per_board = sum(
        (FLOP_CARDS - (1 if hand.config.game.courchevel else 0)) if s is Street.FLOP else 1
        for s in streets
    )
    return len(streets) + per_board * hand.config.boards


def _second_run_fits(hand: Hand) -> bool:
    if hand.street is Street.RIVER:
        return False
    return hand.cards_left >= 2 * _remaining_run_cards(hand)


def vote(hand: Hand, p: int, agree: bool, events: list[Event]) -> None:
    hand.votes[p] = agree
    events.append(run_it_twice_voted(p, agree))
    voters = hand.contenders()
    if agree and len(hand.votes) < len(voters):
        hand.actor = voters[voters.index(p) + 1]
        return
    hand.runs = 2 if agree else 1
    events.append(runs_decided(hand.runs))
    run_out(hand, events)


def run_out(hand: Hand, events: list[Event]) -> None:
    hand.actor = None
    start = hand.street
    shared = [list(b) for b in hand.boards[0]]
    for run in range(hand.runs):
        if run:
            hand.boards.append([list(b) for b in shared])
        for street in STREETS[start + 1 :]:
            deal_street(hand, street, run, events)
    hand.street = RIVER
    award(hand, events)


def rabbit(hand: Hand) -> list[tuple[Card, ...]]:
    """The rabbit hunt: the board cards each board would have been dealt to the river, had
    the hand gone on, in the order the deck holds them (each street's burn respected, the
    boards dealt in turn as `deal_street` does). Only once the hand is over; [] when it
    reached the river (nothing was left undealt). Never a hole card, a burn or any other
    card of the deck: the caller shows these as not played, and nothing is changed."""
    if hand.phase is not Phase.COMPLETE or hand.street is Street.RIVER or len(hand.boards) != 1:
        return []
    at = len(hand.deck) - hand.cards_left
    out: list[list[Card]] = [[] for _ in range(hand.config.boards)]
    for street in Street:
        if street <= hand.street:
            continue
        count = FLOP_CARDS if street is Street.FLOP else 1
        if street is Street.FLOP and hand.config.game.courchevel:
            count -= 1
        at += 1  # the burn
        for b in range(hand.config.boards):
            out[b].extend(hand.deck[at : at + count])
            at += count
    return [tuple(cards) for cards in out]
