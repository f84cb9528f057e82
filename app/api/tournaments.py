"""REST: create a tournament, register, start, pause and resume it, read its clock and
standings, the deal figures, and the results as CSV."""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from app.api.bodies import JsonRoute
from app.api.identity import MaybePlayerDep, PlayerDep
from app.api.ledger import _csv as csv_text  # the one CSV writer (formula-safe cells)
from app.api.limits import check_rate
from app.api.tables import public_base
from app.config import Settings as ServerSettings
from app.poker import Betting
from app.scale.relay import Relay
from app.scale.wire import TournamentCall
from app.tables.config import MAX_CHIPS, TableConfig
from app.tables.errors import TableError
from app.tables.table import Table
from app.tournaments.director import Director
from app.tournaments.hall import Hall
from app.tournaments.payouts import BadPayout, check, split
from app.tournaments.payouts import preset as payout_preset
from app.tournaments.settings import Settings
from app.tournaments.structure import BadSchedule, Level, Schedule, custom, preset, suggest

router = APIRouter(prefix="/api/tournaments", tags=["tournaments"], route_class=JsonRoute)
Minutes = Annotated[float, Field(gt=0, le=24 * 60, allow_inf_nan=False)]


class LevelIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    small_blind: StrictInt = Field(ge=0, le=MAX_CHIPS)
    big_blind: StrictInt = Field(ge=1, le=MAX_CHIPS)
    ante: StrictInt = Field(default=0, ge=0, le=MAX_CHIPS)
    big_blind_ante: StrictInt = Field(default=0, ge=0, le=MAX_CHIPS)
    minutes: Minutes = 15.0


class TournamentIn(BaseModel):
    """A new tournament. `structure`: a preset (turbo, regular, deep), `suggest` (from the
    field, the stack and `target_minutes`) or `custom` (`levels`). `payouts`: basis points
    per place adding up to 10,000, `preset` (by the field size at the start) or `none`."""

    model_config = ConfigDict(extra="forbid")
    name: StrictStr = Field(default="Tournament", min_length=1, max_length=40)
    game: StrictStr = "omaha"
    betting: Betting = Betting.POT_LIMIT
    starting_stack: StrictInt = Field(default=1500, ge=10, le=10**9)
    seats: StrictInt = Field(default=6, ge=2, le=10)
    structure: Literal["turbo", "regular", "deep", "suggest", "custom"] = "regular"
    ante: Literal["none", "classic", "big_blind"] = "big_blind"
    expected_players: StrictInt = Field(default=6, ge=2, le=1000)
    target_minutes: Minutes = 120.0
    levels: list[LevelIn] | None = Field(default=None, max_length=100)
    #: every level's length, over the structure's (a preset's or the suggestion's); None: its own
    level_minutes: Minutes | None = None
    break_every: StrictInt = Field(default=0, ge=0, le=100)
    break_minutes: float = Field(default=10.0, ge=0, le=120, allow_inf_nan=False)
    payouts: Literal["preset", "none"] | list[StrictInt] = "preset"
    prize_pool: StrictInt = Field(default=0, ge=0, le=MAX_CHIPS)
    max_players: StrictInt = Field(default=60, ge=2, le=1000)
    decision_time: float = Field(default=30.0, ge=0, le=600, allow_inf_nan=False)
    time_bank: float = Field(default=60.0, ge=0, le=3600, allow_inf_nan=False)
    late_registration_level: StrictInt = Field(default=0, ge=0, le=100)
    reentries: StrictInt = Field(default=0, ge=0, le=100)
    start_when_full: bool = False
    addon_chips: StrictInt = Field(default=0, ge=0, le=10**9)
    addon_price: StrictInt = Field(default=0, ge=0, le=MAX_CHIPS)
    addon_level: StrictInt = Field(default=0, ge=0, le=100)
    #: the start at this time (Unix seconds, within `START_WITHIN` from now); None: the host's
    start_at: float | None = Field(default=None, allow_inf_nan=False)

    def settings(self) -> Settings:
        """The director's settings; raises `BadSchedule` or `BadPayout`."""
        if self.structure == "custom":
            if not self.levels:
                raise BadSchedule("a custom structure lists its levels")
            levels = [Level(**lv.model_dump()) for lv in self.levels]
            schedule = custom(levels, self.break_every, self.break_minutes)
        elif self.structure == "suggest":
            schedule = suggest(self.expected_players, self.starting_stack, self.target_minutes,
                               ante=self.ante)  # fmt: skip
        else:
            schedule = preset(self.structure, self.starting_stack,
                              players=self.expected_players, ante=self.ante)  # fmt: skip
            if self.break_every or "break_every" in self.model_fields_set:
                schedule = Schedule(schedule.levels, self.break_every,
                                    self.break_minutes if self.break_every else 0.0)  # fmt: skip
        if self.level_minutes is not None:
            schedule = Schedule(tuple(dataclasses.replace(lv, minutes=self.level_minutes)
                                      for lv in schedule.levels),
                                schedule.break_every, schedule.break_minutes)  # fmt: skip
        at = self.addon_level or self.late_registration_level or 1
        if self.addon_chips and at > len(schedule.levels):
            raise BadSchedule(f"the add-on's level {at} is past the last level")
        payouts: tuple[int, ...] | None
        if self.payouts == "preset":
            payouts = None
        elif self.payouts == "none":
            payouts = ()
        else:
            payouts = tuple(self.payouts)
            check(payouts, self.max_players)
        return Settings(
            name=self.name, schedule=schedule, starting_stack=self.starting_stack,
            seats=self.seats, game=self.game, betting=self.betting, payouts=payouts,
            prize_pool=self.prize_pool, max_players=self.max_players,
            decision_time=self.decision_time, time_bank=self.time_bank,
            late_registration_level=self.late_registration_level, reentries=self.reentries,
            start_when_full=self.start_when_full, addon_chips=self.addon_chips,
            addon_price=self.addon_price, addon_level=self.addon_level, start_at=self.start_at,
        )  # fmt: skip


