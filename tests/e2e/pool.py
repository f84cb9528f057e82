"""Browser contexts kept for the next test's players, so that a new player does not start a
renderer process.

A new player (a context, its page, its first load of the site) costs about 1.4 s of the
machine's CPU (Chromium's, the server's, the driver's), a player given a kept context about
0.9 s (the same join, measured with `/proc/stat` over twelve players each way): most of the
difference is the renderer process a new page starts, which a context kept with its page on
the site does not. A kept context is given back clean: its page on the server's `/healthz`
(a new document), its cookies, local and session storage cleared, the mouse at the corner.

What a test did that can be undone is undone: its listeners removed, its routes unrouted,
the viewport, the network and the permissions set back (`_UNDONE`). A context or page on
which it did what cannot be (an init script, a fake clock, an exposed function, a second
page, media emulation, headers of its own... `_PAGE`, `_CONTEXT`) is marked by the wrappers
below and closed, as is every context of a test that failed or that was made with other
options than the default ones (`DEFAULT_OPTIONS`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from contextlib import suppress
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Browser, BrowserContext, Page

#: the most contexts kept idle (each keeps a renderer process): about the most players one
#: test makes at a time.
KEEP = 6
_MARK = "_omaha_unkept"
_DONE = "_omaha_done"

#: What a test may do to a page or context that the pool cannot undo: Playwright has no
#: removal of an init script, a fake clock, an exposed function or a locator handler.
_PAGE = (
    "add_init_script", "add_locator_handler", "emulate_media", "expose_binding",
    "expose_function", "route_from_har", "route_web_socket", "set_default_navigation_timeout",
    "set_default_timeout", "set_extra_http_headers",
)  # fmt: skip
_CONTEXT = (
    "add_init_script", "expose_binding", "expose_function", "new_cdp_session", "new_page",
    "route_from_har", "route_web_socket", "set_default_navigation_timeout",
    "set_default_timeout", "set_extra_http_headers", "set_geolocation",
)  # fmt: skip
#: What it may do that `Pool.give` undoes: listeners removed, routes unrouted, the viewport,
#: the network and the permissions as a new context has them.
_UNDONE = {Page: ("on", "once", "route", "set_viewport_size"),
           BrowserContext: ("on", "once", "route", "set_offline", "grant_permissions")}  # fmt: skip

# The originals, for the harness's own calls (a player's page, its error listeners) and for
# undoing.
new_page: Callable[[BrowserContext], Page] = BrowserContext.new_page
listen: Callable[..., None] = Page.on
_set_viewport_size = Page.set_viewport_size
_set_offline = BrowserContext.set_offline


def _marking(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def marked(self: Any, *args: Any, **kwargs: Any) -> Any:
        setattr(self, _MARK, True)
        return method(self, *args, **kwargs)

    return marked


def _recording(method: Callable[..., Any]) -> Callable[..., Any]:
    signature = inspect.signature(method)

    @functools.wraps(method)
    def recorded(self: Any, *args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(self, *args, **kwargs).arguments
        done = self.__dict__.setdefault(_DONE, [])
        done.append((method.__name__, bound))
        return method(self, *args, **kwargs)

    return recorded


def _marking_property(prop: property) -> property:
    assert prop.fget is not None
    return property(_marking(prop.fget))


for _cls, _names in ((Page, _PAGE), (BrowserContext, _CONTEXT)):
    for _name in _names:
        setattr(_cls, _name, _marking(getattr(_cls, _name)))
    for _name in _UNDONE[_cls]:
        setattr(_cls, _name, _recording(getattr(_cls, _name)))
    setattr(_cls, "clock", _marking_property(_cls.__dict__["clock"]))  # noqa: B010


def marked(obj: Page | BrowserContext) -> bool:
    return bool(getattr(obj, _MARK, False))


def _undo(obj: Page | BrowserContext) -> None:
    """Undo what `_UNDONE` recorded on `obj` (routes: by `unroute_all`, in `give`)."""
    for name, arguments in reversed(obj.__dict__.pop(_DONE, [])):
        if name in ("on", "once"):
            with suppress(KeyError):  # (a `once` listener already called is gone)
                obj.remove_listener(arguments["event"], arguments["f"])
        elif name == "set_viewport_size" and isinstance(obj, Page):
            _set_viewport_size(obj, DEFAULT_OPTIONS["viewport"])
        elif name == "set_offline" and isinstance(obj, BrowserContext):
            _set_offline(obj, False)
        elif name == "grant_permissions" and isinstance(obj, BrowserContext):
            obj.clear_permissions()


DEFAULT_OPTIONS: dict[str, Any] = {"viewport": {"width": 1280, "height": 860}}


class Pool:
    """Idle contexts with their one page, each on a server's `/healthz`."""

    def __init__(self) -> None:
        self._idle: list[tuple[BrowserContext, Page, list[str]]] = []

    def take(self, browser: Browser) -> tuple[BrowserContext, Page, list[str]] | None:
        """A kept context of `browser` with its page and the page's error list (emptied), or
        None."""
        while self._idle:
            context, page, errors = self._idle.pop()
            if context.browser is browser and browser.is_connected() and not page.is_closed():
                errors.clear()
                return context, page, errors
            with suppress(Exception):
                context.close()
        return None

    def give(self, context: BrowserContext, page: Page, errors: list[str], base: str) -> bool:
        """Keep `context` if nothing was done to it that cannot be undone; False: the caller
        closes it."""
        if marked(context) or marked(page) or page.is_closed() or len(context.pages) != 1:
            return False
        if urlsplit(page.url)[:2] not in (urlsplit(base)[:2], ("about", "")):
            return False  # another origin's storage would stay behind
        try:
            context.unroute_all(behavior="ignoreErrors")
            page.unroute_all(behavior="ignoreErrors")
            _undo(page)
            _undo(context)
            page.goto(base + "/healthz")
            page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
            context.clear_cookies()
            page.mouse.move(0, 0)
        except Exception:
            return False
        self._idle.append((context, page, errors))
        while len(self._idle) > KEEP:
            old = self._idle.pop(0)[0]
            with suppress(Exception):
                old.close()
        return True

    def clear(self) -> None:
        while self._idle:
            with suppress(Exception):
                self._idle.pop()[0].close()


POOL = Pool()
