"""PokerStars-style text of a hand, from the viewer's seat: the layout hand trackers read.

A pure function of the redacted record (`app.history.record.build`): it can only write the
cards that record holds. What PokerStars cannot say (straddles, bomb pots, two boards, run-
it-twice votes, mucked hands' cards, which we never know) is written as closely as the
format allows; docs/hand-history.md lists each case.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Final
from zoneinfo import ZoneInfo

_GAME_LABELS: Final = {
    "omaha": "Omaha",
    "omaha-hi-lo": "Omaha Hi/Lo",
    "five-card-omaha": "5 Card Omaha",
    "big-o": "5 Card Omaha Hi/Lo",
    "six-card-omaha": "6 Card Omaha",
    "six-card-omaha-hi-lo": "6 Card Omaha Hi/Lo",
    "courchevel": "Courchevel",
    "courchevel-hi-lo": "Courchevel Hi/Lo",
}
_BETTING_LABELS: Final = {"pot-limit": "Pot Limit", "no-limit": "No Limit", "fixed-limit": "Limit"}
_ORDINALS: Final = ("FIRST", "SECOND", "THIRD", "FOURTH")
_STREET_NAMES: Final = {"preflop": "PRE-FLOP", "flop": "FLOP", "turn": "TURN", "river": "RIVER"}
_EASTERN: Final = ZoneInfo("America/New_York")
_RANKS: Final = {
    "2": ("Deuce", "Deuces"),
    "3": ("Three", "Threes"),
    "4": ("Four", "Fours"),
    "5": ("Five", "Fives"),
    "6": ("Six", "Sixes"),
    "7": ("Seven", "Sevens"),
    "8": ("Eight", "Eights"),
    "9": ("Nine", "Nines"),
    "T": ("Ten", "Tens"),
    "J": ("Jack", "Jacks"),
    "Q": ("Queen", "Queens"),
    "K": ("King", "Kings"),
    "A": ("Ace", "Aces"),
}


def game_label(record: dict[str, Any]) -> str:
    return f"{_GAME_LABELS[record['game']]} {_BETTING_LABELS[record['betting']]}"


def _name(text: str) -> str:
    """A name on one line (the format is line-based)."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split()) or "?"


def _cards(cards: Iterable[str]) -> str:
    return "[" + " ".join(cards) + "]"


def _eastern(iso: str) -> str:
    moment = datetime.fromisoformat(iso)
    if moment.tzinfo is None:  # SQLite hands back naive UTC
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(_EASTERN).strftime("%Y/%m/%d %H:%M:%S") + " ET"


def high_phrase(high: dict[str, Any]) -> str:
    """PokerStars' words for a high hand: 'a pair of Sevens', 'a flush, Ace high'."""
    ranks = [c[0] for c in high["cards"]]
    one = [_RANKS[r][0] for r in ranks]
    many = [_RANKS[r][1] for r in ranks]
    category = high["category"]
    if category == "straight flush":
        if ranks[0] == "A":
            return "a Royal Flush"
        return f"a straight flush, {one[4]} to {one[0]}"
    if category == "four of a kind":
        return f"four of a kind, {many[0]}"
    if category == "full house":
        return f"a full house, {many[0]} full of {many[3]}"
    if category == "flush":
        return f"a flush, {one[0]} high"
    if category == "straight":
        return f"a straight, {one[4]} to {one[0]}"
    if category == "three of a kind":
        return f"three of a kind, {many[0]}"
    if category == "two pair":
        return f"two pair, {many[0]} and {many[2]}"
    if category == "pair":
        return f"a pair of {many[0]}"
    return f"high card {one[0]}"


def low_phrase(low: dict[str, Any]) -> str:
    """'6,5,4,2,A': the low's ranks from the highest down."""
    return ",".join(c[0] for c in low["cards"])


def hand_phrase(hands: list[dict[str, Any]], run: int, board: int, hi_lo: bool) -> str:
    for entry in hands:
        if entry["run"] == run and entry["board"] == board:
            high = high_phrase(entry["high"])
            if not hi_lo:
                return high
            if entry["low"] is None:
                return f"HI: {high}"
            return f"HI: {high}; LO: {low_phrase(entry['low'])}"
    return ""


