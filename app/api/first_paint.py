"""The table drawn into its page by the server, so the first paint shows it.

A table page that carries the viewer's snapshot (app/api/table_page.py) also carries the table
drawn from that snapshot as plain HTML inside `#app`: the topbar, the felt (seats, bets, boards,
pot) and the viewer's own cards. The browser paints it as soon as the style sheet has arrived,
before any module has loaded; the client's first render (static/js/main.js) replaces it with
the live view, which looks the same. Until then nothing on it responds: it is a picture.

It is drawn from the same redacted snapshot the page carries (the viewer's own hole cards,
nobody else's), every string a person chose escaped as text, with the snapshot's labels and
the words of `app.tables.labels` (the client's `js/words.js` is made from them): no wording
of its own for a game, stakes, a mark, a note or a card. It mirrors the markup and class
names of static/js/views/table.js for what it draws (seats are placed by the style sheet from
`data-k`, as the view places them); tests/e2e/test_first_paint.py renders both and compares
them, so a change to one that the other does not follow fails there.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

from app.poker import GAMES
from app.tables import labels


def _t(text: object) -> str:
    """Text, never markup."""
    return escape(str(text), quote=True)


def card(value: str, size: str, mark: str = "") -> str:
    rank, suit = value[0], value[1]
    face = labels.RANK_FACES.get(rank, rank)
    symbol = labels.SUITS[suit]["symbol"] if suit in labels.SUITS else ""
    return (
        f'<span class="card {size} suit-{_t(suit)} {mark}" data-card="{_t(value)}" role="img"'
        f' aria-label="{_t(labels.card_name(value, mark))}"><span class="rank">{_t(face)}</span>'
        f'<span class="pip">{symbol}</span></span>'
    )


def seat_marks(seat: dict[str, Any], in_hand: bool, all_in: bool) -> list[str]:
    """A seat's marks: its own (`mark`, or `mark_in_hand` while it plays the running hand),
    then all in (static/js/format.js, seatMarks)."""
    own = seat.get("mark_in_hand") if in_hand else seat.get("mark")
    return [m for m in (own, labels.ALL_IN if all_in else None) if m]


def _slot(size: str) -> str:
    return f'<span class="card slot {size}" aria-hidden="true"></span>'


def _back(size: str) -> str:
    return f'<span class="card back {size}" aria-hidden="true"></span>'


class _Table:
    """The snapshot as the client's state holds it right after `fromSnapshot`."""

    def __init__(self, snapshot: dict[str, Any]) -> None:
        self.s = snapshot
        self.config: dict[str, Any] = snapshot["table"]["config"]
        self.labels: dict[str, str] = snapshot["table"]["labels"]
        self.seats: list[dict[str, Any] | None] = snapshot["seats"]
        self.you: int | None = snapshot["you"]["seat"]
        request = snapshot["you"].get("request")  # the viewer's seat request waiting
        self.asked: int | None = int(request["seat"]) if request else None
        self.hand: dict[str, Any] | None = snapshot.get("hand")
        hand = self.hand
        self.players = {p["seat"]: p for p in hand["players"]} if hand else {}
        self.ended = bool(hand and hand["phase"] == "complete")

    def place(self, seat: int) -> int:
        n = len(self.seats)
        return (seat - (self.you or 0) + n) % n

    def reader_cards(self, run: int, board: int) -> set[str]:
        reader = (self.hand or {}).get("reader") or []
        for entry in reader:
            if entry["run"] == run and entry["board"] == board:
                return set(entry["high"]["cards"])
        return set()


def draw(snapshot: dict[str, Any]) -> str:
    """The table page's markup for `snapshot` (what `tableView` draws first, less what needs
    the page's code: the action buttons, dialogs, chat lines, host panel, last hands)."""
    t = _Table(snapshot)
    hand = t.hand
    return (
        # inert: a picture of the table until the live view replaces it (nothing in it works)
        f'<div class="page table-page seats-{int(t.config["seats"])}" data-first-paint="1" inert'
        f' data-hand="{_t(hand["id"]) if hand else ""}"'
        f' data-phase="{_t(hand["phase"]) if hand else ""}">'
        f"{_topbar(t)}"
        '<div class="table-body"><div class="table-main">'
        '<main class="felt-wrap"><div class="felt-box">'
        f'<div class="{"felt tall" if _tall(t) else "felt"}">'
        '<div class="rail"></div>'
        + "".join(_seat(t, i, seat) for i, seat in enumerate(t.seats))
        + "".join(_bet(t, p) for p in t.players.values())
        + '<div class="center">'
        + ('<span class="badge bomb">Bomb pot</span>' if hand and hand.get("bomb_pot") else "")
        + _boards(t)
        + _pot(t)
        + "</div></div></div></main>"
        + f'<section class="dock">{_my_hand(t)}</section></div>'
        # its last element, timed when painted (Element Timing): the whole drawing is on screen
        + '<section class="chat" aria-label="Chat"><h2 elementtiming="first-paint">Chat</h2>'
        '<ol class="chat-log"></ol></section></div></div>'
    )


