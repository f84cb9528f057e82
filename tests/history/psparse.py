"""A small reader of PokerStars hand histories, written for the tests from the layout (not
from our exporter): it reads every chip movement and checks that the books balance."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

LABEL = re.compile(
    r"(?:Split )?(Omaha|Omaha Hi/Lo|5 Card Omaha|5 Card Omaha Hi/Lo|6 Card Omaha|"
    r"6 Card Omaha Hi/Lo|Courchevel|Courchevel Hi/Lo) (Pot Limit|No Limit|Limit)"
)
HEADER = re.compile(r"PokerStars Hand #(\d+):  (.+?) \((.+?)\) - (.+)")
TABLE = re.compile(r"Table '(.+)' (\d+)-max Seat #(\d+) is the button")
SEAT = re.compile(r"Seat (\d+): (.+?) \((\$?[\d.]+) in chips\)( is sitting out)?")
POST = re.compile(
    r"(.+?): posts (small blind|big blind|the ante|straddle|small & big blinds|dead blind) "
    r"(\$?[\d.]+)( and is all-in)?"
)
STREET = re.compile(
    r"\*\*\* (?:(FIRST|SECOND|THIRD|FOURTH) )?(PRE-FLOP|FLOP|TURN|RIVER) \*\*\* (.+)"
)
SECTION = re.compile(
    r"\*\*\* (?:(?:FIRST|SECOND|THIRD|FOURTH) )?(HOLE CARDS|SHOW DOWN|SUMMARY) \*\*\*"
)
ACTION = re.compile(
    r"(.+?): (folds|checks|calls|bets|raises)(?: (\$?[\d.]+))?(?: to (\$?[\d.]+))?( and is all-in)?"
)
DEALT = re.compile(r"Dealt to (.+?) \[(.+)\]")
RETURNED = re.compile(r"Uncalled bet \((\$?[\d.]+)\) returned to (.+)")
COLLECTED = re.compile(r"(.+?) collected (\$?[\d.]+) from (pot|main pot|side pot-\d+)")
SHOWS = re.compile(r"(.+?): shows \[(.+?)\](?: \((.*)\))?")
MUCKS = re.compile(r"(.+?): (mucks hand|doesn't show hand)")
CHATTER = re.compile(
    r".+ (joins the table.*|leaves the table|is sitting out|has timed out|is disconnected|"
    r"is connected|has returned|said, .*)"
)
TOTAL = re.compile(r"Total pot (\$?[\d.]+)(.*)\| Rake (\$?[\d.]+)")
BOARD = re.compile(r"(?:(FIRST|SECOND|THIRD|FOURTH) )?Board \[(.+)\]")
SUMMARY_SEAT = re.compile(r"Seat (\d+): (.+?)((?: \((?:button|small blind|big blind)\))*) (.+)")
WON = re.compile(r"(?:won|collected) \((\$?[\d.]+)\)")
CARD = re.compile(r"[2-9TJQKA][cdhs]")


def amount(text: str) -> Decimal:
    return Decimal(text.lstrip("$"))


@dataclass
class ParsedHand:
    number: int
    label: str
    stakes: str
    table: str
    button: int
    seats: dict[str, tuple[int, Decimal]] = field(default_factory=dict)
    put: dict[str, Decimal] = field(default_factory=dict)
    returned: dict[str, Decimal] = field(default_factory=dict)
    collected: dict[str, Decimal] = field(default_factory=dict)
    summary_won: dict[str, Decimal] = field(default_factory=dict)
    shown: dict[str, list[str]] = field(default_factory=dict)
    dealt: tuple[str, list[str]] | None = None
    boards: list[list[str]] = field(default_factory=list)
    streets: list[str] = field(default_factory=list)
    total_pot: Decimal = Decimal(0)
    rake: Decimal = Decimal(0)
    run_twice: bool = False
    cards: set[str] = field(default_factory=set)  # every card the text names
    split: bool = False  # a "Split" game: two boards
    antes: dict[str, Decimal] = field(default_factory=dict)  # "posts the ante"
    street_boards: dict[str, list[str]] = field(default_factory=dict)  # "" or FIRST.. -> cards
    shown_after: list[str] = field(default_factory=list)  # shows after the collection
    comments: list[str] = field(default_factory=list)  # "# text" lines after the summary's

    def final_stacks(self) -> dict[str, Decimal]:
        return {
            name: stack
            - self.put.get(name, Decimal(0))
            + self.returned.get(name, Decimal(0))
            + self.collected.get(name, Decimal(0))
            for name, (_, stack) in self.seats.items()
        }

    def check_books(self) -> None:
        """Collected = the pot = what went in; every summary total = what was collected."""
        into = sum(self.put.values(), Decimal(0)) - sum(self.returned.values(), Decimal(0))
        paid = sum(self.collected.values(), Decimal(0))
        assert into == self.total_pot, (self.number, into, self.total_pot)
        assert paid + self.rake == self.total_pot, (self.number, paid, self.total_pot)
        assert self.summary_won == {k: v for k, v in self.collected.items() if v}, self.number


class ParseError(AssertionError):
    pass


def parse_hand(text: str) -> ParsedHand:
    lines = [line for line in text.splitlines() if line.strip()]
    m = HEADER.fullmatch(lines[0])
    if m is None:
        raise ParseError(f"not a hand: {lines[0]!r}")
    label = m.group(2)
    if LABEL.fullmatch(label) is None:
        raise ParseError(f"a game label trackers refuse: {label!r}")
    t = TABLE.fullmatch(lines[1])
    if t is None:
        raise ParseError(f"no table line: {lines[1]!r}")
    hand = ParsedHand(int(m.group(1)), label, m.group(3), t.group(1), int(t.group(3)))
    hand.split = label.startswith("Split ")
    small, big = (amount(x.split()[0]) for x in m.group(3).split("/"))  # "$0.10 USD"
    big_blind = (
        small if label.endswith(" Limit") and not label.endswith(("Pot Limit", "No Limit")) else big
    )
    live_small_blind = False
    collected_yet = False
    street_bet: dict[str, Decimal] = {}
    section = "setup"
    for line in lines[2:]:
        hand.cards.update(
            c for chunk in re.findall(r"\[(.*?)\]", line) for c in CARD.findall(chunk)
        )
        if section == "summary":
            if (s := TOTAL.fullmatch(line)) is not None:
                hand.total_pot, hand.rake = amount(s.group(1)), amount(s.group(3))
            elif line == "Hand was run twice":
                hand.run_twice = True
            elif (b := BOARD.fullmatch(line)) is not None:
                hand.boards.append(b.group(2).split())
            elif (s := SUMMARY_SEAT.fullmatch(line)) is not None:
                if hand.comments:
                    raise ParseError(f"a seat line after a comment: {line!r}")
                won = [amount(w) for w in WON.findall(s.group(4))]  # one per board or run
                if won:
                    hand.summary_won[s.group(2)] = sum(won, Decimal(0))
            elif line.startswith("# "):  # ours, last (no PokerStars line; trackers skip them)
                hand.comments.append(line[2:])
            else:
                raise ParseError(f"unknown summary line {line!r}")
            continue
        if (s := SECTION.fullmatch(line)) is not None:
            section = {"HOLE CARDS": "play", "SHOW DOWN": "showdown", "SUMMARY": "summary"}[
                s.group(1)
            ]
        elif section == "setup" and (s := SEAT.fullmatch(line)) is not None:
            if not s.group(4):
                hand.seats[s.group(2)] = (int(s.group(1)), amount(s.group(3)))
        elif (s := POST.fullmatch(line)) is not None:
            who, kind, value = s.group(1), s.group(2), amount(s.group(3))
            hand.put[who] = hand.put.get(who, Decimal(0)) + value
            live = value  # what counts toward the player's bet of the round
            if kind == "the ante":
                hand.antes[who] = hand.antes.get(who, Decimal(0)) + value
                live = Decimal(0)
            elif kind == "small & big blinds":  # a dead small blind and a live big blind
                live = big_blind
            elif kind == "small blind":
                if live_small_blind:  # a second one is dead (as trackers read it)
                    live = Decimal(0)
                live_small_blind = True
            street_bet[who] = street_bet.get(who, Decimal(0)) + live
        elif (s := STREET.fullmatch(line)) is not None:
            hand.streets.append(((s.group(1) or "") + " " + s.group(2)).strip())
            shown_cards = [c for chunk in re.findall(r"\[(.*?)\]", s.group(3))
                           for c in chunk.split()]  # fmt: skip
            hand.street_boards[s.group(1) or ""] = shown_cards
            if s.group(2) != "PRE-FLOP":
                street_bet = {}
        elif (s := ACTION.fullmatch(line)) is not None:
            who, verb = s.group(1), s.group(2)
            if who not in hand.seats:
                raise ParseError(f"{who!r} acts but has no seat")
            before = street_bet.get(who, Decimal(0))
            if verb in ("calls", "bets"):
                value = amount(s.group(3))
                street_bet[who] = before + value
                hand.put[who] = hand.put.get(who, Decimal(0)) + value
            elif verb == "raises":
                to = amount(s.group(4))
                hand.put[who] = hand.put.get(who, Decimal(0)) + to - before
                street_bet[who] = to
        elif (s := DEALT.fullmatch(line)) is not None:
            hand.dealt = (s.group(1), s.group(2).split())
        elif (s := RETURNED.fullmatch(line)) is not None:
            who = s.group(2)
            hand.returned[who] = hand.returned.get(who, Decimal(0)) + amount(s.group(1))
        elif (s := COLLECTED.fullmatch(line)) is not None:
            who = s.group(1)
            hand.collected[who] = hand.collected.get(who, Decimal(0)) + amount(s.group(2))
            collected_yet = section != "showdown"
        elif (s := SHOWS.fullmatch(line)) is not None:
            hand.shown[s.group(1)] = s.group(2).split()
            if collected_yet:
                hand.shown_after.append(s.group(1))
        elif MUCKS.fullmatch(line) is not None or CHATTER.fullmatch(line) is not None:
            pass
        else:
            raise ParseError(f"unknown line {line!r} in hand #{hand.number}")
    if section != "summary":
        raise ParseError(f"hand #{hand.number} has no summary: a tracker skips it as partial")
    return hand


def parse_session(text: str) -> list[ParsedHand]:
    chunks = re.split(r"\n\s*\n(?=PokerStars Hand #)", text.strip())
    return [parse_hand(chunk) for chunk in chunks]