def _pot_name(pot: int, pots: int) -> str:
    if pots == 1:
        return "pot"
    return "main pot" if pot == 0 else f"side pot-{pot}"


def _section(ordinal: int | None, title: str) -> str:
    if ordinal is None:
        return f"*** {title} ***"
    return f"*** {_ORDINALS[ordinal]} {title} ***"


def _forced_bets(record: dict[str, Any], name: dict[int, str]) -> list[str]:
    """The posts in PokerStars' order and words: antes first (the big-blind ante too:
    PokerStars writes the big blind's `posts the ante N`), then the blinds, the straddle,
    and the posts of players coming in (a dead small blind with a live big blind is
    `posts small & big blinds N`, the sum, as PokerStars writes a returning player's)."""
    seats = {s["seat"]: s for s in record["seats"]}
    straddler = record["straddle"]
    forced = [st for st in record["steps"] if st["type"] == "forced_bet"]
    posted = {st["seat"] for st in forced if st["kind"] == "post"}
    dead = {st["seat"]: st for st in forced if st["kind"] == "dead"}
    out: list[tuple[int, str]] = []
    for st in forced:
        seat, kind, amount, all_in = st["seat"], st["kind"], st["amount"], st["all_in"]
        roles = seats[seat]["roles"]
        if kind == "ante" or (kind == "dead" and "big blind" in roles):
            order, text = 0, f"posts the ante {amount}"
        elif kind == "dead":
            if seat in posted:
                continue  # with the live big blind below
            order, text = 4, f"posts small blind {amount}"  # trackers: a second, dead one
        elif seat == straddler:
            order, text = 3, f"posts straddle {amount}"
        elif kind == "post":
            if seat in dead:
                amount += dead[seat]["amount"]
                all_in = all_in or dead[seat]["all_in"]
                order, text = 4, f"posts small & big blinds {amount}"
            else:
                order, text = 4, f"posts big blind {amount}"
        elif "big blind" in roles:
            order, text = 2, f"posts big blind {amount}"
        else:
            order, text = 1, f"posts small blind {amount}"
        out.append((order, f"{name[seat]}: {text}" + (" and is all-in" if all_in else "")))
    out.sort(key=lambda pair: pair[0])  # stable: seat order within each kind
    return [text for _, text in out]