def _topbar(t: _Table) -> str:
    hand = t.hand
    number = f' · <span class="hand-no">Hand #{int(hand["number"])}</span>' if hand else ""
    paused = ' · <span class="paused">paused</span>' if t.s["table"].get("paused") else ""
    seated = t.you is not None and not t.config.get("tournament")
    seat = t.seats[t.you] if t.you is not None else None
    items = ["Invite"]
    if seated:
        sit = "Sit in" if seat and seat["status"] == "sitting_out" else "Sit out"
        items += ["Top up", sit, "Leave"]
    items += ["Ledger", "Log", "My hands", "⚙ Settings"]
    buttons = "".join(f'<button type="button" class="btn ghost">{x}</button>' for x in items)
    return (
        '<header class="topbar">'
        '<button type="button" class="btn small sr-toggle" aria-pressed="false">'
        "Screen reader mode</button>"
        '<a class="home-link" href="/" aria-label="Home">♠</a>'
        f'<div class="title"><strong class="table-name">{_t(t.config["name"])}</strong>'
        f'<span class="sub">{_t(t.labels["game"])} · {_t(t.labels["stakes"])}{number}'
        f"{paused}</span></div>"
        '<nav class="menu"><button type="button" class="btn ghost icon menu-toggle"'
        ' aria-label="Menu" aria-expanded="false">☰</button>'
        f'<div class="menu-items">{buttons}</div></nav></header>'
    )


def _seat(t: _Table, i: int, seat: dict[str, Any] | None) -> str:
    k = t.place(i)
    if seat is None:
        inner = (
            f'<span class="open asked" data-asked="{i}">{labels.NOTICES["request_seat"]}</span>'
            if t.asked == i
            else f'<button type="button" class="sit-btn" aria-label="Sit in seat {i + 1}">'
            "Sit here</button>"
            # the director seats a tournament's players; one request at a time
            if t.you is None and t.asked is None and not t.config.get("tournament")
            else '<span class="open">Open</span>'
        )
        return f'<div class="seat empty" data-seat="{i}" data-k="{k}">{inner}</div>'
    hand = t.hand
    p = t.players.get(i)
    dealt_in = p is not None
    acting = bool(hand and not t.ended and hand.get("actor") == i)
    mine = i == t.you
    classes = " ".join(
        c
        for c in (
            "seat",
            "mine" if mine else "",
            "acting" if acting else "",
            "folded" if p and p["folded"] else "",
            "away" if seat.get("away") else "",
        )
        if c
    )
    all_in = bool(p and p["all_in"] and not p["folded"] and not t.ended)
    marks = seat_marks(seat, dealt_in and not t.ended, all_in)
    stack = p["stack"] if p and not t.ended else seat["stack"]
    hole = _others(t, p) if p and not mine else ""
    clock = ""
    if acting and hand and hand.get("timeout") is not None:
        left = max(0, math.ceil(hand["timeout"]))
        clock = f'<span class="clock">{left}s</span>'
        if hand.get("clock_stopped"):  # the host's pause: what is left, not counting down
            mark = '<span class="pause-mark" aria-hidden="true"></span>'
            clock = f'<span class="clock stopped" data-clock-stopped="{left}">{mark}{left}s</span>'
    marks_html = f'<span class="marks">{_t(" · ".join(marks))}</span>' if marks else ""
    dealer = (
        '<span class="dealer" title="Button" aria-hidden="true">D</span>'
        if hand and hand["button"] == i
        else ""
    )
    return (
        f'<div class="{classes}" data-seat="{i}" data-player="{_t(seat["player_id"])}"'
        f' data-k="{k}" role="group" aria-label="{_t(seat["name"])}">'
        f'<div class="hole">{hole}</div>'
        f'<div class="plate"><span class="name">{_t(seat["name"])}</span>'
        f'<span class="stack">{int(stack)}</span>{clock}</div>'
        f"{marks_html}{dealer}</div>"
    )


def _others(t: _Table, p: dict[str, Any]) -> str:
    if p["folded"] or p["mucked"]:
        return ""
    if p.get("cards"):
        return '<div class="cards shown">' + "".join(card(c, "sm") for c in p["cards"]) + "</div>"
    spec = GAMES.get(t.config["game"])
    n = spec.hole_cards if spec is not None else 4
    return '<div class="cards backs">' + _back("xs") * n + "</div>"


def _bet(t: _Table, p: dict[str, Any]) -> str:
    if not p["bet"]:
        return ""
    return (
        f'<div class="bet" data-bet-seat="{int(p["seat"])}" data-k="{t.place(p["seat"])}">'
        f'<span class="chip"></span>{int(p["bet"])}</div>'
    )


def _tall(t: _Table) -> bool:
    # two boards or two runs: the bets further apart (static/js/views/table.js, `tall`)
    boards = t.hand["boards"] if t.hand else [[[] for _ in range(t.config.get("boards", 1))]]
    return len(boards) > 1 or len(boards[0]) > 1


