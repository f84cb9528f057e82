"""Hands in PHH, the Poker Hand History format (TOML; https://phh.readthedocs.io).

Reading turns a PHH text into what the engine plays from: a ``HandSetup``, a deck order and
the engine ``Action`` list. The engine deals from the deck itself, so the deck is built to
make it deal exactly the file's cards: hole cards where the engine draws them, the file's
board cards where each street is drawn, burns and unknown (``??``) cards filled with unused
cards. Every action is then replayed through the engine, which checks it; a file the rules
refuse raises ``PHHError`` naming the action number and the rule.

Writing turns a played ``HandState`` back into PHH text, optionally redacted for a viewer
(hole cards never shown are written ``??``). Pure: strings in, strings out, no files.

Variant codes: the spec's ``PO`` and ``FO/8``, and the same pattern for the other games:
betting letter (F, P, N), ``O``, the hole-card count when it is not 4, ``/8`` for hi-lo
(``NO``, ``PO/8``, ``PO5``, ``PO5/8``, ``PO6``, ``FO6/8`` ...). Extra keys: ``courchevel``,
``board_count``, ``bomb_pot``, ``run_it_twice``, ``odd_chip``, ``raise_cap``,
``cap_heads_up``, ``posts``,
``dead``; extra actions: ``pN rt y|n`` (run-it-twice vote) and ``d db CARDS bK rK`` (board
and run of a deal when there are two). See docs/hand-history.md.

Amounts may be decimals (``1259450.25``): every amount is scaled by the smallest power of ten
that makes them all whole, the hand is played in those integer chips, and written back in
the file's unit.
"""

from __future__ import annotations

import math
import random
import re
import tomllib
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from .actions import Action, ActionKind, Phase, Street
from .cards import Card, CardError, card_str, cards_str, parse_card
from .errors import ConfigError, IllegalAction, PokerError
from .events import (
    Acted,
    BoardDealt,
    CardsShown,
    HoleCardsDealt,
    Mucked,
    RunItTwiceVoted,
)
from .games import GAMES, Betting, GameSpec, HandConfig, OddChip
from .state import HandSetup, HandState

__all__ = [
    "HandHistory",
    "PHHError",
    "dumps",
    "format_amount",
    "loads",
    "loads_all",
    "parse_variant",
    "read",
    "variant_code",
]

_BETTING_LETTERS: Final = {
    "F": Betting.FIXED_LIMIT,
    "P": Betting.POT_LIMIT,
    "N": Betting.NO_LIMIT,
}
_LETTER_OF: Final = {v: k for k, v in _BETTING_LETTERS.items()}
_VARIANT_RE: Final = re.compile(r"([FPN])O([5-9])?(/8)?")
_MAX_DECIMALS: Final = 9
_RESHUFFLES: Final = 64

#: Keys this module reads as the game itself; everything else is metadata kept as is.
_GAME_KEYS: Final = frozenset(
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
        "courchevel",
        "board_count",
        "bomb_pot",
        "run_it_twice",
        "odd_chip",
        "raise_cap",
        "cap_heads_up",
        "posts",
        "dead",
    }
)
#: Keys that would change the game and that we do not play: refused unless empty or zero.
_REFUSED_KEYS: Final = {
    "bring_in": "a bring-in (stud games)",
    "rake": "a rake",
    "rake_cap": "a rake",
    "rake_percentage": "a rake",
    "runout_count": "a runout count (use run_it_twice and 'rt' votes)",
}


class PHHError(PokerError):
    """A hand history that is not valid PHH, or whose actions the rules refuse."""

    code = "bad_hand_history"


# ------------------------------------------------------------------------ variants
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
    extra = " with courchevel = true" if courchevel else ""
    raise PHHError(f"unknown variant {code!r}{extra}: no such Omaha game here")


def variant_code(config: HandConfig) -> str:
    game = config.game
    hole = "" if game.hole_cards == 4 else str(game.hole_cards)
    return f"{_LETTER_OF[config.betting]}O{hole}{'/8' if game.hi_lo else ''}"