def export_hand(record: dict[str, Any]) -> str:
    """The hand in PokerStars' layout (lines ending in newlines)."""
    seats = {s["seat"]: s for s in record["seats"]}
    name = {n: _name(s["name"]) for n, s in seats.items()}
    stakes = record["stakes"]
    nboards = record["boards_per_run"]
    if record["betting"] == "fixed-limit":
        blinds = f"{stakes['big_blind']}/{stakes['big_bet']}"
    else:
        blinds = f"{stakes['small_blind']}/{stakes['big_blind']}"
    when = _eastern(record["started_at"])
    table = _name(record["table"]["name"]).replace("'", "`")
    # Two boards: PokerStars' "Split" games (Split Hold'em), which trackers read board by board.
    prefix = "Split " if nboards > 1 else ""
    lines = [
        f"PokerStars Hand #{record['number']}:  {prefix}{game_label(record)} ({blinds}) - {when}",
        f"Table '{table}' {record['table']['seats']}-max Seat #{record['button'] + 1} "
        "is the button",
    ]
    by_seat = sorted(record["seats"], key=lambda s: s["seat"])
    for s in by_seat:
        lines.append(f"Seat {s['seat'] + 1}: {name[s['seat']]} ({s['stack']} in chips)")
    steps = record["steps"]
    lines.extend(_forced_bets(record, name))
    max_bet = max(
        (st["amount"] for st in record["steps"]
         if st["type"] == "forced_bet" and st["kind"] in ("blind", "post")),
        default=0,
    )  # fmt: skip
    lines.append("*** HOLE CARDS ***")
    viewer = record["viewer"]["seat"]
    if viewer is not None and seats[viewer]["cards"]:
        lines.append(f"Dealt to {name[viewer]} {_cards(seats[viewer]['cards'])}")
    current: dict[tuple[int, int], list[str]] = {}
    split = False  # the runs are decided: later streets are each run's own
    shared: dict[int, list[str]] = {}
    contested = sum(1 for s in record["seats"] if not s["folded"]) > 1
    for st in steps:
        kind = st["type"]
        if kind == "board":
            run, b = st["run"], st["board"]
            if (run, b) not in current:
                current[(run, b)] = list(shared.get(b, [])) if run else []
            before = current[(run, b)]
            after = before + st["cards"]
            current[(run, b)] = after
            ordinal: int | None = None
            if split and record["runs"] == 2:
                ordinal = run * nboards + b if nboards > 1 else run
            elif nboards > 1:
                ordinal = b
            title = _STREET_NAMES[st["street"]]
            if st["street"] in ("preflop", "flop"):
                lines.append(f"{_section(ordinal, title)} {_cards(after)}")
            else:
                lines.append(f"{_section(ordinal, title)} {_cards(before)} {_cards(st['cards'])}")
        elif kind == "round":
            if st["street"] != "preflop":
                max_bet = 0
        elif kind == "runs":
            if st["runs"] == 2:
                split = True
                shared = {b: list(current.get((0, b), [])) for b in range(nboards)}
        elif kind == "acted":
            who, action = name[st["seat"]], st["action"]
            tail = " and is all-in" if st["all_in"] else ""
            if action == "fold":
                lines.append(f"{who}: folds")
            elif action == "check":
                lines.append(f"{who}: checks")
            elif action == "call":
                lines.append(f"{who}: calls {st['amount']}{tail}")
            elif action == "bet":
                lines.append(f"{who}: bets {st['amount']}{tail}")
                max_bet = st["bet"]
            elif action == "raise":
                lines.append(f"{who}: raises {st['bet'] - max_bet} to {st['bet']}{tail}")
                max_bet = st["bet"]
        elif kind == "bet_returned":
            lines.append(f"Uncalled bet ({st['amount']}) returned to {name[st['seat']]}")
    lines.extend(_results(record, name, contested))
    lines.append("*** SUMMARY ***")
    total = record["total_pot"]
    if len(record["pots"]) > 1:
        parts = " ".join(
            ("Main pot" if p["pot"] == 0 else f"Side pot-{p['pot']}") + f" {p['amount']}."
            for p in record["pots"]
        )
        lines.append(f"Total pot {total} {parts} | Rake 0")
    else:
        lines.append(f"Total pot {total} | Rake 0")
    boards = record["boards"]
    if record["runs"] == 2:
        lines.append("Hand was run twice")
    flat = [board for run in boards for board in run]
    if len(flat) == 1:
        if flat[0]:
            lines.append(f"Board {_cards(flat[0])}")
    else:
        for i, board in enumerate(flat):
            if board:
                lines.append(f"{_ORDINALS[i]} Board {_cards(board)}")
    sections = _sections(record) if contested else [(0, 0)]
    for s in by_seat:
        lines.append(_summary_seat(record, s, name[s["seat"]], sections))
    lines.append(title_comment(record["table"]["name"], record["hand_at_table"]))
    lines.extend(after_comments(record.get("after", ()), name))
    return "\n".join(lines) + "\n"


def title_comment(table: str, at_table: int) -> str:
    """The hand as players name it, by its table and its number there (`#N` of the header is
    the server's): a comment line, which trackers skip, after the summary. Not in the table
    name, which trackers keep per table: one name per hand would make each hand a table."""
    return f"# {_name(table)}, hand {at_table}"


def after_comments(after: Iterable[dict[str, Any]], name: dict[int, str]) -> list[str]:
    """What was asked for once the hand was over, as comment lines (no format has a line for
    them; trackers skip a line they do not know): the rabbit hunt's boards, never played, and
    the cards a player chose to show (after a pot nobody called, or at the showdown instead
    of mucking: the rest of that hand stays hidden, it "mucks hand")."""
    lines = []
    for note in after:
        if note["kind"] == "rabbit":
            boards = " ".join(_cards(b) for b in note["boards"] if b)
            lines.append(f"# Rabbit hunt (not played): {boards}")
        elif note["kind"] == "show":
            who = name.get(note["seat"], f"Seat {note['seat'] + 1}")
            when = "at the showdown" if note.get("showdown") else "after the hand"
            lines.append(f"# {who} showed {when}: {_cards(note['cards'])}")
    return lines


