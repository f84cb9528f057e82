"""What each viewer may see: engine events and table state turned into per-viewer messages.

This module is the redaction. Its rules:

- a seat's hole cards go to the player in that seat, and to everyone else only once the
  engine has shown them (`CardsShown`: at showdown, or tabled when all in);
- spectators see no hole cards until they are shown;
- folded hands are never sent to anyone, and mucked hands to nobody but their owner (who
  keeps seeing their own, marked mucked, as in review); burns and the deck order never leave
  the server.

Every outbound message starts as a `Record`: a public part every viewer gets and private
parts added for one player only. Every viewer gets every record (so the per-table sequence
has no holes), each rendered for them by `render`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from app.poker import Card, HandState, LegalActions, card_str
from app.poker.evaluation import HandDescription, describe_high, describe_low
from app.poker.events import (
    Acted,
    BetReturned,
    BettingRoundStarted,
    BoardDealt,
    CardsShown,
    Event,
    ForcedBet,
    HandEnded,
    HoleCardsDealt,
    Mucked,
    PotAwarded,
    PotsGathered,
    RunItTwiceOffered,
    RunItTwiceVoted,
    RunsDecided,
)
from app.tables.fairness import hand_fields, opened, openings, table_fields
from app.tables.labels import seat_labels, table_labels
from app.tables.notes import after_fields

if TYPE_CHECKING:
    from app.tables.config import TableConfig
    from app.tables.fairness import ServerSeed
    from app.tables.hand import Hand
    from app.tables.seat import Seat, SeatRequest


class TableLike(Protocol):
    """What a snapshot reads of a table (`app.tables.table.Table`)."""

    @property
    def id(self) -> str: ...
    @property
    def stream(self) -> str: ...
    @property
    def seq(self) -> int: ...
    @property
    def seats(self) -> Sequence[Seat | None]: ...
    @property
    def host_id(self) -> str: ...
    @property
    def config(self) -> TableConfig: ...
    @property
    def next_config(self) -> TableConfig | None: ...
    @property
    def paused(self) -> bool: ...
    @property
    def idle(self) -> bool: ...
    @property
    def closing(self) -> bool: ...
    @property
    def bomb_pot_next(self) -> bool: ...
    @property
    def button(self) -> int | None: ...
    @property
    def hand_number(self) -> int: ...
    @property
    def server_seed(self) -> ServerSeed | None: ...
    @property
    def hand(self) -> Hand | None: ...
    @property
    def chat(self) -> Iterable[dict[str, Any]]: ...
    @property
    def turn_deadline(self) -> float | None: ...
    @property
    def turn_stopped_left(self) -> float | None: ...
    @property
    def turn_bank(self) -> tuple[float, bool] | None: ...
    @property
    def requests(self) -> Mapping[str, SeatRequest]: ...
    def seat_of(self, player_id: str) -> Seat | None: ...
    def now(self) -> float: ...


@dataclass(frozen=True)
class Record:
    """One outbound message before redaction: `public` for all, `private[player_id]` added
    for that player only."""

    public: dict[str, Any]
    private: dict[str, dict[str, Any]] = field(default_factory=dict)


def render(record: Record, player_id: str | None) -> dict[str, Any]:
    extra = record.private.get(player_id) if player_id is not None else None
    if not extra:
        return dict(record.public)
    return {**record.public, **extra}


def cards(values: Iterable[Card]) -> list[str]:
    return [card_str(c) for c in values]


def legal_to_json(legal: LegalActions) -> dict[str, Any]:
    out: dict[str, Any] = {"actions": [str(k) for k in legal.kinds()]}
    if legal.phase == "betting":
        out["call"] = legal.call
        if legal.raise_kind is not None:
            out["min_to"] = legal.min_to
            out["max_to"] = legal.max_to
            out["pot_to"] = legal.pot_to
    return out


def visible_cards(state: HandState, position: int, *, afterwards: bool = False) -> set[Card]:
    """Every card that a seat at `position` may see now (-1: a spectator)."""
    seen: set[Card] = {c for run in state.boards for board in run for c in board}
    for p in range(state.n):
        if may_see_hole(state, p, position, afterwards=afterwards):
            seen.update(state.hole[p])
    return seen


def own_cards_visible(state: HandState, position: int) -> bool:
    """A player's own hand, until it is folded or mucked (then it is sent to nobody)."""
    return not state.folded[position] and not state.mucked[position]


