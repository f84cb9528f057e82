"""Log lines: one per request, JSON when asked, never a token, a card or a deck."""

import io
import json
import logging
from collections.abc import Iterator

import httpx
import pytest

from app.logging import log_ws_event, setup_logging

TOKEN = "tok_3f9a8b7c6d5e4f3a2b1c"


@pytest.fixture
def json_lines() -> Iterator[io.StringIO]:
    saved = logging.getLogger().handlers[:], logging.getLogger().level
    setup_logging("info", "json")
    handler = logging.getLogger().handlers[0]
    assert isinstance(handler, logging.StreamHandler)
    buffer = io.StringIO()
    handler.setStream(buffer)
    yield buffer
    root = logging.getLogger()
    root.handlers[:] = saved[0]
    root.setLevel(saved[1])


def parsed(buffer: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in buffer.getvalue().splitlines() if line.strip()]


async def test_one_json_line_per_request_without_query_or_cookie(
    client: httpx.AsyncClient, json_lines: io.StringIO
) -> None:
    response = await client.get(
        f"/healthz?token={TOKEN}",
        headers={"cookie": f"omaha_session={TOKEN}", "authorization": f"Bearer {TOKEN}"},
    )
    assert response.status_code == 200
    lines = [line for line in parsed(json_lines) if line.get("event") == "http.request"]
    assert len(lines) == 1
    line = lines[0]
    assert line["method"] == "GET"
    assert line["path"] == "/healthz"
    assert line["status"] == 200
    assert isinstance(line["duration_ms"], float)
    assert TOKEN not in json_lines.getvalue()


async def test_status_of_a_missing_page_is_logged(
    client: httpx.AsyncClient, json_lines: io.StringIO
) -> None:
    await client.get("/no/such/page")
    (line,) = [line for line in parsed(json_lines) if line.get("event") == "http.request"]
    assert (line["path"], line["status"]) == ("/no/such/page", 404)


def test_websocket_connect_and_disconnect_lines(json_lines: io.StringIO) -> None:
    log_ws_event("connect", table_id="t1", seat=4, player_id="p1")
    log_ws_event("disconnect", table_id="t1", seat=None, code=1001, reason="going away")
    connect, disconnect = parsed(json_lines)
    assert connect["event"] == "ws.connect"
    assert (connect["table"], connect["seat"], connect["player"]) == ("t1", 4, "p1")
    assert disconnect["event"] == "ws.disconnect"
    assert (disconnect["seat"], disconnect["code"]) == (None, 1001)
    assert "spectator" in str(disconnect["msg"])


def test_secret_fields_are_redacted(json_lines: io.StringIO) -> None:
    logging.getLogger("omaha.test").info(
        "careless", extra={"token": TOKEN, "hole_cards": "AsKsQsJs", "deck": "2c3c4c", "seat": 1}
    )
    (line,) = parsed(json_lines)
    assert line["token"] == line["hole_cards"] == line["deck"] == "[redacted]"
    assert line["seat"] == 1
    text = json_lines.getvalue()
    assert TOKEN not in text and "AsKsQsJs" not in text and "2c3c4c" not in text


def test_text_format_is_one_readable_line(capsys: pytest.CaptureFixture[str]) -> None:
    saved = logging.getLogger().handlers[:]
    try:
        setup_logging("info", "text")
        log_ws_event("connect", table_id="t7", seat=2)
    finally:
        logging.getLogger().handlers[:] = saved
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "websocket connect table t7 seat 2" in err


def test_debug_is_for_our_loggers_unless_a_third_party_one_is_named() -> None:
    saved = logging.getLogger().handlers[:], logging.getLogger().level
    try:
        setup_logging("debug", "text")
        assert logging.getLogger("omaha.tables").isEnabledFor(logging.DEBUG)
        for name in ("aiosqlite", "uvicorn.error", "websockets.client", "sqlalchemy.engine"):
            assert not logging.getLogger(name).isEnabledFor(logging.DEBUG), name
        setup_logging("debug", "text", ["aiosqlite"])
        assert logging.getLogger("aiosqlite").isEnabledFor(logging.DEBUG)
    finally:
        logging.getLogger().handlers[:] = saved[0]
        logging.getLogger().setLevel(saved[1])
        for name in ("omaha", "aiosqlite"):
            logging.getLogger(name).setLevel(logging.NOTSET)


def test_secrets_are_cut_from_message_text(json_lines: io.StringIO) -> None:
    log = logging.getLogger("omaha.test")
    log.info("< cookie: omaha_session=%s; other=1", TOKEN)
    log.info("Cookie: __Host-omaha_session=%s", TOKEN)
    log.info("authorization: Bearer %s", TOKEN)
    log.info("GET /x?a=1&token=%s", TOKEN)
    assert TOKEN not in json_lines.getvalue()
    assert json_lines.getvalue().count("[redacted]") == 4