def _sections(record: dict[str, Any]) -> list[tuple[int, int]]:
    """Each showdown's (run, board): one per board of each run."""
    return [(run, b) for run in range(record["runs"]) for b in range(record["boards_per_run"])]


def _results(record: dict[str, Any], name: dict[int, str], contested: bool) -> list[str]:
    """The showdowns and who collected what. A hand nobody contested: the collection, then
    the winner's show if they showed (PokerStars writes it there, before the summary)."""
    seats = {s["seat"]: s for s in record["seats"]}
    steps = record["steps"]
    npots = len(record["pots"])
    awards = [st for st in steps if st["type"] == "award"]
    shown = [st["seat"] for st in steps if st["type"] == "shown"]
    mucked = [st["seat"] for st in steps if st["type"] == "mucked"]
    lines: list[str] = []
    if not contested:
        for st in awards:
            lines.append(
                f"{name[st['seat']]} collected {st['amount']} from {_pot_name(st['pot'], npots)}"
            )
        for seat in shown:
            phrase = hand_phrase(seats[seat]["hands"], 0, 0, record["hi_lo"])
            tail = f" ({phrase})" if phrase else ""
            lines.append(f"{name[seat]}: shows {_cards(seats[seat]['cards'])}{tail}")
        return lines
    sections = _sections(record)
    for i, (run, b) in enumerate(sections):
        ordinal = i if len(sections) > 1 else None
        lines.append(_section(ordinal, "SHOW DOWN"))
        for seat in shown:
            phrase = hand_phrase(seats[seat]["hands"], run, b, record["hi_lo"])
            lines.append(f"{name[seat]}: shows {_cards(seats[seat]['cards'])} ({phrase})")
        if i == 0:
            lines.extend(f"{name[seat]}: mucks hand" for seat in mucked)
        for st in awards:
            if (st["run"], st["board"]) == (run, b):
                pot = _pot_name(st["pot"], npots)
                lines.append(f"{name[st['seat']]} collected {st['amount']} from {pot}")
    return lines


def _summary_seat(
    record: dict[str, Any], s: dict[str, Any], who: str, sections: list[tuple[int, int]]
) -> str:
    """One seat's summary line: one total per player, as trackers read everyone's winnings;
    with several showdowns (two boards, two runs), what the hand did on each, as PokerStars
    writes it (`showed [..] and won (30) with .., and lost with ..`)."""
    roles = [r for r in s["roles"] if r in ("button", "small blind", "big blind")]
    head = f"Seat {s['seat'] + 1}: {who}" + "".join(f" ({r})" for r in roles)
    if s["folded"]:
        street = s["folded_on"] or "preflop"
        if street == "preflop":
            quiet = s["net"] == 0  # nothing posted, nothing put in
            return f"{head} folded before Flop" + (" (didn't bet)" if quiet else "")
        return f"{head} folded on the {street.capitalize()}"
    if s["mucked"] and not s["won"]:
        return f"{head} mucked"
    if not (s["shown"] and s["cards"]):
        return f"{head} collected ({s['won']})"
    showed = f"{head} showed {_cards(s['cards'])} and "
    parts = []
    for run, b in sections:
        phrase = hand_phrase(s["hands"], run, b, record["hi_lo"])
        won = sum(
            st["amount"]
            for st in record["steps"]
            if st["type"] == "award"
            and st["seat"] == s["seat"]
            and (st["run"], st["board"]) == (run, b)
        )
        if len(sections) == 1:
            won = s["won"]
        with_phrase = f" with {phrase}" if phrase else ""
        parts.append(f"won ({won}){with_phrase}" if won else f"lost{with_phrase}")
    return showed + ", and ".join(parts)


def export_session(records: Iterable[dict[str, Any]]) -> str:
    """Several hands, oldest first, separated by blank lines as PokerStars writes them."""
    return "\n\n".join(export_hand(r) for r in records)
