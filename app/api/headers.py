"""Security headers on every HTTP response (pure ASGI middleware; WebSockets pass untouched).

The browser client needs nothing but its own origin: no inline script, no CDN, and no inline
style but its own style sheet, allowed by its hash. The strict policy below therefore applies
to every page, every asset, every API answer and every error. The one exception is FastAPI's
interactive API page (`/docs`), whose Swagger UI is an inline script loading from a CDN: it
gets a policy that allows exactly that, and is still refused framing.

Every answer of the JSON API (`/api/...`: sessions, hand records, ledgers, exports, a
tournament's standings as its player sees them) and of `/metrics` is somebody's own, so by
default it carries `Cache-Control: private, no-store` (no shared cache keeps it, nor the
browser's disk): a new endpoint gets it without asking. A route that sets its own
Cache-Control keeps it. Pages and assets set theirs (app/api/assets.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send


def csp(style_hashes: Iterable[str] = ()) -> str:
    """The policy, allowing besides the origin's own files only the inline style elements whose
    SHA-256 is given (the page's own style sheet, inlined by app/api/assets.py)."""
    styles = " ".join(["'self'", *(f"'sha256-{h}'" for h in style_hashes)])
    return (
        f"default-src 'self'; script-src 'self'; style-src {styles}; img-src 'self' data:; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'"
    )


CSP = csp()
#: Swagger UI at /docs: its inline bootstrap script and its CDN, nothing more.
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' https://cdn.jsdelivr.net; img-src 'self' data: https://fastapi.tiangolo.com; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
DOCS_PATHS = frozenset({"/docs", "/docs/oauth2-redirect"})
#: the default of every personal answer (below PERSONAL_PATHS), unless the route set its own
PERSONAL = "private, no-store"
PERSONAL_PATHS = ("/api/", "/metrics")


def personal(path: str) -> bool:
    return path.startswith(PERSONAL_PATHS) or path == "/api"


def security_headers(path: str, policy: str = CSP) -> list[tuple[bytes, bytes]]:
    return [
        (b"content-security-policy", (DOCS_CSP if path in DOCS_PATHS else policy).encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"same-origin"),
        (b"x-frame-options", b"DENY"),  # frame-ancestors for browsers without CSP 2
    ]


class SecurityHeaders:
    """Adds `security_headers` to every `http.response.start`, replacing any same-named one,
    and `PERSONAL` to a personal answer that set no Cache-Control of its own."""

    def __init__(self, app: ASGIApp, policy: str = CSP) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        extra = security_headers(path, self.policy)
        names = {name for name, _ in extra}
        private = personal(path)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
                if private and not any(k.lower() == b"cache-control" for k, _ in headers):
                    headers.append((b"cache-control", PERSONAL.encode()))
                message = {**message, "headers": headers + extra}
            await send(message)

        await self.app(scope, receive, send_with_headers)