def _boards(t: _Table) -> str:
    hand = t.hand
    boards: list[list[list[str]]] = (
        hand["boards"] if hand else [[[] for _ in range(t.config.get("boards", 1))]]
    )
    many = len(boards) > 1 or len(boards[0]) > 1
    out = [f'<div class="boards runs-{len(boards)} boards-{len(boards[0])}">']
    for r, run in enumerate(boards):
        for b, board in enumerate(run):
            where = f"Run {r + 1}, " if len(boards) > 1 else ""
            label = where + (f"board {b + 1}" if len(run) > 1 else "board")
            out.append(
                f'<div class="board" data-run="{r}" data-board="{b}" role="group"'
                f' aria-label="{label[0].upper() + label[1:]}">'
            )
            if many:
                text = (
                    (f"Run {r + 1}" if len(boards) > 1 else "")
                    + (" · " if len(boards) > 1 and len(run) > 1 else "")
                    + (f"Board {b + 1}" if len(run) > 1 else "")
                )
                out.append(f'<span class="board-label">{text}</span>')
            used = t.reader_cards(r, b)
            out.append(
                '<div class="cards">'
                + "".join(
                    card(board[k], "md", "used" if board[k] in used else "")
                    if k < len(board)
                    else _slot("md")
                    for k in range(5)
                )
                + "</div></div>"
            )
    out.append("</div>")
    return "".join(out)


def _pot(t: _Table) -> str:
    hand = t.hand
    if hand is None:
        return '<div class="pot idle">Waiting for players</div>'
    if t.ended:
        return ""
    pots = [p for p in hand["pots"] if p["amount"] > 0]
    total = sum(p["amount"] for p in hand["pots"]) + sum(p["bet"] for p in hand["players"])
    side = ""
    if len(pots) > 1:
        side = (
            '<span class="side-pots">'
            + "".join(
                f"<span>{'Main' if i == 0 else f'Side {i}'} {int(p['amount'])}</span>"
                for i, p in enumerate(pots)
            )
            + "</span>"
        )
    return (
        f'<div class="pot"><span class="pot-total" data-pot="{total}">Pot {total}</span>'
        f"{side}</div>"
    )


def _my_hand(t: _Table) -> str:
    if t.you is None and t.asked is not None:
        return ""  # the live view's dock says the request waits (views/notices.js)
    if t.you is None:
        if t.config.get("tournament"):
            full = "A tournament table: its players are seated by the tournament."
        else:
            full = "Pick an open seat to play." if None in t.seats else "The table is full."
        return f'<div class="my-hand spectator"><p>You are watching. {full}</p></div>'
    hand = t.hand
    p = t.players.get(t.you)
    if p is None or not p.get("cards"):
        seat = t.seats[t.you]
        if p is not None and p["folded"]:
            note = labels.NOTES["folded"]
        elif seat is not None and seat.get("note"):
            note = seat["note"]
        elif hand is not None and not t.ended:
            note = labels.NOTES["not_in_hand"]
        else:
            note = labels.NOTES["next_hand"]
        return f'<div class="my-hand empty"><p class="note">{_t(note)}</p></div>'
    if p.get("mucked"):  # still the owner's to see, dimmed and said (views/table.js)
        mucked = "".join(card(c, "lg") for c in p["cards"])
        return (
            '<div class="my-hand mucked" data-mucked="1"><div class="cards mine" data-mine="1"'
            f' role="group" aria-label="Your cards, mucked">{mucked}</div>'
            f'<p class="note">{_t(labels.NOTES["mucked"])}</p></div>'
        )
    reader = (hand or {}).get("reader") if not t.ended else None
    used = set(reader[0]["high"]["hole_used"]) if reader else set()
    cards = "".join(card(c, "lg", "used" if c in used else "") for c in p["cards"])
    readings = ""
    if reader:
        many = len(reader) > 1
        lines = []
        for r in reader:
            where = ""
            if many:
                runs, boards = len(hand["boards"]), len(hand["boards"][0])  # type: ignore[index]
                text = (f"Run {r['run'] + 1} " if runs > 1 else "") + (
                    f"Board {r['board'] + 1}" if boards > 1 else ""
                )
                where = f'<span class="where">{text}</span>'
            low = ""
            if "low" in r:
                low = f'<span class="low">{_t(r["low"]["name"] if r["low"] else "No low")}</span>'
            lines.append(
                f'<div class="reading" data-run="{int(r["run"])}" data-board="{int(r["board"])}">'
                f'{where}<span class="high" data-hand="{_t(r["high"]["name"])}">'
                f"{_t(r['high']['name'])}</span>{low}</div>"
            )
        readings = f'<div class="reader">{"".join(lines)}</div>'
    return (
        '<div class="my-hand"><div class="cards mine" data-mine="1" role="group"'
        f' aria-label="Your cards">{cards}</div>{readings}</div>'
    )
