"""One renderer source (app/tables/labels.py): the words a table shows come from the server,
in the snapshot and records (and `js/words.js` for the words of no one table), and neither
the client nor the server's first paint keeps a copy.

Fast and without a browser: the labels of every game, stakes and seat status against the
words the client drew before they moved to the server (the oracle below); the snapshot, the
`seat` and `table` records and the first paint carrying them; every label the client's code
reads existing where it reads it; and no wording of them left in static/js or first_paint.py.
(tests/e2e/test_first_paint.py checks that the first paint is the client's render.)
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from app.api import first_paint
from app.api.assets import generated
from app.poker import GAMES, Betting, max_players
from app.tables import labels
from app.tables.config import TableConfig
from app.tables.seat import Seat, SeatState
from app.tables.table import Runtime, Table
from app.tables.viewer import Viewer
from app.tables.views import seat_json
from tests.tables.stores import MemoryTableStore

ROOT = Path(__file__).resolve().parents[2]
CLIENT = sorted((ROOT / "static" / "js").rglob("*.js"))

# The client's words before they moved to the server (static/js/format.js, cards.js and
# speech.js at 9cf6830): the labels must read the same.
SHORT_GAMES = {"omaha": "Omaha", "omaha-hi-lo": "Omaha hi-lo", "five-card-omaha": "5-card Omaha",
               "big-o": "Big O", "six-card-omaha": "6-card Omaha",
               "six-card-omaha-hi-lo": "6-card hi-lo", "courchevel": "Courchevel",
               "courchevel-hi-lo": "Courchevel hi-lo"}  # fmt: skip
BETTING_SHORT = {"pot-limit": "PL", "no-limit": "NL", "fixed-limit": "FL"}
MARKS = {"waiting": "Waits for BB", "posting": "Posts BB", "sitting_out": "Sitting out",
         "leaving": "Leaving"}  # fmt: skip
STATUS = {"waiting": "Waiting for the big blind", "posting": "Posts to come in",
          "sitting_out": "Sitting out", "leaving": "Leaving"}  # fmt: skip
HOLE = {"omaha": 4, "omaha-hi-lo": 4, "five-card-omaha": 5, "big-o": 5, "six-card-omaha": 6,
        "six-card-omaha-hi-lo": 6, "courchevel": 5, "courchevel-hi-lo": 5}  # fmt: skip


def old_marks(seat: dict[str, Any], dealt_in: bool, ended: bool, all_in: bool) -> list[str]:
    """The client's mark rule as it was (static/js/views/table.js at 9cf6830)."""
    marks = ["Away"] if seat["away"] else []
    status = seat["status"]
    if status in MARKS and not (dealt_in and not ended and status != "leaving"):
        marks.append(MARKS[status])
    if all_in:
        marks.append("All in")
    return marks


def seats_of_every_status() -> list[Seat]:
    return [
        Seat(n, f"p{n}", f"P{n}", 100, state, away=away)
        for n, (state, away) in enumerate((k, a) for k in SeatState for a in (False, True))
    ]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_s_label_and_stakes(game: str) -> None:
    boards = (1, 2) if max_players(GAMES[game], 2) >= 2 else (1,)
    for betting in Betting:
        for n in boards:
            config = TableConfig(game=game, betting=betting, boards=n, seats=2, small_blind=1,
                                 big_blind=2, big_bet=4)  # fmt: skip
            expected = f"{BETTING_SHORT[str(betting)]} {SHORT_GAMES[game]}"
            expected += " · double board" if n > 1 else ""
            assert labels.table_labels(config) == {"game": expected, "stakes": "1/2"}
    assert labels.stakes_text(5, 10, 1) == "5/10 ante 1"
    assert labels.client_words()["games"][game]["hole_cards"] == HOLE[game]


def test_every_seat_status_s_marks_and_note() -> None:
    for seat in seats_of_every_status():
        view = seat_json(seat)
        assert view["note"] == STATUS.get(view["status"])
        for dealt_in, ended, all_in in [(a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)]:
            drawn = first_paint.seat_marks(view, bool(dealt_in and not ended), bool(all_in))
            old = old_marks(view, bool(dealt_in), bool(ended), bool(all_in))
            assert " · ".join(drawn) == " · ".join(old), view


def test_card_names_read_as_the_client_said_them() -> None:
    assert labels.card_name("As") == "Ace of spades"
    assert labels.card_name("Th", "win") == "10 of hearts, winning card"
    assert labels.card_name("2d", "win-low") == "2 of diamonds, winning low card"
    assert labels.card_name("Qc", "used") == "Queen of clubs, in your best hand"
    assert labels.card_name("9s", "nothing") == "9 of spades"
    assert '<span class="rank">10</span><span class="pip">♥</span>' in first_paint.card("Th", "md")


def _message(sent: dict[str, Any] | str) -> dict[str, Any]:
    """A message as the connection would send it (the snapshot is queued unserialised)."""
    message: dict[str, Any] = (
        json.loads(sent) if isinstance(sent, str) else json.loads(json.dumps(sent))
    )
    return message