class Preview(BaseModel):
    """What a new tournament's settings make: its levels and breaks with the tournament time
    each starts at, and the prizes for the expected field."""

    levels: list[dict[str, Any]]
    breaks: list[dict[str, Any]]
    payouts: list[int]
    places_paid: int
    late_registration_until: float | None  # minutes into the tournament (None: none)


class Created(BaseModel):
    id: str
    code: str
    url: str
    clock_url: str


def hall(request: Request) -> Hall:
    h: Hall = request.app.state.tournaments
    return h


def refused(error: TableError) -> HTTPException:
    status = {"no_such_tournament": 404, "unavailable": 503, "not_host": 403,
              "too_many_tables": 429}.get(error.code, 409)  # fmt: skip
    return HTTPException(status, detail={"code": error.code, "message": error.message})


def bad(message: str) -> HTTPException:
    return HTTPException(422, detail={"code": "bad_config", "message": message})


def checked(body: TournamentIn) -> Settings:
    """The settings of `body`, checked as a tournament table would (a 422 says what is wrong)."""
    try:
        settings = body.settings()
        TableConfig(game=settings.game, betting=settings.betting, seats=settings.seats,
                    decision_time=settings.decision_time, time_bank=settings.time_bank,
                    buy_in_min=MAX_CHIPS, buy_in_max=MAX_CHIPS, tournament=True)  # fmt: skip
    except (BadSchedule, BadPayout) as error:
        raise bad(str(error)) from None
    except ValidationError as error:
        raise bad(str(error.errors()[0].get("msg", "invalid settings"))) from None
    return settings


