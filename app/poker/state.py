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

``HandState`` is the hand's data (``hand.Hand``) with this interface over it; the rules are
plain functions of the modules it calls: ``betting`` (rounds and turns), ``runout`` (the
board, all in, run it twice), ``showdown`` (showing and the award) and ``legal`` (what may
be done now).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from . import betting, legal, runout, showdown
from .actions import (
    BETTING,
    COMPLETE,
    PREFLOP,
    RUN_IT_TWICE,
    SHOW,
    Action,
    LegalActions,
)
from .cards import Card
from .errors import ConfigError, IllegalAction
from .events import Event, board_dealt, cards_shown, forced_bet, hole_cards_dealt
from .hand import Hand
from .setup import HandSetup

__all__ = ["HandSetup", "HandState"]


class HandState(Hand):
    """One hand of Omaha, from forced bets to the last chip awarded."""

    def __init__(self, setup: HandSetup, deck: Sequence[Card]) -> None:
        super().__init__(setup, deck)
        self._start()

    @classmethod
    def replay(cls, setup: HandSetup, deck: Sequence[Card], actions: Iterable[Action]) -> HandState:
        state = cls(setup, deck)
        for action in actions:
            state.apply(action)
        return state

    def _start(self) -> None:
        s, cfg, ev = self.setup, self.config, self.log
        needed = self.n * cfg.game.hole_cards + cfg.boards * 5 + cfg.game.burns
        if len(self.deck) < needed:
            raise ConfigError(f"the deck has {len(self.deck)} cards, this deal needs {needed}")
        # Antes first; dead money after the live bets: a short big blind posts the blind
        # before the big-blind ante (TDA RP-11, "big-blind-first"), one coming back the live
        # big blind before the dead small blind (Robert's: "up to the size of the minimum
        # opening bet is live. The remainder ... is not part of the player's bet").
        # (An empty tuple is all zero; the others list every player: ``validate`` checked.)
        for kind, amounts, live in (
            ("ante", s.antes, False),
            ("blind", s.blinds, True),
            ("post", s.posts, True),
            ("dead", s.dead, False),
        ):
            for p, amount in enumerate(amounts):
                if amount <= 0:
                    continue
                put = amount if amount < self.stacks[p] else self.stacks[p]
                self.stacks[p] -= put
                self.committed[p] += put
                if live:
                    self.bets[p] += put
                elif kind == "dead":
                    self.dead[p] += put
                ev.append(forced_bet(p, kind, put, self.stacks[p] == 0))
        hole = cfg.game.hole_cards
        # One card at a time, clockwise from the first player left of the button.
        n = self.n
        dealt = self.draw(hole * n)
        # (A loop: ``map`` would call the builder from C, a comprehension build a function.)
        self.hole = []
        for p in range(n):
            cards = dealt[p::n]  # the p-th card of each round of the deal
            self.hole.append(cards)
            ev.append(hole_cards_dealt(p, cards))
        if cfg.game.courchevel:
            self.burns.extend(self.draw(1))
            for b in range(cfg.boards):
                card = self.draw(1)
                self.boards[0][b].extend(card)
                ev.append(board_dealt(PREFLOP, b, 0, card))
        if cfg.bomb_pot:
            betting.finish_round_and_continue(self, ev)
        else:
            betting.open_round(self, PREFLOP, ev)

    # -------------------------------------------------------------- verify / can
    def legal_actions(self) -> LegalActions | None:
        return legal.legal_actions(self)

    def verify(self, action: Action) -> None:
        """Raise ``IllegalAction`` naming the rule if ``action`` is not allowed now."""
        legal.verify(self, action)

    def can(self, action: Action) -> bool:
        try:
            legal.verify(self, action)
        except IllegalAction:
            return False
        return True

    # ------------------------------------------------------------------------- do
    def apply(self, action: Action) -> list[Event]:
        """Apply a legal action and return the events it caused; an illegal one raises
        ``IllegalAction`` and changes nothing."""
        legal.verify(self, action)
        events: list[Event] = []
        self.history.append(action)
        phase = self.phase
        if phase is BETTING:  # the usual case first
            betting.wager(self, action, events)
        elif phase is COMPLETE:  # a show after an uncontested win
            self.shown[action.player] = True
            events.append(cards_shown(action.player, self.hole[action.player]))
        elif phase is RUN_IT_TWICE:
            runout.vote(self, action.player, bool(action.agree), events)
        else:
            showdown.show_or_muck(self, action.player, action.kind is SHOW, events)
        self.log.extend(events)
        return events