def may_see_hole(
    state: HandState, p: int, position: int | None, *, afterwards: bool = False
) -> bool:
    """The one rule for hole cards: may the viewer at `position` (None or -1: a spectator,
    the host not dealt in included) see the hole cards of position `p`?

    Shown cards (at a showdown, or tabled all in) are everyone's. Otherwise only the
    player's own: live until they fold (a hand mucked at the showdown stays its owner's to
    see, as it is in review), and `afterwards` (reviewing a hand they played) always.
    Folded and mucked hands of others are never anyone's.
    """
    if state.shown[p]:
        return True
    if p != position:
        return False
    return afterwards or not state.folded[p]


def event_records(hand: Hand, events: Iterable[Event]) -> list[Record]:
    """Records for engine events, in order; positions become seat numbers."""
    seat = hand.seats
    state = hand.state
    base = {"hand": hand.id}
    out: list[Record] = []
    boards_dealt = False
    for e in events:
        boards_dealt = boards_dealt or isinstance(e, BoardDealt)
        if isinstance(e, ForcedBet):
            out.append(
                Record(
                    {
                        **base,
                        "type": "forced_bet",
                        "seat": seat[e.player],
                        "kind": e.kind,
                        "amount": e.amount,
                        "all_in": e.all_in,
                    }
                )
            )
        elif isinstance(e, HoleCardsDealt):
            out.append(
                Record(
                    {**base, "type": "hole_cards", "seat": seat[e.player]},
                    {hand.players[e.player]: {"cards": cards(e.cards), **opened(hand, e.cards)}},
                )
            )
        elif isinstance(e, BoardDealt):
            out.append(
                Record(
                    {
                        **base,
                        "type": "board",
                        "street": e.street.label,
                        "board": e.board,
                        "run": e.run,
                        "cards": cards(e.cards),
                        **opened(hand, e.cards),
                    }
                )
            )
        elif isinstance(e, BettingRoundStarted):
            out.append(Record({**base, "type": "round", "street": e.street.label}))
        elif isinstance(e, Acted):
            out.append(
                Record(
                    {
                        **base,
                        "type": "acted",
                        "seat": seat[e.player],
                        "action": str(e.kind),
                        "amount": e.amount,
                        "bet": e.bet,
                        "stack": e.stack,
                        "all_in": e.all_in,
                    }
                )
            )
        elif isinstance(e, BetReturned):
            out.append(
                Record({**base, "type": "bet_returned", "seat": seat[e.player], "amount": e.amount})
            )
        elif isinstance(e, PotsGathered):
            pots = [{"amount": a, "seats": [seat[p] for p in el]} for a, el in e.pots]
            out.append(Record({**base, "type": "pots", "pots": pots}))
        elif isinstance(e, RunItTwiceOffered):
            out.append(
                Record(
                    {**base, "type": "run_it_twice_offered", "seats": [seat[p] for p in e.players]}
                )
            )
        elif isinstance(e, RunItTwiceVoted):
            out.append(
                Record(
                    {**base, "type": "run_it_twice_voted", "seat": seat[e.player], "agree": e.agree}
                )
            )
        elif isinstance(e, RunsDecided):
            out.append(Record({**base, "type": "runs", "runs": e.runs}))
        elif isinstance(e, CardsShown):
            out.append(
                Record(
                    {
                        **base,
                        "type": "shown",
                        "seat": seat[e.player],
                        "cards": cards(e.cards),
                        **opened(hand, e.cards),
                    }
                )
            )
        elif isinstance(e, Mucked):
            out.append(Record({**base, "type": "mucked", "seat": seat[e.player]}))
        elif isinstance(e, PotAwarded) and e.amount == 0:
            continue  # a share of nothing (a 1-chip pot split over runs and boards): no award
        elif isinstance(e, PotAwarded):
            # Defence in depth: name the hand only when every card of it is public.
            public = visible_cards(state, -1)
            shown_ok = bool(e.cards) and set(e.cards) <= public
            out.append(
                Record(
                    {
                        **base,
                        "type": "award",
                        "pot": e.pot,
                        "run": e.run,
                        "board": e.board,
                        "half": e.half,
                        "seat": seat[e.player],
                        "amount": e.amount,
                        "hand_name": e.hand if shown_ok else None,
                        "cards": cards(e.cards) if shown_ok else [],
                    }
                )
            )
        elif isinstance(e, HandEnded):
            # The winner of a pot nobody called is told they may show it (`show`).
            may_show = [p for p in range(state.n) if state.may_show(p)]
            out.append(
                Record(
                    {
                        **base,
                        "type": "hand_ended",
                        "stacks": {str(seat[p]): s for p, s in enumerate(e.stacks)},
                    },
                    {hand.players[p]: {"can_show": True} for p in may_show},
                )
            )
    out.extend(reader_records(hand, boards_dealt))
    return out


