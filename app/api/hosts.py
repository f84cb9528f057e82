"""Which Host and Origin the server answers: derived from PUBLIC_URL, never from the request.

A DNS-rebinding page reaches the server under the attacker's own domain name, with a matching
Origin: checking that Origin equals the request's Host proves nothing. So with PUBLIC_URL set
only its host is served; without it, only loopback names and IP literals (which no page can
rebind), the way `make run` and a LAN game by address work.
"""

from __future__ import annotations

import ipaddress

import orjson
from starlette.types import ASGIApp, Receive, Scope, Send

from app.config import Settings

#: paths a monitor or a container health check may ask under any Host (they reveal nothing;
#: /metrics answers its token's bearer only): a scraper on the compose network says app:8000
OPEN_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
_DEFAULT_PORTS = {"http": ":80", "https": ":443"}


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return ""


def _hostname(host: str) -> str | None:
    """The name part of a Host header value, or None when it is malformed."""
    if host.startswith("["):
        end = host.find("]")
        name, rest = host[1:end], host[end + 1 :]
        if end < 0 or (rest and not (rest[0] == ":" and rest[1:].isascii() and rest[1:].isdigit())):
            return None
        return name
    name, _, port = host.partition(":")
    if port and not (port.isascii() and port.isdigit()):
        return None
    return name


def host_allowed(host: str, settings: Settings) -> bool:
    host = host.strip().lower()
    if settings.public_url:
        scheme = settings.public_url.split("://", 1)[0]
        public = settings.public_host or ""
        return host in (public, public + _DEFAULT_PORTS[scheme])
    name = _hostname(host)
    if not name:
        return False
    if name == "localhost":
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def origin_allowed(origin: str, host: str, settings: Settings) -> bool:
    """PUBLIC_URL and ALLOWED_ORIGINS when set, else the same origin as the (checked) Host.
    No Origin: refused (browsers always send one; other clients can send the server's)."""
    origin = origin.rstrip("/").lower()
    if not origin:
        return False
    allowed = list(settings.allowed_origins)
    if settings.public_url:
        allowed.append(settings.public_url)
    if allowed:
        return origin in (o.lower() for o in allowed)
    host = host.lower()
    return bool(host) and origin in (f"http://{host}", f"https://{host}")


class HostCheck:
    """ASGI middleware: a request whose Host is not the public one is refused (HTTP 400
    `bad_host`; a WebSocket upgrade is refused with 403) before any route sees it."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app, self.settings = app, settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or scope.get("path") in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        if host_allowed(_header(scope, b"host"), self.settings):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        body = orjson.dumps(
            {"detail": {"code": "bad_host", "message": "this server does not answer that name"}}
        )
        await send(
            {
                "type": "http.response.start",
                "status": 400,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
