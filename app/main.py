"""The ASGI application: `create_app(settings)` builds it, the lifespan opens its resources.

While running, `app.state` holds:
- `settings`: the `Settings` it was built with;
- `engine`: the SQLAlchemy `AsyncEngine`; `sessions`: an `async_sessionmaker` on it;
- `presence`: the `Presence` backend (Redis or in process); `keeper`: the `Keeper` that
  refreshes every connection's entry in it, one call per period for the whole process;
- `secret_key`: the key that signs session cookies;
- `assets`: the client's files (`app.api.assets.Assets`), whose version a page's socket names.
Routes get them through the dependencies in `app.api.deps`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from app import __version__
from app.api import (
    assets,
    deals,
    health,
    history,
    identity,
    ledger,
    links,
    metrics,
    review,
    tables,
    tournaments,
    ws,
)
from app.api.headers import SecurityHeaders, csp
from app.api.hosts import HostCheck
from app.api.limits import BodyLimit, Connections
from app.api.transport import bounded_protocol, lean_websocket_protocol
from app.config import Settings, get_settings
from app.logging import AccessLogMiddleware
from app.pauses import Pauses
from app.presence import create_presence
from app.presence.keeper import Keeper
from app.rate import SharedWindow, SlidingWindow
from app.scale.identity import new_incarnation
from app.scale.lease import Leases, Ownership, SoleLeases
from app.scale.placement import Placement
from app.scale.relay import Relay
from app.scale.solo import AnotherProcess, DatabaseHold, hold_when_up
from app.scale.wire import Wire
from app.store import decks
from app.store.db import create_engine, session_factory
from app.store.tables import SqlTableStore
from app.store.tournaments import SqlTournamentStore
from app.tables.registry import TableRegistry
from app.tables.table import Runtime
from app.tournaments.hall import Hall

log = logging.getLogger("omaha")
STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
#: the per-address creation limits' window, in seconds
MINUTE = 60.0


def static_dir() -> Path:
    """static/ beside the app package (a checkout), else in the working directory."""
    if STATIC_DIR.is_dir():
        return STATIC_DIR
    return Path.cwd() / "static"


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.settings = settings
        app.state.secret_key = settings.ensure_secret_key()
        decks.use_secret(app.state.secret_key)
        app.state.session_rate = SlidingWindow(settings.sessions_per_minute, MINUTE)
        app.state.table_rate = SlidingWindow(settings.tables_per_minute, MINUTE)
        app.state.read_rate = SlidingWindow(settings.reads_per_minute, MINUTE)
        app.state.connections = Connections(settings.ws_per_session, settings.ws_per_table)
        app.state.engine = create_engine(settings.effective_database_url)
        app.state.sessions = session_factory(app.state.engine)
        app.state.presence = create_presence(settings.redis_url, settings.presence_ttl)
        app.state.keeper = Keeper(app.state.presence)  # its task runs while entries do
        app.state.table_store = SqlTableStore(app.state.sessions, fenced=True)
        hold, ownership = await _ownership(settings)
        app.state.tables = TableRegistry(
            app.state.table_store,
            Runtime(
                between_hands=settings.between_hands,
                away_grace=settings.away_grace,
                store_timeout=settings.store_timeout,
                outbox_limit=settings.ws_outbox_limit,
                seat_requests=settings.seat_requests_per_table,
                bot_think=settings.bot_think,
                bot_samples=settings.bot_samples,
                chat_burst=settings.chat_burst,
                chat_window=settings.chat_window,
            ),
            ownership=ownership,
            lease=settings.lease_seconds,
            renew=settings.lease_renew,
        )
        app.state.relay = app.state.placement = None
        if isinstance(ownership, Leases):  # shared: WebSockets of others' tables are relayed
            # and an address's creations are counted across every process
            app.state.session_rate = SharedWindow(
                ownership.client, settings.sessions_per_minute, "sessions", MINUTE
            )
            app.state.table_rate = SharedWindow(
                ownership.client, settings.tables_per_minute, "tables", MINUTE
            )
            app.state.read_rate = SharedWindow(
                ownership.client, settings.reads_per_minute, "reads", MINUTE
            )
            app.state.relay = Relay(
                ownership.client,
                ownership,
                app.state.tables,
                app.state.presence,
                wire=Wire.from_secret(app.state.secret_key),
                outbox_limit=settings.ws_outbox_limit,
                keeper=app.state.keeper,  # relayed connections refreshed with the others
            )
            app.state.relay.on_name_lost = _stop_this_process
            app.state.tables.on_take = app.state.relay.taken
            app.state.placement = app.state.relay.owner.placement = Placement(
                app.state.relay, app.state.tables
            )
            try:
                await app.state.relay.start()
            except AnotherProcess as refused:
                log.error("not starting: %s", refused)
                raise
        # An all-in hand's equities are computed as it ends, when the review worker is idle.
        app.state.tables.on_all_in = partial(review.prepare_equity, app.state)
        await app.state.tables.start()
        app.state.tournaments = Hall(
            SqlTournamentStore(app.state.sessions, fenced=True),
            app.state.tables,
            between_hands=settings.between_hands,
            tables_per_host=settings.tables_per_host,
        )
        await app.state.tournaments.start()
        if app.state.relay is not None:  # others ask this process of tournaments it directs
            app.state.relay.owner.on_tournament = partial(tournaments.answer_call,
                                                          app.state.tournaments)  # fmt: skip
        sealing = asyncio.get_running_loop().create_task(_seal_old_decks(app.state.engine))
        pauses = Pauses()
        pauses.start()
        log.info(
            "started: database %s, presence %s",
            app.state.engine.dialect.name,
            "redis" if settings.redis_url else "in process",
        )
        try:
            yield
        finally:
            await pauses.stop()
            sealing.cancel()
            await asyncio.gather(sealing, return_exceptions=True)
            # Each step is bounded: a process asked to stop stops, even with a database write
            # that never answers (every write answered `ok` is committed already; one not
            # answered is rolled back with its connection, and the fencing epoch refuses it).
            await _bounded(app.state.tournaments.close(), CLOSE_SECONDS, "tournaments")
            relay = app.state.relay
            if relay is not None and await relay.others_alive():  # someone to hand over to
                await _bounded(app.state.tables.drain(settings.drain_seconds),
                               settings.drain_seconds + CLOSE_SECONDS, "drain")  # fmt: skip
            await _bounded(app.state.tables.close(), CLOSE_SECONDS, "tables")
            if app.state.relay is not None:
                await _bounded(app.state.relay.close(), CLOSE_SECONDS, "relay")
            else:
                await _bounded(ownership.close(), CLOSE_SECONDS, "leases")
            if hold is not None:
                await _bounded(hold.release(), CLOSE_SECONDS, "database hold")
            await history.stop_luck_tasks(app.state)
            await _bounded(app.state.table_store.close(), CLOSE_SECONDS, "table store")
            await _bounded(app.state.keeper.close(), CLOSE_SECONDS, "presence keeper")
            await _bounded(app.state.presence.close(), CLOSE_SECONDS, "presence")
            await _bounded(app.state.engine.dispose(), CLOSE_SECONDS, "database")

    app = FastAPI(
        title="Omaha",
        version=__version__,
        lifespan=lifespan,
        docs_url="/docs",
        redoc_url=None,
        openapi_url="/openapi.json",
    )
    app.add_middleware(ws.TableSockets)  # first: the innermost
    app.add_middleware(BodyLimit, limit=settings.max_body)
    app.add_middleware(HostCheck, settings=settings)
    app.add_middleware(AccessLogMiddleware)
    app.add_exception_handler(RequestValidationError, invalid_request)  # type: ignore[arg-type]
    for failure in DATABASE_DOWN:
        app.add_exception_handler(failure, database_unavailable)
    client = assets.Assets(static_dir(), assets.generated())
    app.state.assets = client  # its version: a socket's page may be out of date (ws.py)
    # outermost: every response, errors included; the page's inlined style sheet by its hash
    app.add_middleware(SecurityHeaders, policy=csp(client.style_hashes))
    # First: the router tries routes in order at ~13 µs each, and a cold table page is the
    # page and 33 module files; their paths (`/`, `/t/…`, `/h/…`, `/tournaments/…`,
    # `/static/…`) are no other router's (the API is under `/api`, the socket under `/ws`).
    app.include_router(assets.router(client))
    app.include_router(health.router)
    app.include_router(metrics.router)
    app.include_router(identity.router)
    app.include_router(links.router)
    app.include_router(tables.router)
    app.include_router(history.router)
    app.include_router(review.router)
    app.include_router(deals.router)
    app.include_router(ledger.router)
    app.include_router(tournaments.router)
    app.include_router(ws.router)
    return app


#: seconds each step of a stopping process may take before it is given up
CLOSE_SECONDS = 8.0


async def _bounded(step: Awaitable[object], seconds: float, what: str) -> None:
    """Await one step of the shutdown for at most `seconds`, then go on without it."""
    try:
        async with asyncio.timeout(seconds):
            await step
    except TimeoutError:
        log.error("stopping: %s did not finish in %.0f s; going on without it", what, seconds)


async def _ownership(settings: Settings) -> tuple[DatabaseHold | None, Ownership]:
    """Shared (PostgreSQL and Redis): leases in Redis. Else this process runs alone, and
    holds the database so that a second one is refused (`AnotherProcess`)."""
    name = settings.effective_process_name
    if settings.shared:  # known by its incarnation (app/scale/identity.py)
        assert settings.redis_url is not None
        incarnation = new_incarnation(name)
        return None, Leases.from_url(settings.redis_url, incarnation, settings.lease_seconds)
    try:
        hold = await hold_when_up(settings.effective_database_url)
    except AnotherProcess as refused:
        log.error("not starting: %s", refused)
        raise
    return hold, SoleLeases(name)


def _stop_this_process() -> None:
    """SIGTERM to itself: the ordinary, bounded shutdown."""
    os.kill(os.getpid(), signal.SIGTERM)


async def _seal_old_decks(engine: object) -> None:
    try:
        await decks.seal_legacy_decks(engine)  # type: ignore[arg-type]
    except Exception as error:  # not `log.exception`: a database error may quote a deck
        log.error("cannot seal the decks stored before encryption: %s", type(error).__name__)


async def invalid_request(request: Request, error: RequestValidationError) -> JSONResponse:
    """422 with a typed error that says where and what, never the input itself (which may be
    100 KiB, or hold a lone surrogate that no JSON encoder can write)."""
    problems = []
    for problem in error.errors()[:10]:
        where = ".".join(str(part) for part in problem.get("loc", ()))
        what = str(problem.get("msg", "invalid"))[:200]
        problems.append(f"{where}: {what}".encode("utf-8", "replace").decode("utf-8"))
    message = "; ".join(problems) or "invalid request"
    return JSONResponse({"detail": {"code": "bad_request", "message": message}}, status_code=422)


#: what a database that is down, locked or out of connections raises through a request: not a
#: bug of the request (an IntegrityError is, and stays a 500)
DATABASE_DOWN: tuple[type[Exception], ...] = (
    OperationalError,
    InterfaceError,
    PoolTimeout,
    ConnectionError,
)


async def database_unavailable(request: Request, error: Exception) -> JSONResponse:
    """503 `unavailable` (try again) when the database does not answer, as the table routes
    and the sockets say it, not a bare 500; its transaction was rolled back: nothing changed.
    Logged by its class only (a database error quotes its parameters)."""
    log.warning("%s %s: the database did not answer (%s)", request.method, request.url.path,
                type(error).__name__)  # fmt: skip
    body = {"detail": {"code": "unavailable", "message": "the database does not answer; try again"}}
    return JSONResponse(body, status_code=503, headers={"Retry-After": "1"})


def uvicorn_options(settings: Settings) -> dict[str, object]:
    """Options for uvicorn, the same in `serve` and in tests.

    Frames up to 16 times WS_MAX_MESSAGE reach the endpoint (which answers a typed error for
    anything above WS_MAX_MESSAGE); larger ones are closed by uvicorn with 1009. Compression
    is off: at a few hundred bytes a message it costs more CPU than it saves. The HTTP
    protocol closes connections that are slow to send headers or over MAX_CONNECTIONS;
    X-Forwarded-For/-Proto are believed from FORWARDED_ALLOW_IPS only. Stopping, uvicorn
    waits at most CLOSE_SECONDS for open connections' handlers before the lifespan's own
    (bounded) shutdown: a handler awaiting a stuck table cannot keep the process alive.
    """
    return {
        "timeout_graceful_shutdown": CLOSE_SECONDS,
        "ws_max_size": settings.ws_max_message * 16,
        "ws_per_message_deflate": False,
        "http": bounded_protocol(settings.header_timeout, settings.max_connections),
        "ws": lean_websocket_protocol(),
        "limit_concurrency": settings.max_connections,
        "forwarded_allow_ips": settings.forwarded_allow_ips,
    }
