"""The rules of Omaha: pure, deterministic, standard library plus phevaluator only.

Public surface::

    from app.poker import GAMES, Betting, HandConfig, HandSetup, HandState, Action, ActionKind

A hand is ``HandState(setup, deck)`` followed by ``apply(action)`` calls; each returns the
events it caused, an illegal action raises ``IllegalAction`` and changes nothing.
"""

from .actions import Action, ActionKind, LegalActions, Phase, Street
from .cards import Card, card_str, cards_str, parse_card, parse_cards
from .errors import ConfigError, IllegalAction, PokerError
from .games import GAMES, Betting, GameSpec, HandConfig, OddChip, cards_needed, max_players
from .pots import Pot
from .state import HandSetup, HandState

__all__ = [
    "GAMES",
    "Action",
    "ActionKind",
    "Betting",
    "Card",
    "ConfigError",
    "GameSpec",
    "HandConfig",
    "HandSetup",
    "HandState",
    "IllegalAction",
    "LegalActions",
    "OddChip",
    "Phase",
    "PokerError",
    "Pot",
    "Street",
    "card_str",
    "cards_needed",
    "cards_str",
    "max_players",
    "parse_card",
    "parse_cards",
]