@router.post("/preview", response_model=Preview)
async def preview(body: TournamentIn, player: PlayerDep) -> Preview:
    """The schedule and payouts these settings make, for the form before creating."""
    settings = checked(body)
    schedule = settings.schedule
    levels: list[dict[str, Any]] = []
    breaks: list[dict[str, Any]] = []
    t = 0.0
    for level, on_break, seconds in schedule.periods():
        if on_break:
            breaks.append({"after": level + 1, "minutes": seconds / 60, "starts": t / 60})
        else:
            levels.append({"level": level + 1, **schedule.levels[level].to_json(),
                           "starts": t / 60})  # fmt: skip
        t += seconds
    field = max(2, body.expected_players)
    points = settings.payouts if settings.payouts is not None else payout_preset(field)
    amounts = split(settings.prize_pool, points[:field]) if points else []
    late = settings.late_registration_level
    until = None
    if late:
        starts = schedule.starts()
        until = (starts[late] if late < len(starts) else t) / 60
    return Preview(levels=levels, breaks=breaks, payouts=amounts, places_paid=len(amounts),
                   late_registration_until=until)  # fmt: skip


@router.post("", response_model=Created, status_code=201)
async def create_tournament(body: TournamentIn, request: Request, player: PlayerDep) -> Created:
    server: ServerSettings = request.app.state.settings
    host = str(player.id)
    settings = checked(body)
    if body.start_at is not None and not 0 < body.start_at - time.time() <= START_WITHIN:
        raise bad("start at: a time in the next 30 days")
    try:  # counted in the database: the same limit whichever process is asked
        hosted = await hall(request).store.hosted(host)
    except Exception:
        raise HTTPException(503, detail={"code": "unavailable", "message":
                            "the database did not answer"}) from None  # fmt: skip
    if hosted >= server.tournaments_per_host:
        raise HTTPException(429, detail={"code": "too_many_tournaments", "message":
                            f"you host {hosted} unfinished tournaments"})  # fmt: skip
    await check_rate(request.app.state.table_rate, request, "tables")
    director = await hall(request).create(settings, host)
    base = public_base(request)
    return Created(id=director.id, code=director.code,
                   url=f"{base}tournaments/{director.code}",
                   clock_url=f"{base}tournaments/{director.code}/clock")  # fmt: skip


#: how far ahead a start time may be set
START_WITHIN = 30 * 24 * 3600.0
#: the clock's part of the state: what a tournament table's page shows beside the felt
CLOCK = ("name", "status", "level", "on_break", "remaining", "blinds", "next", "players_left",
         "entries", "average_stack", "payouts", "hand_for_hand")  # fmt: skip
ACTIONS = ("register", "unregister", "start", "pause", "resume", "next_level", "chop_icm",
           "chop_chips", "chop_withdraw", "addon", "add_bot")  # fmt: skip
#: what a process answers of a tournament it directs, for itself or for another (relayed)
READS = ("state", "deal", "results")
#: the read of a table's clock, asked of the process running the table (`o`: its code)
TABLE_CLOCK = "table"
NOT_IN_A_TOURNAMENT = "this table is in no running tournament"


@router.get("/table/{table_code}")
async def table_clock(table_code: str, request: Request, player: MaybePlayerDep) -> dict[str, Any]:
    """The clock of the tournament a table belongs to, for its table page (public to whoever
    has the table's code). A player still in also gets the tournament's `code` and the code of
    the table they sit at now (`your_table`: it differs after a move). Answered here, or (several
    processes) by the process running the table, which directs its tournament."""
    pid = str(player.id) if player is not None else None
    tournaments = hall(request)
    try:
        return clock_of_table(tournaments, table_code, pid)
    except TableError as error:
        relay: Relay | None = request.app.state.relay
        if relay is None:
            raise refused(error) from None
    try:
        owner = await table_elsewhere(request, relay, table_code)
        return await relay.ask_director(owner, table_code, TABLE_CLOCK, pid, "")
    except TableError as error:
        raise refused(error) from None