def _described(d: HandDescription) -> dict[str, Any]:
    return {"name": d.name, "cards": cards(d.cards), "hole_used": cards(d.hole_used)}


def hand_reader(state: HandState, position: int) -> list[dict[str, Any]] | None:
    """The player at `position`'s best hand now, per run and board with three cards or more
    (the engine's names and cards: no rules in the client). None once the hand is over or
    the player folded or mucked; an empty list before the flop."""
    if state.complete or not own_cards_visible(state, position):
        return None
    hole = state.hole[position]
    hi_lo = state.config.game.hi_lo
    out: list[dict[str, Any]] = []
    for r, run in enumerate(state.boards):
        for b, board in enumerate(run):
            if len(board) < 3:
                continue  # Courchevel's early card alone makes no hand yet
            entry: dict[str, Any] = {"run": r, "board": b, "high": _described(
                describe_high(hole, board))}  # fmt: skip
            if hi_lo:
                low = describe_low(hole, board)
                entry["low"] = _described(low) if low is not None else None
            out.append(entry)
    return out


def reader_records(hand: Hand, boards_dealt: bool) -> list[Record]:
    """After board cards were dealt: one `hand_reader` record whose private part gives each
    player still in the hand their own reading. Everyone gets the (empty) public part, so the
    table's sequence stays whole."""
    state = hand.state
    if not boards_dealt or state.complete:
        return []
    private: dict[str, dict[str, Any]] = {}
    for p, player in enumerate(hand.players):
        reading = hand_reader(state, p)
        if reading:
            private[player] = {"boards": reading}
    if not private:
        return []
    return [Record({"type": "hand_reader", "hand": hand.id}, private)]


def turn_record(
    hand: Hand,
    timeout: float | None,
    time_bank: float,
    in_bank: bool,
    *,
    short: bool = False,
    stopped: bool = False,
) -> Record:
    """Who acts and their clock; `short`: a show-or-muck choice or a vote, whose clock is
    `showdown_time` and never the time bank; `stopped`: the host's pause stops the clock,
    `timeout` is what it has left (not counting down until the table resumes)."""
    legal = hand.state.legal_actions()
    assert legal is not None
    p = legal.player
    public = {
        "type": "turn",
        "hand": hand.id,
        "counter": hand.counter,
        "seat": hand.seats[p],
        "phase": str(legal.phase),
        "timeout": timeout,
        "time_bank": round(time_bank, 3),
        "in_time_bank": in_bank,
        "short": short,
        "clock_stopped": stopped,
    }
    return Record(public, {hand.players[p]: {"legal": legal_to_json(legal)}})


