"""PHH's vocabulary: the error, the variant codes, the keys, and amounts in the file's unit."""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from ..errors import PokerError
from ..games import GAMES, Betting, GameSpec, HandConfig


class PHHError(PokerError):
    """A hand history that is not valid PHH, or whose actions the rules refuse."""

    code = "bad_hand_history"


_BETTING_LETTERS: Final = {
    "F": Betting.FIXED_LIMIT,
    "P": Betting.POT_LIMIT,
    "N": Betting.NO_LIMIT,
}
_LETTER_OF: Final = {v: k for k, v in _BETTING_LETTERS.items()}
_VARIANT_RE: Final = re.compile(r"([FPN])O([5-9])?(/8)?")
MAX_DECIMALS: Final = 9

#: Our extensions. The standard's user-defined form is the underscore prefix
#: (``_board_count``), which is what we write; files written before used the bare names,
#: which are still read.
EXTENSION_KEYS: Final = (
    "courchevel",
    "board_count",
    "bomb_pot",
    "run_it_twice",
    "run_it_twice_votes",
    "odd_chip",
    "raise_cap",
    "cap_heads_up",
    "posts",
    "dead",
)
#: Keys read as the game itself; everything else is metadata kept as is.
GAME_KEYS: Final = frozenset(
    {
        "variant",
        "antes",
        "blinds_or_straddles",
        "min_bet",
        "small_bet",
        "big_bet",
        "starting_stacks",
        "actions",
        "finishing_stacks",
        *EXTENSION_KEYS,
        *(f"_{key}" for key in EXTENSION_KEYS),
    }
)
#: Keys that would change the game and that we do not play: refused unless empty or zero.
REFUSED_KEYS: Final = {
    "bring_in": "a bring-in (stud games)",
    "rake": "a rake",
    "rake_cap": "a rake",
    "rake_percentage": "a rake",
    "runout_count": "a runout count (use _run_it_twice and _run_it_twice_votes)",
}


def extension(data: Mapping[str, Any], key: str, default: object) -> object:
    """An extension key's value, under ``_key`` (written now) or ``key`` (older files)."""
    if key in data and f"_{key}" in data:
        raise PHHError(f"give _{key} or {key}, not both")
    return data.get(f"_{key}", data.get(key, default))


def parse_variant(code: str, *, courchevel: bool = False) -> tuple[GameSpec, Betting]:
    """``"PO5/8"`` -> (Big O, pot limit). Courchevel is the five-card code plus the key."""
    m = _VARIANT_RE.fullmatch(code)
    if m is None:
        raise PHHError(
            f"unknown variant {code!r}: expected F, P or N, then O, the hole-card count "
            "when not 4, and /8 for hi-lo (PO, FO/8, PO5, PO5/8, ...)"
        )
    betting = _BETTING_LETTERS[m.group(1)]
    hole = int(m.group(2) or 4)
    hi_lo = m.group(3) is not None
    for game in GAMES.values():
        if (game.hole_cards, game.hi_lo, game.courchevel) == (hole, hi_lo, courchevel):
            return game, betting
    extra = " with _courchevel = true" if courchevel else ""
    raise PHHError(f"unknown variant {code!r}{extra}: no such Omaha game here")


def variant_code(config: HandConfig) -> str:
    game = config.game
    hole = "" if game.hole_cards == 4 else str(game.hole_cards)
    return f"{_LETTER_OF[config.betting]}O{hole}{'/8' if game.hi_lo else ''}"


def decimal(value: object, what: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise PHHError(f"{what} must be a number, not {value!r}")
    try:
        d = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    except InvalidOperation:
        raise PHHError(f"{what} must be a number, not {value!r}") from None
    if not d.is_finite() or d < 0:
        raise PHHError(f"{what} must be a finite, non-negative amount, not {value!r}")
    return d


def decimals(d: Decimal) -> int:
    exponent = d.normalize().as_tuple().exponent
    assert isinstance(exponent, int)
    return max(0, -exponent)


def format_amount(chips: int, scale: int = 1) -> str:
    """Integer chips back to the file's unit: ``125``, ``1259450.25``."""
    if scale == 1:
        return str(chips)
    q = Decimal(chips) / Decimal(scale)
    if q == q.to_integral_value():
        return str(int(q))
    return format(q.normalize(), "f")


def amount_value(chips: int, scale: int = 1) -> int | float:
    """Chips as a JSON-friendly number in the file's unit: an int when whole."""
    if chips % scale == 0:
        return chips // scale
    return float(Decimal(chips) / Decimal(scale))


def in_file_units(message: str, scale: int) -> str:
    """The engine names amounts in chips; put them back in the file's unit."""
    if scale == 1:
        return message
    # Not player labels (p5) nor counts ("capped at 4 bets").
    return re.sub(
        r"(?<![\w.])\d+(?![\w.]| bets)", lambda m: format_amount(int(m.group()), scale), message
    )
