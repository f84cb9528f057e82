"""The deal a PHH file describes: the deck that makes the engine deal the file's cards, and the
file's actions played through the engine on it (which checks each one).

The engine deals from the deck itself, so the deck is built to make it deal exactly the
file's cards: hole cards where the engine draws them, the file's board cards where each
street is drawn, burns and unknown (``??``) cards filled with unused cards.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Mapping, Sequence

from ..actions import Action, ActionKind, Phase, Street
from ..cards import Card, card_str, cards_str
from ..errors import IllegalAction
from ..events import BoardDealt
from ..state import HandSetup, HandState
from .codes import PHHError, in_file_units
from .notation import Item, in_file_order

#: tries at unknown mucked cards that lose (two boards of hi-lo can need a few hundred;
#: each is one replay, about a millisecond)
_RESHUFFLES = 512
_BETTING = ("f", "cc", "cbr", "rt")


def _hole_cards(setup: HandSetup, items: Sequence[Item]) -> list[list[Card | None]]:
    """Each player's hole cards from ``d dh`` and ``sm`` (which may reveal ``??`` cards);
    every known card of the file must be distinct."""
    n, hole = setup.players, setup.config.game.hole_cards
    holes: list[list[Card | None] | None] = [None] * n
    seen: dict[Card, int] = {}

    def note(item: Item, card: Card) -> None:
        if card in seen and seen[card] != item.number:
            raise item.fail(f"{card_str(card)} is already dealt (action {seen[card]})")
        seen[card] = item.number

    for item in items:
        if item.verb == "dh":
            if holes[item.player] is not None:
                raise item.fail(f"p{item.player + 1} is dealt hole cards twice")
            if len(item.cards) != hole:
                raise item.fail(
                    f"{len(item.cards)} hole cards: {setup.config.game.name} deals {hole}"
                )
            holes[item.player] = list(item.cards)
            for c in item.cards:
                if c is not None:
                    note(item, c)
        elif item.verb == "db":
            for c in item.cards:
                assert c is not None
                note(item, c)
    for item in items:
        if item.verb != "sm" or not item.cards:
            continue
        known = holes[item.player]
        if known is None:
            raise item.fail(f"p{item.player + 1} shows cards but was never dealt any")
        shown = [c for c in item.cards if c is not None]
        if len(shown) != hole:
            raise item.fail(f"{len(shown)} cards shown: {setup.config.game.name} deals {hole}")
        fixed = {c for c in known if c is not None}
        if not fixed <= set(shown):
            raise item.fail(
                f"p{item.player + 1} shows {cards_str(shown)} but was dealt "
                f"{''.join('??' if c is None else card_str(c) for c in known)}"
            )
        extra = iter(c for c in shown if c not in fixed)
        for k, c in enumerate(known):
            if c is None:
                card = next(extra)
                note(item, card)
                known[k] = card
    out: list[list[Card | None]] = []
    for p, h in enumerate(holes):
        if h is None:
            raise PHHError(f"p{p + 1} is never dealt hole cards ('d dh p{p + 1} ...')")
        out.append(h)
    return out


class _Reshuffle(Exception):
    def __init__(self, player: int) -> None:
        self.player = player


class _Votes:
    """The run-it-twice votes of ``_run_it_twice_votes``, given to the engine when it asks."""

    def __init__(self, votes: Iterable[Item], amount_of: Mapping[int, int], scale: int) -> None:
        self.left = deque(votes)
        self.amount_of = amount_of
        self.scale = scale

    def give(self, state: HandState, out: list[Action] | None = None) -> None:
        while self.left and state.phase is Phase.RUN_IT_TWICE:
            action = apply(state, self.left.popleft(), self.amount_of, self.scale)
            if out is not None:
                out.append(action)


def rebuild(
    setup: HandSetup,
    items: Sequence[Item],
    votes: Sequence[Item],
    amount_of: Mapping[int, int],
    scale: int,
) -> tuple[tuple[Card, ...], tuple[Action, ...], frozenset[Card]]:
    """The deck, the engine actions and the filler cards of unknown hole cards."""
    n = setup.players
    holes = _hole_cards(setup, items)
    fixed: dict[int, Card] = {}
    for p, cards in enumerate(holes):
        for k, c in enumerate(cards):
            if c is not None:
                fixed[p + k * n] = c
    unknown_slots = {
        p: [p + k * n for k, c in enumerate(h) if c is None] for p, h in enumerate(holes)
    }

    # Probe: play the betting on a provisional deck to learn where each board deal is drawn
    # (betting never depends on the cards), then place the file's board cards there.
    probe_deck = _fill(fixed, {}, ())
    probe = HandState(setup, probe_deck)
    probe_votes = _Votes(votes, amount_of, scale)
    for item in items:
        if item.verb in _BETTING:
            probe_votes.give(probe)
            if probe.complete or probe.phase is Phase.SHOWDOWN:
                break
            apply(probe, item, amount_of, scale)
    probe_votes.give(probe)
    where = {c: i for i, c in enumerate(probe_deck)}
    boards = setup.config.boards
    deals = in_file_order([e for e in probe.log if isinstance(e, BoardDealt)], boards)
    for item in (it for it in items if it.verb == "db"):
        deal = _take(deals, item)
        if deal is None:
            break
        if len(item.cards) == len(deal.cards):
            for c, dealt in zip(item.cards, deal.cards, strict=True):
                assert c is not None
                fixed[where[dealt]] = c

    # A hand mucked at the showdown must lose (the engine refuses to muck a winner): when
    # its cards are unknown, other unused cards are tried until the fillers lose.
    reshuffled: dict[int, int] = {}
    last = -1
    for _ in range(_RESHUFFLES):
        deck = _fill(fixed, unknown_slots, tuple(sorted(reshuffled.items())))
        unknown = frozenset(deck[s] for slots in unknown_slots.values() for s in slots)
        try:
            actions = _play(setup, deck, items, _Votes(votes, amount_of, scale), unknown)
        except _Reshuffle as again:
            last = again.player
            reshuffled[last] = reshuffled.get(last, 0) + 1
            continue
        return deck, actions, unknown
    raise PHHError(
        f"p{last + 1} mucks at the showdown but the hole cards are unknown ('??'), and no "
        "cards left make a hand that loses: a hand that wins part of the pot must be shown"
    )


def _fill(
    fixed: Mapping[int, Card],
    unknown_slots: Mapping[int, list[int]],
    reshuffled: tuple[tuple[int, int], ...],
) -> tuple[Card, ...]:
    """A 52-card deck with ``fixed`` cards at their positions and the unused cards, in
    order, everywhere else. A reshuffled player's unknown hole cards are drawn from the
    unused cards by a seeded generator instead (so that a mucked hand can lose)."""
    slots: dict[int, Card] = dict(fixed)
    pool = sorted(set(range(52)) - set(fixed.values()))
    for p, attempt in reshuffled:
        chosen = random.Random(f"{p}:{attempt}").sample(pool, len(unknown_slots[p]))
        for s, c in zip(unknown_slots[p], chosen, strict=True):
            slots[s] = c
        pool = [c for c in pool if c not in chosen]
    rest = iter(pool)
    return tuple(slots[i] if i in slots else next(rest) for i in range(52))


def apply(state: HandState, item: Item, amount_of: Mapping[int, int], scale: int) -> Action:
    p = item.player
    if item.verb == "f":
        action = Action(p, ActionKind.FOLD)
    elif item.verb == "cc":
        facing = state.phase is Phase.BETTING and state.max_bet > state.bets[p]
        action = Action(p, ActionKind.CALL if facing else ActionKind.CHECK)
    elif item.verb == "cbr":
        kind = ActionKind.RAISE if state.max_bet > 0 else ActionKind.BET
        action = Action(p, kind, amount_of[item.number])
    else:
        assert item.verb == "rt"
        action = Action(p, ActionKind.RUN_TWICE, agree=item.agree)
    try:
        state.apply(action)
    except IllegalAction as error:
        raise item.fail(in_file_units(error.message, scale)) from None
    return action


def _take(due: list[BoardDealt], item: Item) -> BoardDealt | None:
    """The deal a ``d db`` line stands for: the next one due, or, for a line that names its
    board and run (``b2 r2``, older files, written in the engine's order), the next one due
    of that board and run. None when none is."""
    for k, deal in enumerate(due):
        if not item.placed or (item.board, item.run) == (deal.board, deal.run):
            return due.pop(k)
    return None


def _deal_name(deal: BoardDealt, boards: int) -> str:
    name = "first board card" if deal.street is Street.PREFLOP else deal.street.label
    where = []
    if boards > 1:
        where.append(f"board {deal.board + 1}")
    if deal.run:
        where.append(f"run {deal.run + 1}")
    return f"the {name}" + (f" of {', '.join(where)}" if where else "")


def _show_after_win(state: HandState, item: Item, unknown: frozenset[Card]) -> Action:
    """The winner of a pot nobody contested shows (the standard's showing "after all other
    players fold")."""
    if unknown & set(state.hole[item.player]):
        raise item.fail(f"p{item.player + 1}'s hole cards are unknown ('??'): show them")
    action = Action(item.player, ActionKind.SHOW)
    state.apply(action)
    return action


def _play(
    setup: HandSetup,
    deck: tuple[Card, ...],
    items: Sequence[Item],
    votes: _Votes,
    unknown: frozenset[Card],
) -> tuple[Action, ...]:
    state = HandState(setup, deck)
    boards = setup.config.boards
    amount_of, scale = votes.amount_of, votes.scale
    due: list[BoardDealt] = []
    seen_log = 0
    actions: list[Action] = []
    waiting: dict[int, Item] = {}  # show/muck given ahead of the engine's show order

    def refresh() -> None:
        nonlocal seen_log
        votes.give(state, actions)
        # (a run-out is dealt at once, so each batch can be put in the file's order)
        dealt = [e for e in state.log[seen_log:] if isinstance(e, BoardDealt)]
        due.extend(in_file_order(dealt, boards))
        seen_log = len(state.log)

    def showdown() -> None:
        while state.phase is Phase.SHOWDOWN and state.actor in waiting:
            item = waiting.pop(state.actor)
            p = item.player
            if item.show and unknown & set(state.hole[p]):
                raise item.fail(f"p{p + 1}'s hole cards are unknown ('??'): show them")
            action = Action(p, ActionKind.SHOW if item.show else ActionKind.MUCK)
            try:
                state.apply(action)
            except IllegalAction as error:
                if error.code == "must_show" and unknown & set(state.hole[p]):
                    raise _Reshuffle(p) from None
                raise item.fail(error.message) from None
            actions.append(action)

    acted = False
    for item in items:
        refresh()
        if item.verb == "dh":
            if acted:
                raise item.fail("hole cards are dealt before any player acts")
        elif item.verb == "db":
            if not due:
                now = "the hand is over" if state.complete else f"{state.phase} phase"
                if state.actor is not None:
                    now = f"p{state.actor + 1} is to act"
                raise item.fail(f"no board cards are due now ({now})")
            deal = _take(due, item)
            if deal is None:
                raise item.fail(f"{_deal_name(due[0], boards)} is dealt here")
            if tuple(item.cards) != deal.cards:
                raise item.fail(
                    f"{_deal_name(deal, boards)} is {len(deal.cards)} card(s), "
                    f"{cards_str(deal.cards)} by the deck this file describes"
                )
        elif item.verb in _BETTING:
            acted = True
            if due:
                raise item.fail(f"{_deal_name(due[0], boards)} must be dealt first ('d db')")
            if state.phase is Phase.SHOWDOWN and state.actor in waiting:
                showdown()
            actions.append(apply(state, item, amount_of, scale))
        else:  # sm
            acted = True
            p = item.player
            if state.shown[p]:
                continue  # already tabled (all in): the file repeats it, same cards
            if item.show and state.complete and state.may_show(p):
                actions.append(_show_after_win(state, item, unknown))
                continue
            if state.phase is not Phase.SHOWDOWN:
                raise item.fail(f"p{p + 1} shows or mucks before the showdown")
            if p in waiting or state.mucked[p] or state.folded[p] or p not in state.showdown_order:
                raise item.fail(f"p{p + 1} has no hand to show or muck")
            waiting[p] = item
            showdown()
    refresh()
    if waiting:
        item = next(iter(waiting.values()))
        who = "nobody" if state.actor is None else f"p{state.actor + 1}"
        raise item.fail(f"out of the show order: {who} shows or mucks first")
    if due:
        raise PHHError(f"the actions end before {_deal_name(due[0], boards)} is dealt")
    if votes.left:
        raise votes.left[0].fail("no run-it-twice vote is asked for")
    for p in range(setup.players):
        if state.shown[p] and unknown & set(state.hole[p]):
            raise PHHError(f"p{p + 1}'s hole cards are unknown ('??') but the showdown needs them")
    return tuple(actions)
