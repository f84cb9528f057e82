"""Untrusted JSON is parsed off Python's stack (orjson), REST bodies and socket messages alike.

The standard library's parser recurses on Python's stack; a collection that starts at the
bottom of a deeply nested text runs finalizers that fail there, at random (the hostile-socket
test did, once, in CI). `under_collection_stress` makes that certain: a collection at every
allocation, each leaving a cycle whose finalizer compares, and every unraisable error counted.
"""

from __future__ import annotations

import gc
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

import httpx
import pytest
from fastapi.routing import APIRoute
from starlette.routing import BaseRoute
from starlette.types import Message

from app.api.bodies import JsonRequest, JsonRoute
from app.api.ws import message_ref
from app.config import Settings
from app.main import create_app

DEEP = "[" * 5000 + "]" * 5000  # 10,000 bytes: under every size limit


class _Finalized:
    def __init__(self) -> None:
        self.cycle = self
        self.kind = "x"

    def __del__(self) -> None:
        if self.kind == "y":  # a comparison: needs stack
            raise AssertionError


@contextmanager
def under_collection_stress() -> Iterator[list[Any]]:
    # A bound built-in as the hook: no Python frame of its own, so it records even at the
    # bottom of the stack (a Python hook fails there too, and only prints).
    unraisable: list[Any] = []

    def collection(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            _Finalized()

    thresholds, before = gc.get_threshold(), sys.unraisablehook
    gc.collect()
    gc.callbacks.append(collection)
    sys.unraisablehook = unraisable.append
    gc.set_threshold(1)
    try:
        yield unraisable
    finally:
        gc.set_threshold(*thresholds)
        sys.unraisablehook = before
        gc.callbacks.remove(collection)
        gc.collect()


def _parse(loads: Callable[[str], Any]) -> list[Any]:
    with under_collection_stress() as unraisable, suppress(Exception):
        loads(DEEP)
    return unraisable


def test_the_harness_catches_the_standard_librarys_parser() -> None:
    assert _parse(json.loads), "no finalizer failed: the harness shows nothing"


def test_a_socket_messages_id_is_read_off_the_stack() -> None:
    assert _parse(lambda text: message_ref(text, 65_536)) == []
    assert message_ref('{"type": "sit", "id": 7}', 65_536) == 7
    assert message_ref(DEEP, 65_536) is None


async def test_a_rest_body_is_read_off_the_stack() -> None:
    async def receive(body: bytes) -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    async def read(body: bytes) -> Any:
        request = JsonRequest({"type": "http", "headers": []}, lambda: receive(body))
        return await request.json()

    assert await read(b'{"a": [1, 2]}') == {"a": [1, 2]}
    # orjson's JSONDecodeError is the standard library's: FastAPI answers it with a 422
    with under_collection_stress() as unraisable, pytest.raises(json.JSONDecodeError):
        await read(DEEP.encode())
    assert unraisable == []


def _api_routes(routes: list[BaseRoute]) -> Iterator[APIRoute]:
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        included = getattr(route, "original_router", None)  # FastAPI keeps included routers
        if included is not None:
            yield from _api_routes(included.routes)


def test_every_route_of_the_app_reads_bodies_with_orjson(settings: Settings) -> None:
    routes = list(_api_routes(create_app(settings).routes))
    assert len(routes) > 40
    plain = [r.path for r in routes if not isinstance(r, JsonRoute)]
    assert plain == []


async def test_a_deeply_nested_body_gets_a_typed_422(client: httpx.AsyncClient) -> None:
    await client.post("/api/session", json={"name": "host"})
    r = await client.post(
        "/api/tables", content=DEEP.encode(), headers={"content-type": "application/json"}
    )
    assert r.status_code == 422, r.text
    assert r.json()["detail"]["code"] == "bad_request"
    assert (await client.get("/api/tables")).json() == []
