"""Logging: plain text or JSON lines, one line per request and per WebSocket event.

Never log a card, a deck, a token or a cookie, at any level. Request lines carry the client
address and the path without its query string; extra fields whose name says they are secret
are replaced, and session cookies and bearer tokens are cut out of message text, before any
formatter sees them (see `RedactSecrets`). LOG_LEVEL applies to this server's own loggers;
third-party ones (uvicorn, websockets, aiosqlite, SQLAlchemy, asyncpg...) stay at info, where
they log no header and no statement parameter, unless named in LOG_DEBUG_LOGGERS.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from collections.abc import Awaitable, Callable, MutableMapping
from datetime import UTC, datetime
from typing import Any

LOGGER_NAME = "omaha"
log = logging.getLogger(LOGGER_NAME)
access_log = logging.getLogger(f"{LOGGER_NAME}.access")
ws_log = logging.getLogger(f"{LOGGER_NAME}.ws")

# Attribute names every LogRecord has; anything else came in through `extra=`.
_RECORD_FIELDS = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "taskName",
    "color_message",  # uvicorn's coloured copy of the message
}
SECRET_FIELDS = frozenset(
    {
        "token",
        "session_token",
        "cookie",
        "cookies",
        "authorization",
        "password",
        "secret",
        "secret_key",
        "cards",
        "hole_cards",
        "deck",
        "board",
        "query",
        "query_string",
    }
)
REDACTED = "[redacted]"
#: secrets that can appear inside a message's text: session cookies (either name), bearer
#: tokens, and a `token=` query parameter
SECRET_TEXT = re.compile(r"(?i)((?:__Host-)?omaha_session=|bearer\s+|[?&]token=)[^;&\s'\",]+")


def _extras(record: logging.LogRecord) -> dict[str, Any]:
    return {k: v for k, v in vars(record).items() if k not in _RECORD_FIELDS}


class RedactSecrets(logging.Filter):
    """Replace the value of any `extra` field named like a secret."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key in _extras(record):
            if key.lower() in SECRET_FIELDS:
                setattr(record, key, REDACTED)
        try:
            text = record.getMessage()
        except Exception:  # a malformed call: leave it to the formatter to report
            return True
        cleaned = SECRET_TEXT.sub(lambda m: m.group(1) + REDACTED, text)
        if cleaned != text:
            record.msg, record.args = cleaned, None
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, msg and the record's extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        entry.update(_extras(record))
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, separators=(",", ":"))


class TextFormatter(logging.Formatter):
    """Human-readable: time, level, logger and message. Extra fields go to JSON lines only,
    so a message should say in words what a person reading the text log needs."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s: %(message)s")


def setup_logging(
    level: str = "info", fmt: str = "text", debug_loggers: tuple[str, ...] | list[str] = ()
) -> None:
    """Send every log line (ours, uvicorn's, SQLAlchemy's) to stderr in one format.

    `level` is this server's (the `omaha` loggers'); everything else logs at info or above,
    except the loggers named in `debug_loggers`: at debug, uvicorn and websockets log request
    headers (the session cookie) and aiosqlite every statement with its parameters."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    handler.addFilter(RedactSecrets())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    ours = logging.getLevelName(level.upper())
    root.setLevel(max(ours, logging.INFO))
    logging.getLogger(LOGGER_NAME).setLevel(ours)
    for name in debug_loggers:
        logging.getLogger(name).setLevel(ours)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
    # httpx logs whole URLs, query strings included, at INFO.
    for name in ("httpx", "httpcore"):
        logging.getLogger(name).setLevel(logging.WARNING)
    # Alembic announces each of its plugins at INFO; its migration lines stay.
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
    # We write our own access line (without query strings); uvicorn's would repeat it.
    logging.getLogger("uvicorn.access").disabled = True


def log_ws_event(
    event: str,
    *,
    table_id: str | None,
    seat: int | None,
    player_id: str | None = None,
    code: int | None = None,
    reason: str | None = None,
    client: str | None = None,
) -> None:
    """One line per WebSocket connect or disconnect, for the WebSocket endpoint to call.

    `event` is "connect" or "disconnect"; `seat` is None for a spectator; `code` and `reason`
    are the close code and a short reason for a disconnect. Pass ids, never tokens.
    """
    fields: dict[str, Any] = {"event": f"ws.{event}", "table": table_id, "seat": seat}
    if player_id is not None:
        fields["player"] = player_id
    if code is not None:
        fields["code"] = code
    if reason is not None:
        fields["reason"] = reason
    if client is not None:
        fields["client"] = client
    seat_text = "spectator" if seat is None else f"seat {seat}"
    ws_log.info("websocket %s table %s %s", event, table_id, seat_text, extra=fields)


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class AccessLogMiddleware:
    """ASGI middleware: one line per HTTP request with method, path, status and duration.

    The path is logged without its query string, so a token passed as `?token=` never
    reaches a log line; headers (cookies, authorization) are never logged.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def send_with_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_with_status)
        finally:
            duration_ms = round((time.perf_counter() - start) * 1000, 1)
            method = scope.get("method", "")
            path = scope.get("path", "")
            client = scope.get("client")
            address = str(client[0]) if client else "-"
            access_log.info(
                "%s %s %s %d %.1fms",
                address,
                method,
                path,
                status,
                duration_ms,
                extra={
                    "event": "http.request",
                    "client": address,
                    "method": method,
                    "path": path,
                    "status": status,
                    "duration_ms": duration_ms,
                },
            )


class Quiet:
    """One warning per `every` seconds for a failure that repeats (Redis down: every read,
    every presence refresh): a log that says so, not one that fills the disk."""

    def __init__(self, logger: logging.Logger, every: float = 10.0) -> None:
        self.logger = logger
        self.every = every
        self._last: dict[str, float] = {}  # keyed by the message's format: a few, fixed

    def warn(self, what: str, *args: Any) -> None:
        now = time.monotonic()
        if now - self._last.get(what, -self.every) >= self.every:
            self._last[what] = now
            self.logger.warning(what, *args)
