"""The browser client's files: served compressed, cacheable forever under a versioned URL.

At start-up every file of `static/` is read once, gzipped once (when that makes it smaller)
and given one version: a hash of all of them. The page carries its style sheet inline (allowed
by its hash in the Content-Security-Policy, app/api/headers.py), so its first paint waits for
no other request: the rules of a table's first view (`app.css`). The rest (`more.css`) the
pages of other addresses link, and a table page links it with the first part that needs it.
The page (`index.html`, served at `/`, at every invite link `/t/{code}` and every hand link
`/h/{number}`) names its assets under `/static/<version>/...` and preloads every module its
own modules import (`{{modulepreload}}`, with those its address needs: `PAGES`); the rest a
page fetches by a dynamic `import()` when it needs them (static/js/lazy.js). The ES modules
import each other by relative paths, so they stay under the same version without rewriting.
A changed file changes the version, so a browser never mixes old and new modules. A table
page that the server drew (app/api/first_paint.py) names only the boot module, with the
others it needs in its `data-later`: it fetches them once the drawing is on screen
(`drawn_page_source`).

- `/static/<current version>/<path>`: `Cache-Control: public, max-age=31536000, immutable`;
- an older version's URL still gets the current file, `no-cache` (a page that is loading
  while the server restarts still loads). A table page open across a restart would then get
  its parts loaded on demand in the new version, beside its older modules: it names its
  version on its socket and reloads when the server has another (app/api/client_version.py);
- the page itself: `no-cache` (revalidated with its ETag each time, so a new version is seen
  at once).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

import orjson
from fastapi import APIRouter, Request, Response

from app.api.bodies import JsonRoute
from app.api.table_page import MARK, PAINT_MARK, boot_data, page_with
from app.tables.labels import client_words

PAGE = "index.html"
#: the page's style sheet, inlined in it (`STYLE_LINK` replaced by a style element)
STYLE = "app.css"
STYLE_LINK = b'<link rel="stylesheet" href="{{static}}/app.css">'
#: the rules of every page but the table's first view: linked after STYLE by the pages of the
#: other addresses; a table page links it when it first draws a part that needs it (lazy.js)
MORE = "more.css"
MORE_LINK = b'<link rel="stylesheet" id="more-css" href="{{static}}/more.css">'
#: the page writes its asset URLs as `{{static}}/app.css`
PLACEHOLDER = b"{{static}}"
#: where the page gets a `<link rel="modulepreload">` for every module its own modules import
#: (statically, at any depth): the browser fetches them all at once instead of one level of
#: imports at a time. A module reached only by a dynamic `import()` is not preloaded: the page
#: fetches it when it needs it (static/js/lazy.js), unless the page's address needs it (PAGES).
PRELOADS = b"{{modulepreload}}"
#: a static import or re-export (`import x from './x.js'`, `export { y } from`, `import './z.js'`),
#: never `import('./x.js')`
IMPORT = re.compile(
    rb"""(?:^|[;}\n])[ \t]*(?:import|export)\s*(?:[\w$*{},\s]*?\s*from\s*)?['"]([^'"]+)['"]"""
)
#: the modules each kind of page (by its address) imports dynamically at once (main.js): its
#: page preloads them with the rest. A table page's are all static imports of main.js.
PAGES: dict[str, tuple[str, ...]] = {
    "table": (),
    "home": ("js/views/home.js", "js/views/past.js", "js/views/tournament-form.js"),
    "hand": ("js/replay.js", "js/views/replay.js"),
    "hands": ("js/views/my-hands.js",),
    "player": ("js/views/stats.js",),
    "signin": ("js/views/past.js",),
    "tournament": (
        "js/tournament-ctrl.js",
        "js/views/tournament.js",
        "js/views/tournament-page.js",
    ),
}
#: the boot module's script element (up to its end) and the view's entry module's
BOOT_SCRIPT = b'<script type="module" async src="{{static}}/js/boot.js"'
MAIN_SCRIPT = b'<script type="module" src="{{static}}/js/main.js"></script>'
IMMUTABLE = "public, max-age=31536000, immutable"
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".txt": "text/plain; charset=utf-8",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
}
COMPRESSIBLE = {".html", ".js", ".mjs", ".css", ".svg", ".json", ".txt"}


@dataclass(frozen=True)
class Asset:
    body: bytes
    gzipped: bytes | None
    media_type: str
    etag: str


def _asset(body: bytes, suffix: str) -> Asset:
    packed = gzip.compress(body, 9, mtime=0) if suffix in COMPRESSIBLE else None
    if packed is not None and len(packed) >= len(body):
        packed = None
    return Asset(
        body,
        packed,
        TYPES.get(suffix, "application/octet-stream"),
        '"' + hashlib.sha256(body).hexdigest()[:20] + '"',
    )


def static_imports(files: dict[str, Asset]) -> dict[str, list[str]]:
    """Each module's static imports, as paths of `files` (relative specifiers resolved)."""
    graph: dict[str, list[str]] = {}
    for rel, asset in files.items():
        if rel.endswith((".js", ".mjs")):
            here = posixpath.dirname(rel)
            found = [posixpath.join(here, m.decode()) for m in IMPORT.findall(asset.body)]
            graph[rel] = [f for f in map(posixpath.normpath, found) if f in files]
    return graph


