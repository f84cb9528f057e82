"""One line of a PHH ``actions`` list, parsed: who does what, with which cards or amount."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from ..cards import Card, CardError, parse_card
from ..events import BoardDealt
from .codes import PHHError, decimal


@dataclass(frozen=True, slots=True)
class Item:
    number: int  # 1-based position in the file's ``actions`` list
    text: str
    verb: str  # "dh", "db", "f", "cc", "cbr", "sm", "rt"
    player: int = -1
    cards: tuple[Card | None, ...] = ()
    amount: Decimal | None = None
    board: int = 0
    run: int = 0
    placed: bool = False  # db: board and run given (``b2 r2``, older files); else the next due
    show: bool = False  # sm: show (cards given, or "-")
    agree: bool = False

    def fail(self, rule: str) -> PHHError:
        if self.number < 0:  # one of _run_it_twice_votes
            return PHHError(f"_run_it_twice_votes[{-self.number - 1}] ({self.text}): {rule}")
        return PHHError(f"action {self.number} ({self.text}): {rule}")


def _cards(item_text: str, number: int, text: str, unknown_ok: bool) -> list[Card | None]:
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


def _player(label: str, number: int, text: str, players: int) -> int:
    if not re.fullmatch(r"p[1-9][0-9]*", label):
        raise PHHError(f"action {number} ({text}): {label!r} is not a player (p1, p2, ...)")
    p = int(label[1:]) - 1
    if p >= players:
        raise PHHError(f"action {number} ({text}): there is no {label} in a hand of {players}")
    return p


def _board(number: int, text: str, words: list[str], boards: int) -> Item:
    board = run = 0
    for suffix in words[3:]:
        m = re.fullmatch(r"([br])([12])", suffix)
        if m is None:
            raise PHHError(
                f"action {number} ({text}): {suffix!r} is not a board (b1, b2) or run (r1, r2) "
                "suffix"
            )
        if m.group(1) == "b":
            board = int(m.group(2)) - 1
        else:
            run = int(m.group(2)) - 1
    if board >= boards:
        raise PHHError(f"action {number} ({text}): this hand has one board")
    cards = tuple(_cards(text, number, words[2], False))
    return Item(number, text, "db", cards=cards, board=board, run=run, placed=len(words) > 3)


def parse_action(number: int, raw: object, players: int, boards: int) -> Item | None:
    """The action, or None for a no-op (an empty line or a standalone ``# commentary``)."""
    if not isinstance(raw, str):
        raise PHHError(f"action {number} ({raw!r}): an action is a string")
    text = raw.split("#", 1)[0].strip()
    words = text.split()
    if not words:
        return None
    if words[0] == "d":
        if len(words) == 4 and words[1] == "dh":
            p = _player(words[2], number, text, players)
            return Item(number, text, "dh", p, tuple(_cards(text, number, words[3], True)))
        if len(words) >= 3 and words[1] == "db":
            return _board(number, text, words, boards)
        raise PHHError(f"action {number} ({text}): unknown dealer action")
    p = _player(words[0], number, text, players)
    verb = words[1] if len(words) > 1 else ""
    rest = words[2:]
    if verb in ("f", "cc") and not rest:
        return Item(number, text, verb, p)
    if verb == "cbr" and len(rest) == 1:
        amount = decimal(rest[0], f"action {number} ({text}): the amount")
        return Item(number, text, verb, p, amount=amount)
    if verb == "sm" and not rest:
        return Item(number, text, "sm", p, show=False)
    if verb == "sm" and rest == ["-"]:
        return Item(number, text, "sm", p, show=True)
    if verb == "sm" and len(rest) == 1:
        cards = tuple(_cards(text, number, rest[0], False))
        return Item(number, text, "sm", p, cards, show=True)
    if verb == "rt" and len(rest) == 1 and rest[0] in ("y", "n"):  # older files' votes
        return Item(number, text, "rt", p, agree=rest[0] == "y")
    raise PHHError(
        f"action {number} ({text}): unknown action (expected f, cc, cbr AMOUNT, sm [CARDS], "
        "d dh, d db)"
    )


def parse_vote(number: int, raw: object, players: int) -> Item:
    """One of ``_run_it_twice_votes``: ``"p1 y"`` (yes) or ``"p2 n"``, in the engine's order."""
    words = raw.split() if isinstance(raw, str) else []
    if len(words) != 2 or words[1] not in ("y", "n"):
        raise PHHError(f"_run_it_twice_votes[{number - 1}] is {raw!r}, not 'pN y' or 'pN n'")
    p = _player(words[0], number, str(raw), players)
    return Item(-number, str(raw), "rt", p, agree=words[1] == "y")


def in_file_order(deals: Sequence[BoardDealt], boards: int) -> list[BoardDealt]:
    """The board deals in the order the file lists them (``d db`` lines).

    The engine deals a run-out run after run, each street board after board. The standard
    has no run it twice; pokerkit, its reference reader, numbers the boards of a run-out
    board by board (board ``j = b * runs + r`` is board ``b`` of run ``r``) and fills them
    in dealing order, ``boards`` cards per street and pass. With one board (the runs one
    after the other) or one run (the boards one after the other) that is the engine's order;
    two boards run twice are listed as pokerkit reads them: board 1's two runs street by
    street (turn of run 1, turn of run 2, river of run 1, ...), then board 2's. The cards
    dealt before the all-in, which both runs share, come first, as dealt."""
    second = [d.street for d in deals if d.run]
    if not second or boards == 1:
        return list(deals)
    start, runs = min(second), 1 + max(d.run for d in deals)

    def place(d: BoardDealt) -> tuple[int, int, int]:
        j = d.board * runs + d.run
        return j // boards, d.street, j % boards

    shared = [d for d in deals if d.street < start]
    return shared + sorted((d for d in deals if d.street >= start), key=place)
