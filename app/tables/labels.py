"""Every word a table shows for what the server sends, in one place: a table's game and stakes,
a seat's marks and notes, and the names of games, betting structures and cards.

The snapshot and records carry each table's and seat's labels (`table_labels`,
`seat_labels`: docs/protocol.md); the words that name what any page shows (`client_words`)
reach the browser as the module `js/words.js`, made from this one at start-up
(app/api/assets.py). The server's first paint (app/api/first_paint.py) and the client's
views (static/js) are markup over them: neither holds a word of its own for these.
"""

from __future__ import annotations

from typing import Any

from app.poker import GAMES, Betting
from app.tables.config import TableConfig
from app.tables.seat import Seat

BETTING_NAMES = {
    Betting.POT_LIMIT: "Pot limit",
    Betting.NO_LIMIT: "No limit",
    Betting.FIXED_LIMIT: "Fixed limit",
}
BETTING_SHORT = {Betting.POT_LIMIT: "PL", Betting.NO_LIMIT: "NL", Betting.FIXED_LIMIT: "FL"}
DOUBLE_BOARD = "double board"
ANTE = "ante"
#: what joins two labels on one line ("PL Omaha · double board", "Away · Sitting out")
JOIN = " · "

#: a seat's status, short on the seat ("playing": nothing)
STATUS_MARKS = {
    "waiting": "Waits for BB",
    "posting": "Posts BB",
    "sitting_out": "Sitting out",
    "leaving": "Leaving",
}
#: the same, long, in the seat's player's own panel
STATUS_NOTES = {
    "waiting": "Waiting for the big blind",
    "posting": "Posts to come in",
    "sitting_out": "Sitting out",
    "leaving": "Leaving",
}
#: the statuses still marked on a seat dealt into the running hand: it plays the hand,
#: whatever it waited for before the deal, but one leaving leaves when it ends
MARKED_IN_HAND = frozenset({"leaving"})
AWAY = "Away"
#: a seat the clock sat out (`sit_out_after_timeouts`): its mark, and its player's note
TIMED_OUT = "Timed out"
TIMED_OUT_NOTES = {
    "sitting_out": "You timed out and sit out: sit in to play",
    "next": "You timed out: you sit out from the next hand",
}
ALL_IN = "All in"
#: the player's own panel when it shows no cards of theirs
NOTES = {
    "folded": "Folded",
    "mucked": "Mucked: only you see these cards",
    "not_in_hand": "Not in this hand",
    "next_hand": "Waiting for the next hand",
}

#: what the table tells its viewers about the table itself and their own place at it (a
#: banner or a line of the dock): `{seat}` is the seat's number as shown, from 1
NOTICES = {
    # One text whether a hand is in play or not (each page's view of the hand's end differs
    # by moments): a pause deals no new hand and stops the clock of a hand in play, whose
    # players may still act (app/tables/pausing.py).
    "paused": "Paused by the host: the clock is stopped and no new hand is dealt.",
    "closing": "The table closes after this hand.",
    "request_pending": "Your request for seat {seat} waits for the host.",
    "request_seat": "Asked for",
    "request_refused": "The host refused your seat request.",
    "request_cancelled": "You cancelled your seat request.",
    "sit_out_next": "You sit out from the next hand.",
    "sit_out_next_bb": "You sit out when the big blind would next be yours.",
    "sat_out": "Back at the table? Sit in to be dealt the next hand.",
    "busted": "You are out of chips. Buy in again ({low} to {high})?",
}

RANK_NAMES = {"A": "Ace", "K": "King", "Q": "Queen", "J": "Jack", "T": "10"}
#: a card's rank as its face shows it (the others: their letter or digit)
RANK_FACES = {"T": "10"}
SUITS = {
    "s": {"symbol": "♠", "name": "spades"},
    "h": {"symbol": "♥", "name": "hearts"},
    "d": {"symbol": "♦", "name": "diamonds"},
    "c": {"symbol": "♣", "name": "clubs"},
}
#: what a highlighted card is, said after its name ("Ace of spades, winning card")
CARD_MARKS = {"win": "winning card", "win-low": "winning low card", "used": "in your best hand",
              "rabbit": "rabbit hunt, not played"}  # fmt: skip


def game_label(game: str, betting: str, boards: int = 1) -> str:
    """The short title of a game: "PL Omaha", "NL 5-card Omaha · double board"."""
    spec = GAMES.get(game)
    name = (spec.short or spec.name) if spec is not None else game
    try:
        short = BETTING_SHORT[Betting(betting)]
    except ValueError:
        short = ""
    board = f"{JOIN}{DOUBLE_BOARD}" if boards > 1 else ""
    return f"{short} {name}{board}".strip()


def stakes_text(small_blind: int, big_blind: int, ante: int = 0) -> str:
    """A table's stakes: "1/2", "1/2 ante 1"."""
    return f"{small_blind}/{big_blind}" + (f" {ANTE} {ante}" if ante else "")


def table_labels(config: TableConfig) -> dict[str, str]:
    """A table's `labels`: its game and its stakes, as its title line shows them."""
    return {
        "game": game_label(config.game, str(config.betting), config.boards),
        "stakes": stakes_text(config.small_blind, config.big_blind, config.ante),
    }


def _joined(*labels: str | None) -> str | None:
    return JOIN.join(label for label in labels if label) or None


def seat_labels(seat: Seat) -> dict[str, str | None]:
    """A seat's marks, on the seat when it is not playing the hand in progress (`mark`) and
    while it is (`mark_in_hand`), and its status said to its own player (`note`); None:
    nothing shown."""
    status = seat.status
    away = AWAY if seat.away else None
    note = STATUS_NOTES.get(status)
    timed = TIMED_OUT if seat.timed_out else None
    if seat.timed_out and status in ("sitting_out", "playing", "waiting", "posting"):
        note = TIMED_OUT_NOTES["sitting_out" if status == "sitting_out" else "next"]
    return {
        "mark": _joined(away, timed, STATUS_MARKS.get(status)),
        "mark_in_hand": _joined(
            away, timed, STATUS_MARKS[status] if status in MARKED_IN_HAND else None
        ),
        "note": note,
    }


def card_name(card: str, mark: str = "") -> str:
    """A card said in words: "Ace of spades", "10 of hearts, winning card"."""
    rank, suit = card[0], card[1]
    name = f"{RANK_NAMES.get(rank, rank)} of {SUITS[suit]['name'] if suit in SUITS else suit}"
    return f"{name}, {CARD_MARKS[mark]}" if mark in CARD_MARKS else name


def client_words() -> dict[str, Any]:
    """The words every page of the client draws with (`js/words.js`): the games and betting
    structures a new table offers, the cards' names and faces, a seat's and a player's
    marks and notes that are not a seat's own."""
    return {
        "games": {
            key: {
                "name": spec.name,
                "short": spec.short or spec.name,
                "hole_cards": spec.hole_cards,
            }
            for key, spec in GAMES.items()
        },
        "betting": {str(b): name for b, name in BETTING_NAMES.items()},
        "cards": {"ranks": RANK_NAMES, "faces": RANK_FACES, "suits": SUITS, "marks": CARD_MARKS},
        "marks": {"all_in": ALL_IN},
        "notes": NOTES,
        "notices": NOTICES,
    }