# ------------------------------------------------------------------------ amounts
def _decimal(value: object, what: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise PHHError(f"{what} must be a number, not {value!r}")
    try:
        d = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    except InvalidOperation:
        raise PHHError(f"{what} must be a number, not {value!r}") from None
    if not d.is_finite() or d < 0:
        raise PHHError(f"{what} must be a finite, non-negative amount, not {value!r}")
    return d


def _decimals(d: Decimal) -> int:
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


# ------------------------------------------------------------------ parsed actions
@dataclass(frozen=True, slots=True)
class _Item:
    number: int  # 1-based position in the file's ``actions`` list
    text: str
    verb: str  # "dh", "db", "f", "cc", "cbr", "sm", "rt"
    player: int = -1
    cards: tuple[Card | None, ...] = ()
    amount: Decimal | None = None
    board: int = 0
    run: int = 0
    show: bool = False  # sm: show (cards given, or "-")
    agree: bool = False

    def fail(self, rule: str) -> PHHError:
        return PHHError(f"action {self.number} ({self.text}): {rule}")


def _parse_cards(item_text: str, number: int, text: str, unknown_ok: bool) -> list[Card | None]:
    compact = text.replace("10", "T")
    if len(compact) % 2:
        raise PHHError(f"action {number} ({item_text}): {text!r} is not a list of cards")
    out: list[Card | None] = []
    for i in range(0, len(compact), 2):
        chunk = compact[i : i + 2]
        if chunk == "??":
            if not unknown_ok:
                raise PHHError(f"action {number} ({item_text}): board cards cannot be unknown")
            out.append(None)
            continue
        try:
            out.append(parse_card(chunk))
        except CardError:
            raise PHHError(f"action {number} ({item_text}): {chunk!r} is not a card") from None
    return out


def _parse_player(label: str, number: int, text: str, players: int) -> int:
    if not re.fullmatch(r"p[1-9][0-9]*", label):
        raise PHHError(f"action {number} ({text}): {label!r} is not a player (p1, p2, ...)")
    p = int(label[1:]) - 1
    if p >= players:
        raise PHHError(f"action {number} ({text}): there is no {label} in a hand of {players}")
    return p


def _parse_action(number: int, raw: object, players: int, boards: int) -> _Item:
    if not isinstance(raw, str):
        raise PHHError(f"action {number} ({raw!r}): an action is a string")
    text = raw.split("#", 1)[0].strip()
    words = text.split()
    if not words:
        raise PHHError(f"action {number} ({raw!r}): empty action")
    if words[0] == "d":
        if len(words) == 4 and words[1] == "dh":
            p = _parse_player(words[2], number, text, players)
            return _Item(number, text, "dh", p, tuple(_parse_cards(text, number, words[3], True)))
        if len(words) >= 3 and words[1] == "db":
            board = run = 0
            for suffix in words[3:]:
                m = re.fullmatch(r"([br])([12])", suffix)
                if m is None:
                    raise PHHError(
                        f"action {number} ({text}): {suffix!r} is not a board (b1, b2) "
                        "or run (r1, r2) suffix"
                    )
                if m.group(1) == "b":
                    board = int(m.group(2)) - 1
                else:
                    run = int(m.group(2)) - 1
            if board >= boards:
                raise PHHError(f"action {number} ({text}): this hand has one board")
            cards = tuple(_parse_cards(text, number, words[2], False))
            return _Item(number, text, "db", cards=cards, board=board, run=run)
        raise PHHError(f"action {number} ({text}): unknown dealer action")
    p = _parse_player(words[0], number, text, players)
    verb = words[1] if len(words) > 1 else ""
    rest = words[2:]
    if verb in ("f", "cc") and not rest:
        return _Item(number, text, verb, p)
    if verb == "cbr" and len(rest) == 1:
        amount = _decimal(rest[0], f"action {number} ({text}): the amount")
        return _Item(number, text, verb, p, amount=amount)
    if verb == "sm" and not rest:
        return _Item(number, text, "sm", p, show=False)
    if verb == "sm" and rest == ["-"]:
        return _Item(number, text, "sm", p, show=True)
    if verb == "sm" and len(rest) == 1:
        cards = tuple(_parse_cards(text, number, rest[0], False))
        return _Item(number, text, "sm", p, cards, show=True)
    if verb == "rt" and len(rest) == 1 and rest[0] in ("y", "n"):
        return _Item(number, text, "rt", p, agree=rest[0] == "y")
    raise PHHError(
        f"action {number} ({text}): unknown action (expected f, cc, cbr AMOUNT, sm [CARDS], "
        "rt y|n, d dh, d db)"
    )


# ------------------------------------------------------------------ the hand history
@dataclass(frozen=True, slots=True)
class HandHistory:
    """A hand read from PHH: what the engine needs to replay it, plus what to write back.

    ``scale`` is the number of engine chips per unit of the file (1, or 100 for a file in
    hundredths); ``unknown`` the filler cards standing in for hole cards the file does not
    know (written back as ``??``); ``metadata`` every key that is not the game, in file order.
    """

    setup: HandSetup
    deck: tuple[Card, ...]
    actions: tuple[Action, ...]
    scale: int = 1
    unknown: frozenset[Card] = frozenset()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    finishing_stacks: tuple[int, ...] | None = None

    def replay(self, *, check_finishing_stacks: bool = True) -> HandState:
        """Play the hand through the engine; it must be complete. With
        ``check_finishing_stacks``, the file's ``finishing_stacks`` must match."""
        state = HandState.replay(self.setup, self.deck, self.actions)
        if not state.complete:
            who = "nobody" if state.actor is None else f"p{state.actor + 1}"
            raise PHHError(f"the actions end before the hand is over ({who} is to act)")
        expected = self.finishing_stacks if check_finishing_stacks else None
        if expected is not None and tuple(state.stacks) != expected:
            raise PHHError(
                f"finishing_stacks {self.stacks_out(expected)} do not match the replay's "
                f"{self.stacks_out(state.stacks)}"
            )
        return state

    def stacks_out(self, stacks: Iterable[int]) -> list[int | float]:
        return [amount_value(s, self.scale) for s in stacks]

    def dumps(self, *, redact: bool = False, viewer: int | None = None) -> str:
        state = HandState.replay(self.setup, self.deck, self.actions)
        return dumps(
            state,
            scale=self.scale,
            metadata=self.metadata,
            unknown=self.unknown,
            redact=redact,
            viewer=viewer,
        )


def loads(text: str) -> HandHistory:
    """Parse PHH text. Raises ``PHHError`` for bad TOML, an unsupported game, or an action
    the rules refuse (named by its number in ``actions``, counting from 1)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PHHError(f"not valid TOML: {error}") from None
    return read(data)


def loads_all(text: str) -> list[tuple[str, HandHistory]]:
    """Parse a ``.phhs`` session: one hand per TOML table (``[1]``, ``[2]``, ... as pokerkit
    writes them), in file order, each with its key. A file with a top-level ``variant`` is
    one hand (key ``""``). Raises ``PHHError`` naming the hand's key."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PHHError(f"not valid TOML: {error}") from None
    if "variant" in data:
        return [("", read(data))]
    out: list[tuple[str, HandHistory]] = []
    for key, value in data.items():
        if not isinstance(value, dict):
            raise PHHError(f"[{key}] is not a hand (a table of keys)")
        try:
            out.append((key, read(value)))
        except PHHError as error:
            raise PHHError(f"hand [{key}]: {error.message}") from None
    if not out:
        raise PHHError("no hand in the file")
    return out


def _number_list(data: Mapping[str, Any], key: str, players: int | None) -> list[Decimal]:
    value = data[key]
    if not isinstance(value, list):
        raise PHHError(f"{key} must be a list of amounts, one per player")
    out = [_decimal(v, f"{key}[{i}]") for i, v in enumerate(value)]
    if players is not None and len(out) != players:
        raise PHHError(f"{key} lists {len(out)} players, starting_stacks {players}")
    return out


def _flag(data: Mapping[str, Any], key: str) -> bool:
    value: object = data.get(key, False)
    if not isinstance(value, bool):
        raise PHHError(f"{key} must be true or false")
    return value


def _whole(data: Mapping[str, Any], key: str, default: int) -> int:
    value: object = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise PHHError(f"{key} must be a whole number")
    return value


def read(data: Mapping[str, Any]) -> HandHistory:
    """Build a ``HandHistory`` from parsed TOML."""
    for key, what in _REFUSED_KEYS.items():
        if data.get(key):
            raise PHHError(f"{key}: {what} is not supported")
    for key in ("variant", "antes", "starting_stacks", "actions"):
        if key not in data:
            raise PHHError(f"the required key {key!r} is missing")
    code = data["variant"]
    if not isinstance(code, str):
        raise PHHError("variant must be a string such as 'PO' or 'FO/8'")
    game, betting = parse_variant(code, courchevel=_flag(data, "courchevel"))
    boards = _whole(data, "board_count", 1)
    bomb_pot = _flag(data, "bomb_pot")
    run_it_twice = _flag(data, "run_it_twice")
    raise_cap = _whole(data, "raise_cap", 4)
    cap_heads_up = _flag(data, "cap_heads_up")
    odd_chip_text = data.get("odd_chip", OddChip.POSITION.value)
    try:
        odd_chip = OddChip(odd_chip_text)
    except ValueError:
        raise PHHError(
            f"odd_chip must be 'position' or 'high-card', not {odd_chip_text!r}"
        ) from None

    stacks_d = _number_list(data, "starting_stacks", None)
    n = len(stacks_d)
    antes_d = _number_list(data, "antes", n)
    if "blinds_or_straddles" in data:
        blinds_d = _number_list(data, "blinds_or_straddles", n)
    elif bomb_pot:
        blinds_d = [Decimal(0)] * n
    else:
        raise PHHError("the required key 'blinds_or_straddles' is missing")
    posts_d = _number_list(data, "posts", n) if "posts" in data else []
    dead_d = _number_list(data, "dead", n) if "dead" in data else []
    finishing_d = _number_list(data, "finishing_stacks", n) if "finishing_stacks" in data else None
    if betting is Betting.FIXED_LIMIT:
        if "min_bet" in data:
            raise PHHError(f"{code} is fixed limit: it takes small_bet and big_bet, not min_bet")
        for key in ("small_bet", "big_bet"):
            if key not in data:
                raise PHHError(f"the required key {key!r} is missing ({code} is fixed limit)")
        small_d = _decimal(data["small_bet"], "small_bet")
        big_d = _decimal(data["big_bet"], "big_bet")
    else:
        if "small_bet" in data or "big_bet" in data:
            raise PHHError(f"{code} is not fixed limit: it takes min_bet, not small/big bets")
        if "min_bet" not in data:
            raise PHHError("the required key 'min_bet' is missing")
        small_d = _decimal(data["min_bet"], "min_bet")
        big_d = Decimal(0)

    raw_actions = data["actions"]
    if not isinstance(raw_actions, list):
        raise PHHError("actions must be a list of strings")
    items = [_parse_action(i + 1, a, n, boards) for i, a in enumerate(raw_actions)]

    amounts = [*stacks_d, *antes_d, *blinds_d, *posts_d, *dead_d, small_d, big_d]
    amounts += finishing_d or []
    amounts += [it.amount for it in items if it.amount is not None]
    decimals = max((_decimals(d) for d in amounts), default=0)
    if decimals > _MAX_DECIMALS:
        raise PHHError(f"amounts with {decimals} decimals are finer than we play")
    scale = 10**decimals

    def chips(d: Decimal) -> int:
        return int(d * scale)

    def per_player(values: list[Decimal], reverse: bool) -> tuple[int, ...]:
        out = tuple(chips(v) for v in values)
        out = out[::-1] if reverse and n == 2 else out
        return out if any(out) else ()

    # PHH (like pokerkit) lists heads-up blinds and antes button-last: p1 posts the big
    # ones. The engine wants them per position, so they are reversed for two players.
    antes = per_player(antes_d, True)
    dead = per_player(dead_d, False)
    if len(set(antes)) > 1:
        # A big-blind ante (or any uneven antes) is dead money for the main pot, as pokerkit
        # plays PHH antes: nobody matches it, so it must not make a side pot of its own.
        dead = tuple(a + d for a, d in zip(antes, dead or (0,) * n, strict=True))
        antes = ()

    try:
        config = HandConfig(
            game,
            betting,
            small_bet=chips(small_d),
            big_bet=chips(big_d),
            boards=boards,
            bomb_pot=bomb_pot,
            run_it_twice=run_it_twice,
            raise_cap=raise_cap,
            odd_chip=odd_chip,
            cap_heads_up=cap_heads_up,
        )
        setup = HandSetup(
            config,
            stacks=per_player(stacks_d, False),
            blinds=per_player(blinds_d, True),
            antes=antes,
            posts=per_player(posts_d, False),
            dead=dead,
        )
        setup.validate()
    except ConfigError as error:
        raise PHHError(error.message) from None

    metadata = {k: v for k, v in data.items() if k not in _GAME_KEYS}
    finishing = tuple(chips(d) for d in finishing_d) if finishing_d is not None else None
    amount_of = {it.number: chips(it.amount) for it in items if it.amount is not None}
    deck, actions, unknown = _rebuild(setup, items, amount_of, scale)
    return HandHistory(setup, deck, actions, scale, unknown, metadata, finishing)


# --------------------------------------------------------------- rebuilding the deal
def _hole_cards(setup: HandSetup, items: Sequence[_Item]) -> list[list[Card | None]]:
    """Each player's hole cards from ``d dh`` and ``sm`` (which may reveal ``??`` cards);
    every known card of the file must be distinct."""
    n, hole = setup.players, setup.config.game.hole_cards
    holes: list[list[Card | None] | None] = [None] * n
    seen: dict[Card, int] = {}

    def note(item: _Item, card: Card) -> None:
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


def _rebuild(
    setup: HandSetup, items: Sequence[_Item], amount_of: Mapping[int, int], scale: int
) -> tuple[tuple[Card, ...], tuple[Action, ...], frozenset[Card]]:
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
    for item in items:
        if item.verb in ("f", "cc", "cbr", "rt"):
            if probe.complete or probe.phase is Phase.SHOWDOWN:
                break
            _apply(probe, item, amount_of, scale)
    where = {c: i for i, c in enumerate(probe_deck)}
    deals = [e for e in probe.log if isinstance(e, BoardDealt)]
    board_items = [it for it in items if it.verb == "db"]
    for item, deal in zip(board_items, deals, strict=False):
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
            actions = _play(setup, deck, items, amount_of, scale, unknown)
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


def _apply(state: HandState, item: _Item, amount_of: Mapping[int, int], scale: int) -> Action:
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
        raise item.fail(_in_file_units(error.message, scale)) from None
    return action


def _in_file_units(message: str, scale: int) -> str:
    """The engine names amounts in chips; put them back in the file's unit."""
    if scale == 1:
        return message
    # Not player labels (p5) nor counts ("capped at 4 bets").
    return re.sub(
        r"(?<![\w.])\d+(?![\w.]| bets)", lambda m: format_amount(int(m.group()), scale), message
    )


def _deal_name(deal: BoardDealt, boards: int) -> str:
    name = "first board card" if deal.street is Street.PREFLOP else deal.street.label
    where = []
    if boards > 1:
        where.append(f"board {deal.board + 1}")
    if deal.run:
        where.append(f"run {deal.run + 1}")
    return f"the {name}" + (f" of {', '.join(where)}" if where else "")


def _play(
    setup: HandSetup,
    deck: tuple[Card, ...],
    items: Sequence[_Item],
    amount_of: Mapping[int, int],
    scale: int,
    unknown: frozenset[Card],
) -> tuple[Action, ...]:
    state = HandState(setup, deck)
    boards = setup.config.boards
    due: deque[BoardDealt] = deque()
    seen_log = 0
    actions: list[Action] = []
    waiting: dict[int, _Item] = {}  # show/muck given ahead of the engine's show order

    def refresh() -> None:
        nonlocal seen_log
        due.extend(e for e in state.log[seen_log:] if isinstance(e, BoardDealt))
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
            deal = due.popleft()
            if (item.board, item.run) != (deal.board, deal.run):
                raise item.fail(f"{_deal_name(deal, boards)} is dealt here")
            if tuple(item.cards) != deal.cards:
                raise item.fail(
                    f"{_deal_name(deal, boards)} is {len(deal.cards)} card(s), "
                    f"{cards_str(deal.cards)} by the deck this file describes"
                )
        elif item.verb in ("f", "cc", "cbr", "rt"):
            acted = True
            if due:
                raise item.fail(f"{_deal_name(due[0], boards)} must be dealt first ('d db')")
            if state.phase is Phase.SHOWDOWN and state.actor in waiting:
                showdown()
            actions.append(_apply(state, item, amount_of, scale))
        else:  # sm
            acted = True
            p = item.player
            if state.shown[p]:
                continue  # already tabled (all in): the file repeats it, same cards
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
    for p in range(setup.players):
        if state.shown[p] and unknown & set(state.hole[p]):
            raise PHHError(f"p{p + 1}'s hole cards are unknown ('??') but the showdown needs them")
    return tuple(actions)


# ------------------------------------------------------------------------- writing
def _toml_string(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _toml_string(key)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        pairs = (f"{_toml_key(str(k))} = {_toml_value(v)}" for k, v in value.items())
        return "{" + ", ".join(pairs) + "}"
    raise PHHError(f"cannot write {value!r} in TOML")


def _amounts(values: Sequence[int], scale: int) -> str:
    return "[" + ", ".join(format_amount(v, scale) for v in values) + "]"


def _history_lines(
    state: HandState, scale: int, hidden: Iterable[int], unknown: frozenset[Card]
) -> list[str]:
    hide = set(hidden)
    cfg = state.config
    lines: list[str] = []
    for event in state.log:
        if isinstance(event, HoleCardsDealt):
            cards = "".join(
                "??" if event.player in hide or c in unknown else card_str(c) for c in event.cards
            )
            lines.append(f"d dh p{event.player + 1} {cards}")
        elif isinstance(event, BoardDealt):
            suffix = ""
            if cfg.boards > 1:
                suffix += f" b{event.board + 1}"
            if event.run:
                suffix += f" r{event.run + 1}"
            lines.append(f"d db {cards_str(event.cards)}{suffix}")
        elif isinstance(event, Acted):
            who = f"p{event.player + 1}"
            if event.kind is ActionKind.FOLD:
                lines.append(f"{who} f")
            elif event.kind in (ActionKind.CHECK, ActionKind.CALL):
                lines.append(f"{who} cc")
            else:
                lines.append(f"{who} cbr {format_amount(event.bet, scale)}")
        elif isinstance(event, RunItTwiceVoted):
            lines.append(f"p{event.player + 1} rt {'y' if event.agree else 'n'}")
        elif isinstance(event, CardsShown):
            lines.append(f"p{event.player + 1} sm {cards_str(event.cards)}")
        elif isinstance(event, Mucked):
            lines.append(f"p{event.player + 1} sm")
    return lines


def dumps(
    state: HandState,
    *,
    scale: int = 1,
    metadata: Mapping[str, Any] | None = None,
    unknown: frozenset[Card] = frozenset(),
    redact: bool = False,
    viewer: int | None = None,
) -> str:
    """PHH text for a hand played so far (``finishing_stacks`` once it is complete).

    The full version (``redact=False``) holds every hole card, mucked ones included: it is
    for server-side storage only. ``redact=True`` is what a viewer may see: hole cards that
    were never shown are written ``??`` (those of ``viewer``, a player index, excepted).
    ``unknown`` cards (fillers for cards a read file did not know) are always ``??``.
    """
    setup, cfg = state.setup, state.config
    n = setup.players

    def per_player(values: tuple[int, ...], reverse: bool) -> tuple[int, ...]:
        full = setup.per_player(values, "values")
        return full[::-1] if reverse and n == 2 else full

    lines = [f"variant = {_toml_string(variant_code(cfg))}"]
    if cfg.game.courchevel:
        lines.append("courchevel = true")
    if cfg.boards != 1:
        lines.append(f"board_count = {cfg.boards}")
    if cfg.bomb_pot:
        lines.append("bomb_pot = true")
    if cfg.run_it_twice:
        lines.append("run_it_twice = true")
    if cfg.odd_chip is not OddChip.POSITION:
        lines.append(f"odd_chip = {_toml_string(cfg.odd_chip.value)}")
    if cfg.raise_cap != 4:
        lines.append(f"raise_cap = {cfg.raise_cap}")
    if cfg.cap_heads_up:
        lines.append("cap_heads_up = true")
    antes, dead = per_player(setup.antes, False), per_player(setup.dead, False)
    if not any(antes) and len(set(dead)) > 1:
        antes, dead = dead, (0,) * n  # uneven dead money: PHH's uneven antes (read back so)
    lines.append(f"antes = {_amounts(antes[::-1] if n == 2 else antes, scale)}")
    lines.append(f"blinds_or_straddles = {_amounts(per_player(setup.blinds, True), scale)}")
    if any(setup.posts):
        lines.append(f"posts = {_amounts(per_player(setup.posts, False), scale)}")
    if any(dead):
        lines.append(f"dead = {_amounts(dead, scale)}")
    if cfg.betting is Betting.FIXED_LIMIT:
        lines.append(f"small_bet = {format_amount(cfg.small_bet, scale)}")
        lines.append(f"big_bet = {format_amount(cfg.big_bet, scale)}")
    else:
        lines.append(f"min_bet = {format_amount(cfg.small_bet, scale)}")
    lines.append(f"starting_stacks = {_amounts(setup.stacks, scale)}")
    hidden: list[int] = []
    if redact:
        hidden = [p for p in range(n) if not state.shown[p] and p != viewer]
    history = _history_lines(state, scale, hidden, unknown)
    lines.append("actions = [")
    lines.extend(f"  {_toml_string(a)}," for a in history)
    lines.append("]")
    for key, value in (metadata or {}).items():
        if key in _GAME_KEYS:
            continue
        lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
    if state.complete:
        lines.append(f"finishing_stacks = {_amounts(state.stacks, scale)}")
    return "\n".join(lines) + "\n"