def hand_view(hand: Hand, player_id: str | None) -> dict[str, Any]:
    """The current hand as `player_id` may see it (None: a spectator)."""
    state = hand.state
    position = hand.position_of_player(player_id) if player_id is not None else None
    players = []
    for p in range(state.n):
        entry: dict[str, Any] = {
            "seat": hand.seats[p],
            "stack": state.stacks[p],
            "bet": state.bets[p],
            "committed": state.committed[p],
            "folded": state.folded[p],
            "all_in": state.is_all_in(p),
            "shown": state.shown[p],
            "mucked": state.mucked[p],
        }
        if may_see_hole(state, p, position):
            entry["cards"] = cards(state.hole[p])
        players.append(entry)
    view: dict[str, Any] = {
        "id": hand.id,
        "number": hand.number,
        "counter": hand.counter,
        "button": hand.button,
        "bomb_pot": state.config.bomb_pot,
        "street": state.street.label,
        "phase": str(state.phase),
        "boards": [[cards(board) for board in run] for run in state.boards],
        "pot": state.pot_total(),
        "pots": [
            {"amount": pot.amount, "seats": [hand.seats[p] for p in pot.eligible]}
            for pot in state.pots()
        ],
        "players": players,
        "actor": hand.seats[state.actor] if state.actor is not None else None,
        **hand_fields(hand),
    }
    if hand.deal is not None:  # the openings of every card this viewer may see now
        view["openings"] = openings(
            hand, sorted(visible_cards(state, -1 if position is None else position))
        )
    if position is not None:
        reading = hand_reader(state, position)
        if reading:
            view["reader"] = reading
    if position is not None and state.actor == position:
        legal = state.legal_actions()
        if legal is not None:
            view["legal"] = legal_to_json(legal)
    if position is not None and state.may_show(position):
        view["can_show"] = True
    return view


def seat_json(s: Seat) -> dict[str, Any]:
    """A seat as everyone sees it: the snapshot's seats and the `seat` event."""
    return {
        "seat": s.number,
        "player_id": s.player_id,
        "name": s.name,
        "stack": s.stack,
        "status": s.status,
        "away": s.away,
        "straddle": s.straddle,
        "missed": s.missed,
        "bot": s.bot,
        "sit_out_next": s.sit_out_next,
        "sit_out_next_bb": s.sit_out_next_bb,
        "timed_out": s.timed_out,
        **seat_labels(s),
    }


def table_view(table: TableLike, player_id: str | None) -> dict[str, Any]:
    """The whole table as `player_id` sees it: the snapshot a connection starts from."""
    seats: list[dict[str, Any] | None] = [None if s is None else seat_json(s) for s in table.seats]
    you: dict[str, Any] = {"player_id": player_id, "seat": None, "host": False}
    if player_id is not None:
        mine = table.seat_of(player_id)
        you["seat"] = mine.number if mine is not None else None
        if mine is not None:  # the player's own showdown preferences (set_preference)
            you["preferences"] = {"auto_muck": mine.auto_muck, "always_show": mine.always_show}
        you["host"] = player_id == table.host_id
        request = table.requests.get(player_id)
        you["request"] = request.to_json() if request is not None else None
    view: dict[str, Any] = {
        "type": "snapshot",
        "stream": table.stream,
        "seq": table.seq,
        "table": {
            "id": table.id,
            "config": table.config.model_dump(mode="json"),
            "labels": table_labels(table.config),
            "next_config": (
                table.next_config.model_dump(mode="json") if table.next_config else None
            ),
            "host": table.host_id,
            "paused": table.paused or table.idle,
            "idle": table.idle,
            "closing": table.closing,
            "bomb_pot_next": table.bomb_pot_next,
            "button": table.button,
            "hands_played": table.hand_number,
            **table_fields(table.server_seed, table.config.reveal_seed),
        },
        "seats": seats,
        "hand": hand_view(table.hand, player_id) if table.hand is not None else None,
        "you": you,
        "chat": list(table.chat),
    }
    if table.hand is not None:  # a finished hand's notes and what may still be asked for
        h = table.hand
        at = h.position_of_player(player_id) if player_id is not None else None
        view["hand"].update(after_fields(h, at, table.config.rabbit_hunt))
    if table.hand is not None:  # the turn's clock: counting down, or stopped by a pause
        stopped = table.turn_stopped_left
        view["hand"]["clock_stopped"] = stopped is not None
        if stopped is not None:
            view["hand"]["timeout"] = round(stopped, 3)
        elif table.turn_deadline is not None:
            view["hand"]["timeout"] = max(0.0, round(table.turn_deadline - table.now(), 3))
        if table.turn_bank is not None:  # as the turn's news said it
            bank, running = table.turn_bank
            view["hand"]["time_bank"], view["hand"]["in_time_bank"] = round(bank, 3), running
    if you["host"]:
        view["requests"] = [r.to_json() for r in table.requests.values()]
    return view