async def test_the_snapshot_records_and_first_paint_carry_the_labels() -> None:
    store = MemoryTableStore()
    config = TableConfig(betting=Betting.NO_LIMIT, seats=10, ante=1, decision_time=0)
    table_id = await store.create_table("host", config, "code")
    stored = await store.load_table(table_id)
    stored.seats = seats_of_every_status()[:10]
    table = Table(stored, store, Runtime(between_hands=3600, clock_enabled=False))
    task = asyncio.create_task(table.run())
    try:
        viewer = Viewer(None, limit=10_000)
        await table.request("attach", None, viewer=viewer)
        snapshot = _message(viewer.take()[0])
        assert snapshot["table"]["labels"] == {"game": "NL Omaha", "stakes": "1/2 ante 1"}
        for seat, view in zip(table.seats, snapshot["seats"], strict=True):
            assert seat is not None and view == seat_json(seat)
            assert {"mark", "mark_in_hand", "note"} <= view.keys()
        page = first_paint.draw(snapshot)
        assert "NL Omaha · 1/2 ante 1" in page
        for view in snapshot["seats"]:
            if view["mark"]:
                assert f'<span class="marks">{view["mark"]}</span>' in page
        # A seat's change and a change of stakes come with their labels.
        await table.request("set_stakes", "host", small_blind=2, big_blind=4)
        await table.request("sit_out", "p0")
        records = [_message(m) for m in viewer.take()]
        tables = [r for r in records if r["type"] == "table"]
        assert tables and tables[-1]["labels"]["stakes"] == "2/4 ante 1"
        seats = [r for r in records if r["type"] == "seat" and r["seat"] == 0]
        assert seats and seats[-1]["note"] == "Sitting out"
        assert seats[-1]["mark"] in ("Sitting out", "Away · Sitting out")  # (nobody connected)
        now = table.seats[0]
        assert now is not None and seats[-1] == {"type": "seat", "seq": seats[-1]["seq"],
                                                 **seat_json(now)}  # fmt: skip
    finally:
        table.shutdown()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


def _code(path: Path) -> str:
    """A module's code without its comments (which may quote what the code does not)."""
    mark = "#" if path.suffix == ".py" else "//"
    text = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)
    return "\n".join(re.sub(rf"(^|\s){mark}\s.*$", "", line) for line in text.splitlines())


def _client_code() -> str:
    return "\n".join(_code(path) for path in CLIENT)


def test_every_label_the_client_reads_is_sent() -> None:
    """Each label field the client's code reads is in what the server sends: a seat's, a
    table's, and the words of `js/words.js` (as made by the server)."""
    code = _client_code()
    seat = seat_json(Seat(0, "p", "P", 10))
    for field in set(re.findall(r"\bseat\.(mark_in_hand|mark|note)\b", code)):
        assert field in seat
    read = set(re.findall(r"\b(?:table|rec)\.labels\.(\w+)", code))
    assert read == {"game", "stakes"}
    assert {"game", "stakes"} <= set(labels.table_labels(TableConfig()))
    words = labels.client_words()
    module = generated()["js/words.js"].decode()
    assert json.loads(module.split("export const WORDS = ", 1)[1].rstrip().rstrip(";")) == words
    used = re.findall(r"\bWORDS\.(\w+)(?:\.(\w+))?", code)
    assert used
    for top, key in used:
        assert top in words, top
        if key and not isinstance(words[top].get(key), type(None)):
            assert key in words[top], (top, key)
    for top, names in re.findall(r"const \{([\w, ]+)\} = WORDS\.(\w+)", code):
        for name in (n.strip() for n in top.split(",")):
            assert name in words[names], (names, name)


def _wording() -> set[str]:
    games = {g.name for g in GAMES.values()} | {g.short for g in GAMES.values() if g.short}
    words = {*labels.STATUS_MARKS.values(), *labels.STATUS_NOTES.values(), labels.AWAY,
             labels.ALL_IN, *labels.NOTES.values(), *labels.BETTING_NAMES.values(),
             *labels.RANK_NAMES.values(), *(s["name"] for s in labels.SUITS.values()),
             *labels.CARD_MARKS.values(), labels.DOUBLE_BOARD, *games}  # fmt: skip
    return {w for w in words if len(w) > 3}  # ("Ace", "10"... are too short to tell)


#: the same words meaning something else: the all-in bet button and its amount, the group of
#: the sit-out switches
#: words a page uses with another meaning than a seat's (a filter of My hands: hands that
#: went all in)
OTHER_MEANINGS = {"actions.js": {"All in", "Sitting out"}, "my-hands.js": {"All in"}}


@pytest.mark.parametrize("path", [*CLIENT, ROOT / "app" / "api" / "first_paint.py"],
                         ids=lambda p: p.name)  # fmt: skip
def test_no_renderer_keeps_a_copy_of_the_wording(path: Path) -> None:
    literals = re.findall(r"""'([^'\n]*)'|"([^"\n]*)"|`([^`\n]*)`""", _code(path))
    quoted = {part.strip(" ·") for groups in literals for part in groups if part}
    copies = (_wording() & quoted) - OTHER_MEANINGS.get(path.name, set())
    assert not copies, f"{path.name} spells out {sorted(copies)}: draw the server's labels"
