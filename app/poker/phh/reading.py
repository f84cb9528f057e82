"""Reading PHH: the TOML keys to a ``HandSetup``, a deck and the engine's actions."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..actions import Action
from ..cards import Card
from ..errors import ConfigError
from ..games import Betting, HandConfig, OddChip
from ..state import HandSetup, HandState
from .codes import (
    GAME_KEYS,
    MAX_DECIMALS,
    REFUSED_KEYS,
    PHHError,
    amount_value,
    decimal,
    decimals,
    extension,
    parse_variant,
)
from .dealing import rebuild
from .notation import Item, parse_action, parse_vote
from .writing import dumps


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
    out = [decimal(v, f"{key}[{i}]") for i, v in enumerate(value)]
    if players is not None and len(out) != players:
        raise PHHError(f"{key} lists {len(out)} players, starting_stacks {players}")
    return out


def _flag(data: Mapping[str, Any], key: str) -> bool:
    value = extension(data, key, False)
    if not isinstance(value, bool):
        raise PHHError(f"_{key} must be true or false")
    return value


def _whole(data: Mapping[str, Any], key: str, default: int) -> int:
    value = extension(data, key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise PHHError(f"_{key} must be a whole number")
    return value


def _extra_list(data: Mapping[str, Any], key: str, players: int) -> list[Decimal]:
    """An extension key holding one amount per player (``_posts``, ``_dead``), or []."""
    value = extension(data, key, None)
    if value is None:
        return []
    return _number_list({key: value}, key, players)


def _without_bomb_pot_checks(items: list[Item], boards: int, courchevel: bool) -> list[Item]:
    """A bomb pot has no pre-flop betting. The standard has no such hand, so we write it as
    antes and a pre-flop round that everyone checks (what a standard reader plays): those
    checks, before the flop and before any other betting, are no actions of ours."""
    before_flop = boards if courchevel else 0  # the exposed cards come before the checks
    out: list[Item] = []
    deals, betting = 0, False
    for item in items:
        if item.verb == "db":
            deals += 1
        elif item.verb == "cc" and not betting and deals <= before_flop:
            continue
        elif item.verb in ("f", "cbr", "rt"):
            betting = True
        out.append(item)
    return out


def read(data: Mapping[str, Any]) -> HandHistory:
    """Build a ``HandHistory`` from parsed TOML."""
    for key, what in REFUSED_KEYS.items():
        if data.get(key):
            raise PHHError(f"{key}: {what} is not supported")
    for key in ("variant", "antes", "starting_stacks", "actions"):
        if key not in data:
            raise PHHError(f"the required key {key!r} is missing")
    code = data["variant"]
    if not isinstance(code, str):
        raise PHHError("variant must be a string such as 'PO' or 'FO/8'")
    courchevel = _flag(data, "courchevel")
    game, betting = parse_variant(code, courchevel=courchevel)
    boards = _whole(data, "board_count", 1)
    bomb_pot = _flag(data, "bomb_pot")
    run_it_twice = _flag(data, "run_it_twice")
    raise_cap = _whole(data, "raise_cap", 4)
    cap_heads_up = _flag(data, "cap_heads_up")
    odd_chip_text = extension(data, "odd_chip", OddChip.POSITION.value)
    try:
        odd_chip = OddChip(str(odd_chip_text))
    except ValueError:
        raise PHHError(
            f"_odd_chip must be 'position' or 'high-card', not {odd_chip_text!r}"
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
    posts_d = _extra_list(data, "posts", n)
    dead_d = _extra_list(data, "dead", n)
    finishing_d = _number_list(data, "finishing_stacks", n) if "finishing_stacks" in data else None
    if betting is Betting.FIXED_LIMIT:
        if "min_bet" in data:
            raise PHHError(f"{code} is fixed limit: it takes small_bet and big_bet, not min_bet")
        for key in ("small_bet", "big_bet"):
            if key not in data:
                raise PHHError(f"the required key {key!r} is missing ({code} is fixed limit)")
        small_d = decimal(data["small_bet"], "small_bet")
        big_d = decimal(data["big_bet"], "big_bet")
    else:
        if "small_bet" in data or "big_bet" in data:
            raise PHHError(f"{code} is not fixed limit: it takes min_bet, not small/big bets")
        if "min_bet" not in data:
            raise PHHError("the required key 'min_bet' is missing")
        small_d = decimal(data["min_bet"], "min_bet")
        big_d = Decimal(0)

    raw_actions = data["actions"]
    if not isinstance(raw_actions, list):
        raise PHHError("actions must be a list of strings")
    parsed = (parse_action(i + 1, a, n, boards) for i, a in enumerate(raw_actions))
    items = [item for item in parsed if item is not None]
    if bomb_pot:
        items = _without_bomb_pot_checks(items, boards, courchevel)
    raw_votes = extension(data, "run_it_twice_votes", [])
    if not isinstance(raw_votes, list):
        raise PHHError("_run_it_twice_votes must be a list such as ['p1 y', 'p2 n']")
    votes = [parse_vote(i + 1, v, n) for i, v in enumerate(raw_votes)]

    amounts = [*stacks_d, *antes_d, *blinds_d, *posts_d, *dead_d, small_d, big_d]
    amounts += finishing_d or []
    amounts += [it.amount for it in items if it.amount is not None]
    places = max((decimals(d) for d in amounts), default=0)
    if places > MAX_DECIMALS:
        raise PHHError(f"amounts with {places} decimals are finer than we play")
    scale = 10**places

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
        # Uneven antes: what every player antes is an ante each, the rest (a big-blind ante,
        # a dead small blind) is dead money for the main pot, as pokerkit plays PHH antes:
        # nobody matches it, so it must not make a side pot of its own.
        low = min(antes)
        dead = tuple(a - low + d for a, d in zip(antes, dead or (0,) * n, strict=True))
        antes = (low,) * n if low else ()

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

    metadata = {k: v for k, v in data.items() if k not in GAME_KEYS}
    finishing = tuple(chips(d) for d in finishing_d) if finishing_d is not None else None
    amount_of = {it.number: chips(it.amount) for it in items if it.amount is not None}
    deck, actions, unknown = rebuild(setup, items, votes, amount_of, scale)
    return HandHistory(setup, deck, actions, scale, unknown, metadata, finishing)
