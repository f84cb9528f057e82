"""Some of a player's hole cards shown by choice (issue 26, item 13), one click a card: by
the winner of a pot nobody called once the hand is over (app/tables/after.py), or at a
showdown by a player the rules let muck, on their show-or-muck turn, instead of mucking.

At a showdown a card shown is a note on the hand (`Hand.after`, stored before it is told,
public once told), never an engine action: the turn stays theirs on the same short clock
(it neither restarts nor touches the time bank), and ends as any show-or-muck turn does.
Muck (or the clock's muck) leaves the rest hidden from everyone; the hand is dead, beaten
on every part already, so no result changes. Showing the last hidden card is the whole
show (`ActionKind.SHOW`, the engine's): the hand is shown as if Show was pressed.
"""

from __future__ import annotations

from app.poker import Action, ActionKind, Phase
from app.tables import after, pace
from app.tables.commands import ShowCards
from app.tables.core import Flow, Reply, TableCore
from app.tables.errors import TableError
from app.tables.notes import SHOW, cards, shown_by_choice
from app.tables.play import apply


def show_cards(t: TableCore, c: ShowCards) -> Flow[Reply]:
    hand = t.hand
    if hand is not None and hand.id == c.hand and not hand.state.complete:
        return (yield from at_showdown(t, c))
    return (yield from after.show_cards(t, c))


def at_showdown(t: TableCore, c: ShowCards) -> Flow[Reply]:
    """The player to show or muck, who may muck, shows some of their cards instead."""
    hand = t.hand
    assert hand is not None
    position = hand.position_of_player(c.sender or "")
    if position is None:
        raise TableError("not_in_hand", "you are not in this hand")
    new = after.chosen_cards(hand, position, c.cards)
    legal = hand.state.legal_actions()
    if legal is None or legal.phase is not Phase.SHOWDOWN:
        raise TableError("not_over", "the hand is not over yet: show cards at its showdown")
    if legal.player != position:
        raise TableError("not_your_turn", "show cards on your turn at the showdown")
    if not legal.muck:
        raise TableError("no_choice", "this hand must be shown whole: the table shows it")
    if not new:
        raise TableError("already_shown", "those cards are shown already")
    pace.acted(t, c.sender)
    number = hand.seats[position]
    held = cards(hand.state.hole[position])
    if set(shown_by_choice(hand, number)) | set(new) == set(held):
        yield from apply(t, hand, Action(position, ActionKind.SHOW))  # every card: the show
        return {"shown": held}
    entry = {"kind": SHOW, "seat": number, "cards": new, "showdown": True}
    return (yield from after.tell_shown(t, hand, number, entry))
