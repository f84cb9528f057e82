"""Writing a played ``HandState`` as PHH text, optionally redacted for a viewer.

What the standard has no word for is written in its own terms so that a standard reader
(pokerkit) plays the hand as we did wherever it can: our keys with the user-defined
underscore prefix; a second board's or a second run's cards as plain ``d db`` lines, in
the order they were dealt (two boards run twice: in the order pokerkit reads them, see
``in_file_order``), with a commentary naming the board and run; the run-it-twice
votes in ``_run_it_twice_votes``, not as actions; a bomb pot's missing pre-flop betting
as a round everyone checks.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime, time
from typing import Any

from ..actions import ActionKind, Street
from ..cards import Card, card_str, cards_str
from ..events import (
    Acted,
    BoardDealt,
    CardsShown,
    ForcedBet,
    HoleCardsDealt,
    Mucked,
    RunItTwiceVoted,
)
from ..games import Betting, OddChip
from ..state import HandState
from .codes import GAME_KEYS, PHHError, format_amount, variant_code
from .notation import in_file_order


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


def _where(event: BoardDealt, boards: int) -> str:
    parts = []
    if event.run:
        parts.append(f"run {event.run + 1}")
    if boards > 1:
        parts.append(f"board {event.board + 1}")
    return f" # {', '.join(parts)}" if parts else ""


def _bomb_pot_checks(state: HandState) -> list[str]:
    """The pre-flop round a standard reader asks for (no blinds, so p1 first): a check from
    each player with chips behind the ante."""
    setup = state.setup
    antes = setup.per_player(setup.antes, "antes")
    return [
        f"p{p + 1} cc" + (" # bomb pot: no pre-flop betting" if not k else "")
        for k, p in enumerate(p for p in range(state.n) if setup.stacks[p] > antes[p])
    ]


def _dead_posted(state: HandState) -> tuple[int, ...]:
    """The dead money each player posted. Dead money comes after the live bets, so a short
    big blind posts the blind first and only the rest of a big-blind ante (TDA RP-11): the
    file says what was posted, and a standard reader, which posts antes before blinds, then
    posts the same blind (a dead amount caps nothing and sizes no call, so it loses nothing)."""
    dead = [0] * state.n
    for event in state.log:
        if isinstance(event, ForcedBet) and event.kind == "dead":
            dead[event.player] += event.amount
    return tuple(dead)


def _history_lines(
    state: HandState, scale: int, hidden: Iterable[int], unknown: frozenset[Card]
) -> list[str]:
    hide = set(hidden)
    cfg = state.config
    lines: list[str] = []
    checks = _bomb_pot_checks(state) if cfg.bomb_pot else []
    deals = iter(in_file_order([e for e in state.log if isinstance(e, BoardDealt)], cfg.boards))
    for logged in state.log:
        event = next(deals) if isinstance(logged, BoardDealt) else logged
        pre_flop = isinstance(event, BoardDealt) and event.street is Street.PREFLOP
        if checks and isinstance(event, BoardDealt | CardsShown) and not pre_flop:
            lines.extend(checks)  # before the flop, and before the hands tabled all in
            checks = []
        if isinstance(event, HoleCardsDealt):
            cards = "".join(
                "??" if event.player in hide or c in unknown else card_str(c) for c in event.cards
            )
            lines.append(f"d dh p{event.player + 1} {cards}")
        elif isinstance(event, BoardDealt):
            lines.append(f"d db {cards_str(event.cards)}{_where(event, cfg.boards)}")
        elif isinstance(event, Acted):
            who = f"p{event.player + 1}"
            if event.kind is ActionKind.FOLD:
                lines.append(f"{who} f")
            elif event.kind in (ActionKind.CHECK, ActionKind.CALL):
                lines.append(f"{who} cc")
            else:
                lines.append(f"{who} cbr {format_amount(event.bet, scale)}")
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
        lines.append("_courchevel = true")
    if cfg.boards != 1:
        lines.append(f"_board_count = {cfg.boards}")
    if cfg.bomb_pot:
        lines.append("_bomb_pot = true")
    if cfg.run_it_twice:
        lines.append("_run_it_twice = true")
    if cfg.odd_chip is not OddChip.POSITION:
        lines.append(f"_odd_chip = {_toml_string(cfg.odd_chip.value)}")
    if cfg.raise_cap != 4:
        lines.append(f"_raise_cap = {cfg.raise_cap}")
    if cfg.cap_heads_up:
        lines.append("_cap_heads_up = true")
    antes, dead = per_player(setup.antes, False), _dead_posted(state)
    if len(set(dead)) > 1:
        # Uneven dead money (a big-blind ante, a dead small blind) on top of the antes: PHH's
        # uneven antes, which the standard (and pokerkit) plays as dead money; read back as
        # the antes every player posts and the rest dead.
        antes, dead = tuple(a + d for a, d in zip(antes, dead, strict=True)), (0,) * n
    lines.append(f"antes = {_amounts(antes[::-1] if n == 2 else antes, scale)}")
    lines.append(f"blinds_or_straddles = {_amounts(per_player(setup.blinds, True), scale)}")
    if any(setup.posts):
        lines.append(f"_posts = {_amounts(per_player(setup.posts, False), scale)}")
    if any(dead):
        lines.append(f"_dead = {_amounts(dead, scale)}")
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
    votes = [
        f"p{e.player + 1} {'y' if e.agree else 'n'}"
        for e in state.log
        if isinstance(e, RunItTwiceVoted)
    ]
    if votes:
        lines.append(f"_run_it_twice_votes = {_toml_value(votes)}")
    for key, value in (metadata or {}).items():
        if key in GAME_KEYS:
            continue
        lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
    if state.complete:
        lines.append(f"finishing_stacks = {_amounts(state.stacks, scale)}")
    return "\n".join(lines) + "\n"
