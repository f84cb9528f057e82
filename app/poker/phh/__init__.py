"""Hands in PHH, the Poker Hand History format (TOML; https://phh.readthedocs.io).

Reading turns a PHH text into what the engine plays from: a ``HandSetup``, a deck order and
the engine ``Action`` list (``reading``, ``dealing``); every action is replayed through the
engine, which checks it, and a file the rules refuse raises ``PHHError`` naming the action
number and the rule. Writing turns a played ``HandState`` back into PHH text, optionally
redacted for a viewer (``writing``). Pure: strings in, strings out, no files.

Variant codes: the standard's ``PO`` and ``FO/8``, and the same pattern for the games it has
no code for: betting letter (F, P, N), ``O``, the hole-card count when it is not 4, ``/8`` for
hi-lo (``NO``, ``PO/8``, ``PO5``, ``PO5/8``, ``PO6``, ``FO6/8`` ...). Our extensions are
user-defined keys (``_courchevel``, ``_board_count``, ``_bomb_pot``, ``_run_it_twice``,
``_run_it_twice_votes``, ``_odd_chip``, ``_raise_cap``, ``_cap_heads_up``, ``_posts``,
``_dead``); files written before, with the bare names and ``pN rt y`` / ``d db CARDS b2 r2``
actions, are still read. See docs/hand-history.md.

Amounts may be decimals (``1259450.25``): every amount is scaled by the smallest power of ten
that makes them all whole, the hand is played in those integer chips, and written back in
the file's unit.
"""

from .codes import PHHError, amount_value, format_amount, parse_variant, variant_code
from .reading import HandHistory, loads, loads_all, read
from .writing import dumps

__all__ = [
    "HandHistory",
    "PHHError",
    "amount_value",
    "dumps",
    "format_amount",
    "loads",
    "loads_all",
    "parse_variant",
    "read",
    "variant_code",
]