def clock_of_table(tournaments: Hall, table_code: str, player_id: str | None) -> dict[str, Any]:
    """`table_clock`'s answer for a table running here."""
    found = tournaments.of_table(table_code)
    if found is None:
        raise TableError("no_such_tournament", NOT_IN_A_TOURNAMENT)
    director, _ = found
    full = director.status_view()
    view = {k: full[k] for k in CLOCK}
    view["you"] = your_result(director, player_id)
    if view["you"] is not None:  # an entrant (busted too) is told the tournament's code
        view["code"] = director.code
    if director.status == "finished":  # every table page says who won, and where each came
        view["standings"] = full["standings"]
    if (seat := your_table(tournaments, director, player_id)) is not None:
        view["code"] = director.code
        view["your_table"] = seat
        view["your_table_name"] = your_table_name(tournaments, director, player_id)
    return view


def your_result(director: Director, player_id: str | None) -> dict[str, Any] | None:
    """The viewer's latest entry: their place and prize once placed (None while still in)."""
    mine = [e for e in director.entries.values() if e.player_id == player_id]
    if not mine:
        return None
    entry = max(mine, key=lambda e: e.number)
    return {"place": entry.place, "prize": entry.prize, "entries": len(mine)}


async def table_elsewhere(request: Request, relay: Relay, table_code: str) -> str:
    """The process running the table of `table_code`, which is not this one."""
    store = request.app.state.table_store
    table_id = await store.table_by_code(table_code) if len(table_code) <= 64 else None
    owner = (await relay.leases.owners([table_id])).get(table_id) if table_id else None
    if owner is None or owner == relay.name:
        raise TableError("no_such_tournament", NOT_IN_A_TOURNAMENT)
    return owner


def your_table(tournaments: Hall, director: Director, player_id: str | None) -> str | None:
    """The invite code of the table where this viewer plays in the tournament now, if they
    are still in and seated (the director's tables run on its process)."""
    table = _seated_at(tournaments, director, player_id)
    return table.code if table is not None else None


def your_table_name(tournaments: Hall, director: Director, player_id: str | None) -> str | None:
    table = _seated_at(tournaments, director, player_id)
    return table.config.name if table is not None else None


def _seated_at(tournaments: Hall, director: Director, player_id: str | None) -> Table | None:
    if player_id is None or player_id not in director.live:
        return None
    seat_at = director.entry_of(player_id).table
    return tournaments.tables.tables.get(seat_at) if seat_at else None


async def answer(
    tournaments: Hall, code: str, what: str, player_id: str | None, name: str
) -> dict[str, Any]:
    """The answer of the director of `code`, which runs here: a read (`READS`) or an action
    (`ACTIONS`) of `player_id`; or (`TABLE_CLOCK`) the clock of the table of code `code`."""
    if what == TABLE_CLOCK:
        return clock_of_table(tournaments, code, player_id)
    director = await tournaments.find(code)
    if what == "state":
        view = director.status_view()
        view["your_table"] = your_table(tournaments, director, player_id)
        view["your_table_name"] = your_table_name(tournaments, director, player_id)
        view["host"] = director.host_id
        view["code"] = code
        codes = {tid: c for c, tid in director.table_codes.items()}
        view["tables"] = [table_view(tournaments, t.id, codes.get(t.id), len(t.seats), t.playing)
                          for t in director.tables.values()]  # fmt: skip
        view["schedule"] = director.settings.schedule.to_json()
        view["registered"] = [{"player_id": e.player_id, "name": e.name, "addon": e.addon,
                               "bot": e.bot} for e in director.entries.values()]  # fmt: skip
        view["deal"] = director.deal_view(player_id)
        view["you"] = your_result(director, player_id)
        view["tables_needed"] = tables_needed(director)
        view["max_players"] = director.settings.max_players
        view["late_registration"] = director.status in ("running", "paused") and (
            director.late_registration_open()
        )
        return view
    if what == "deal":
        return {"players": await director.deal_figures()}
    if what == "results":
        return {"results": director.results()}
    if what not in ACTIONS or player_id is None:
        raise TableError("unknown_action", "no such action")
    if what.startswith("chop_"):  # ask for (or agree to) a deal of this kind, or withdraw
        return await director.request("chop", player_id, kind=what[5:])
    return await director.request(what, player_id, name=name)