def reached(graph: dict[str, list[str]], roots: list[str]) -> set[str]:
    """The modules `roots` import, at any depth, with the roots."""
    seen: set[str] = set()
    todo = [r for r in roots if r in graph]
    while todo:
        rel = todo.pop()
        if rel not in seen:
            seen.add(rel)
            todo += graph[rel]
    return seen


def generated() -> dict[str, bytes]:
    """The client's files the server makes, by path: `js/words.js`, the words every page
    draws with (`app.tables.labels.client_words`: one source for the server's first paint
    and the client's views)."""
    words = orjson.dumps(client_words(), option=orjson.OPT_INDENT_2)
    return {
        "js/words.js": b"// Made by the server at start-up from app/tables/labels.py: edit that.\n"
        b"export const WORDS = " + words + b";\n"
    }


class Assets:
    """Every file under `root`, in memory, with its gzip form, and the page; with the files
    the server makes (`made`: path to body), under the same version."""

    def __init__(self, root: Path, made: dict[str, bytes] | None = None) -> None:
        self.files: dict[str, Asset] = {}
        digest = hashlib.sha256()
        paths = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []
        bodies: dict[str, bytes] = {}
        for path in paths:
            rel = path.relative_to(root).as_posix()
            if not (rel.startswith(".") or "/." in rel):
                bodies[rel] = path.read_bytes()
        bodies.update(made or {})
        for rel in sorted(bodies):
            body = bodies[rel]
            digest.update(rel.encode() + b"\0" + body + b"\0")
            self.files[rel] = _asset(body, Path(rel).suffix.lower())
        self.version = digest.hexdigest()[:12]
        page = self.files.pop(PAGE, None)
        text = page.body if page else b"<!doctype html><title>Omaha</title><p>static/ is missing."
        # The style sheet goes into the page: the first paint waits for no other request (it
        # was one more round trip, queued with 33 modules on six connections: ~50 ms of a
        # first load here). The policy allows exactly this style element, by its hash.
        self.style_hashes: list[str] = []
        sheet = self.files.get(STYLE)
        if sheet is not None and STYLE_LINK in text:
            style = b"<style>" + sheet.body + b"</style>"
            self.style_hashes.append(base64.b64encode(hashlib.sha256(sheet.body).digest()).decode())
            # The pages of the other addresses (`PAGES`) link MORE after it: drawn by their
            # modules, they are painted after those came anyway. (Inlined, its hash would be
            # in the policy, which every response of the server carries: 54 bytes each.)
            more = MORE_LINK if MORE in self.files else b""
            others = text.replace(STYLE_LINK, style + more)
            text = text.replace(STYLE_LINK, style)
        else:
            others = text
        # The modules the page's own import (statically, at any depth), but those it names
        # itself (the boot module and its imports, first); for a page of another address, with
        # those its address needs (`PAGES`).
        graph = static_imports(self.files)
        named = [rel for rel in graph if f'{{{{static}}}}/{rel}"'.encode() in text]

        def later(kind: str) -> list[str]:
            wanted = reached(graph, named + list(PAGES[kind]))
            return [f"{{{{static}}}}/{rel}" for rel in graph if rel in wanted and rel not in named]

        def preloaded(kind: str) -> bytes:
            links = "\n  ".join(f'<link rel="modulepreload" href="{url}">' for url in later(kind))
            return (text if kind == "table" else others).replace(PRELOADS, links.encode())

        # A page with the table drawn in it is on screen before any module runs: there the
        # modules wait until it has been painted (boot.js), rather than their requests and
        # their parsing competing with its first frame for the CPU (~40 ms of it on two cores).
        table_page = drawn = preloaded("table")
        if BOOT_SCRIPT in text and MAIN_SCRIPT in text:  # (else: as the others)
            attribute = f' data-later="{" ".join(later("table"))}"'.encode()
            drawn = text.replace(PRELOADS, b"").replace(MAIN_SCRIPT, b"")
            drawn = drawn.replace(BOOT_SCRIPT, BOOT_SCRIPT + attribute)
        version = f"/static/{self.version}".encode()
        # with their marks, where a table page puts its data block and its drawing
        self.page_source = table_page.replace(PLACEHOLDER, version)
        self.drawn_page_source = drawn.replace(PLACEHOLDER, version)
        #: the page of each kind of address, without a data block (`PAGES`)
        self.pages = {
            kind: _asset(
                preloaded(kind)
                .replace(PLACEHOLDER, version)
                .replace(MARK, b"")
                .replace(PAINT_MARK, b""),
                ".html",
            )
            for kind in PAGES
        }
        self.page = self.pages["home"]

    def response(self, request: Request, asset: Asset, cache: str) -> Response:
        headers = {"Cache-Control": cache, "ETag": asset.etag, "Vary": "Accept-Encoding"}
        if request.headers.get("if-none-match") == asset.etag:
            return Response(status_code=304, headers=headers)
        body = asset.body
        if asset.gzipped is not None and "gzip" in request.headers.get("accept-encoding", ""):
            body = asset.gzipped
            headers["Content-Encoding"] = "gzip"
        return Response(body, media_type=asset.media_type, headers=headers)


