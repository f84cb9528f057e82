"""Request bodies read with orjson: every API route is a `JsonRoute`.

FastAPI reads a JSON body with the standard library's parser, which recurses on Python's own
stack: a body of a few thousand `[` takes it to the recursion limit, where a garbage collection
that starts runs finalizers (asyncio's, SQLAlchemy's) that fail for want of stack, at random.
orjson parses in Rust with a depth limit of its own, and its `JSONDecodeError` is the standard
library's, so FastAPI still answers 422 with a typed `bad_request`. It is stricter too: no
`NaN`, no infinities, no lone surrogates.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

import orjson
from fastapi import Request, Response
from fastapi.routing import APIRoute


class JsonRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = orjson.loads(await self.body())
        return self._json


class JsonRoute(APIRoute):
    """An `APIRoute` whose handler sees a `JsonRequest`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def with_json(request: Request) -> Response:
            return await handler(JsonRequest(request.scope, request.receive))

        return with_json