def table_view(
    tournaments: Hall, table_id: str, code: str | None, players: int, playing: bool
) -> dict[str, Any]:
    """One of the tournament's tables: its invite code (to watch it), name, and whether a
    hand is being played there."""
    table = tournaments.tables.tables.get(table_id)
    return {"id": table_id, "players": players, "code": code,
            "name": table.config.name if table else None, "playing": playing}  # fmt: skip


def tables_needed(director: Director) -> int:
    """The tables a start would open now, or a registration now (late: none is free): what
    the per-address table limit counts before the action is asked."""
    if director.status == "registering":
        return math.ceil(len(director.live) / director.settings.seats)
    seated = sum(len(t.seats) for t in director.tables.values())
    return 1 if seated >= len(director.tables) * director.settings.seats else 0


async def answer_call(tournaments: Hall, call: TournamentCall) -> dict[str, Any]:
    """`answer` for another process (`Relay.ask_director`): the player it authenticated."""
    return await answer(tournaments, call.code, call.what, call.player, call.name)


async def ask(
    request: Request, code: str, what: str, player_id: str | None = None, name: str = ""
) -> dict[str, Any]:
    """`answer` here, or (several processes) by the process directing the tournament."""
    tournaments = hall(request)
    try:
        return await answer(tournaments, code, what, player_id, name)
    except TableError as error:
        relay: Relay | None = request.app.state.relay
        if error.code != "no_such_tournament" or relay is None:
            raise refused(error) from None
    try:
        owner = await tournaments.director_elsewhere(code)
        return await relay.ask_director(owner, code, what, player_id, name)
    except TableError as error:
        raise refused(error) from None


@router.get("/{code}")
async def tournament_state(code: str, request: Request, player: MaybePlayerDep) -> dict[str, Any]:
    """The clock, the field and the standings: public to whoever has the code (and to a
    player still in, the code of their table)."""
    return await ask(request, code, "state", str(player.id) if player is not None else None)


@router.get("/{code}/deal")
async def deal(code: str, request: Request, player: PlayerDep) -> dict[str, Any]:
    """The chip-chop and ICM (Malmuth–Harville) figures for the players left (computed once
    per change of stacks, off the event loop; the state's `deal` carries them too)."""
    await check_rate(request.app.state.read_rate, request, "reads")
    return await ask(request, code, "deal")


@router.get("/{code}/results.csv")
async def results_csv(code: str, request: Request) -> Response:
    await check_rate(request.app.state.read_rate, request, "reads")
    rows: list[list[Any]] = [["place", "player", "prize"]]
    results = (await ask(request, code, "results"))["results"]
    rows += [[r["place"], r["name"], r["prize"]] for r in results]
    headers = {"content-disposition": f'attachment; filename="results-{code[:8]}.csv"'}
    return Response(csv_text(rows), media_type="text/csv; charset=utf-8", headers=headers)


@router.post("/{code}/{action}")
async def act(code: str, action: str, request: Request, player: PlayerDep) -> dict[str, Any]:
    if action not in ACTIONS:
        raise HTTPException(404, detail={"code": "unknown_action", "message": "no such action"})
    if action in ("start", "register", "add_bot"):  # a tournament's tables are tables too
        state = await ask(request, code, "state", str(player.id))
        starting = action == "start"  # registering, it opens the tables; later, one may
        if starting == (state["status"] == "registering"):
            for _ in range(state["tables_needed"]):
                await check_rate(request.app.state.table_rate, request, "tables")
    return await ask(request, code, action, str(player.id), player.display_name)