def router(assets: Assets) -> APIRouter:
    r = APIRouter(include_in_schema=False, route_class=JsonRoute)

    @r.get("/")
    async def home(request: Request) -> Response:
        return assets.response(request, assets.page, "no-cache")

    @r.get("/t/{code}")
    async def table_page(code: str, request: Request) -> Response:
        """An invite link: the client reads the table code from the address. With a session,
        the page carries the viewer's snapshot (`table_page`)."""
        data = await boot_data(request, code)
        if data is not None:
            return page_with(assets.page_source, assets.drawn_page_source, data, request)
        # no session (the page asks for a name), or nothing to draw: the home page's modules too
        return assets.response(request, assets.page, "no-cache")

    @r.get("/h/{number}")
    async def hand_page(number: str, request: Request) -> Response:
        """A hand's replayer: the client reads the hand number from the address."""
        return assets.response(request, assets.pages["hand"], "no-cache")

    @r.get("/t/{code}/h/{number}")
    async def table_hand_page(code: str, number: str, request: Request) -> Response:
        """A hand by the number players say: its table's and its number there."""
        return assets.response(request, assets.pages["hand"], "no-cache")

    @r.get("/hands")
    async def my_hands_page(request: Request) -> Response:
        """ "My hands", the viewer's hands at every table."""
        return assets.response(request, assets.pages["hands"], "no-cache")

    @r.get("/players/{player_id}")
    async def player_page(player_id: str, request: Request) -> Response:
        """A player's statistics over the hands the viewer may review."""
        return assets.response(request, assets.pages["player"], "no-cache")

    @r.get("/signin")
    async def sign_in_page(request: Request) -> Response:
        """A sign-in link's page (its token is in the fragment, which the server never
        sees)."""
        return assets.response(request, assets.pages["signin"], "no-cache")

    @r.get("/tournaments/{code}")
    async def tournament_page(code: str, request: Request) -> Response:
        """A tournament's standings; `/clock`: its big-screen clock."""
        return assets.response(request, assets.pages["tournament"], "no-cache")

    @r.get("/tournaments/{code}/clock")
    async def tournament_clock(code: str, request: Request) -> Response:
        return assets.response(request, assets.pages["tournament"], "no-cache")

    @r.get("/static/{version}/{path:path}")
    async def asset(version: str, path: str, request: Request) -> Response:
        found = assets.files.get(path)
        if found is None:
            return Response("not found", status_code=404, media_type="text/plain")
        cache = IMMUTABLE if version == assets.version else "no-cache"
        return assets.response(request, found, cache)

    return r
