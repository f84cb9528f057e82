"""The pieces of the browser tests (and of `make screenshots`): a real server process, Debian's
Chromium driven by Playwright, players as browser contexts, and protocol bots that fill the
other seats over real WebSockets.

Nothing downloads a browser: the tests drive Debian's headless build of Chromium,
/usr/bin/chromium-headless-shell (what Playwright itself runs for headless pages: the same
Blink without the browser's own interface, a sixth less of the browser's CPU over the suite), or
/usr/bin/chromium when that is not installed; the benchmarks drive /usr/bin/chromium, as their
figures were measured. `make test` installs both Debian packages when they are missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from playwright.sync_api import (
    Browser,
    BrowserContext,
    Cookie,
    FloatRect,
    JSHandle,
    Locator,
    Page,
    Playwright,
    expect,
    sync_playwright,
)
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from tests.e2e import pool
from tests.servers import free_port
from tests.sizes import BOT_SAMPLES

if TYPE_CHECKING:
    from playwright._impl._api_structures import SetCookieParam  # not in playwright.sync_api

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
HEADLESS_SHELL = os.environ.get("CHROMIUM_HEADLESS_SHELL", "/usr/bin/chromium-headless-shell")
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
#: the page is live: a page the server drew (its deferred modules named in `data-later`,
#: static/js/boot.js) shows an inert picture until the live view has drawn over it, and keys
#: or reads of `window.__omaha` before that find nothing. Every navigation waits for this.
LIVE_PAGE = (
    "() => !document.querySelector('script[data-later]')"
    " || !!(window.__omaha && window.__omaha.drawn)"
)

#: how often a page's `wait_for_function` asks, in ms. Playwright's default asks on every
#: animation frame, which keeps the waiting page drawing at 60 Hz: about a tenth of a core per
#: waiting page, against a fiftieth at 20 ms (measured with an idle table page), for about
#: the same delay (a frame is 16.7 ms). Every wait of the suite's pages gets this default.
POLL_MS = 20
_wait_for_function = Page.wait_for_function


def _polled(
    page: Page, expression: str, *, polling: float | Literal["raf"] | None = POLL_MS, **rest: Any
) -> JSHandle:
    return _wait_for_function(page, expression, polling=polling, **rest)


# a method replaced on the class (mypy forbids that, and sees `self` twice)
Page.wait_for_function = _polled  # type: ignore[method-assign,assignment]


def box(locator: Locator) -> FloatRect:
    """The element's bounding box, which it has when it is shown."""
    rect = locator.bounding_box()
    assert rect is not None, f"{locator} is not shown"
    return rect


_RECTS = """(selectors) => Object.fromEntries(Object.entries(selectors).map(([name, css]) =>
  [name, [...document.querySelectorAll(css)].map((e) => {
    const r = e.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  })]))"""


def rects(page: Page, **selectors: str) -> dict[str, list[FloatRect]]:
    """The boxes of every element each CSS selector matches, all read in one layout. A live
    table redraws between two reads (a hand starts, a notice comes): boxes compared across
    separate reads can disagree by a whole reflow (a chat line's name and text read 127 px
    apart once, in CI)."""
    return cast("dict[str, list[FloatRect]]", page.evaluate(_RECTS, selectors))


def settable(cookies: list[Cookie]) -> list[SetCookieParam]:
    """One context's `cookies()` as another's `add_cookies` takes them (the same person in a
    second browser). Playwright types the two as TypedDicts alike but for the second's
    Optional values (`domain: str | None`), which mypy holds incompatible: the same dicts."""
    return cast("list[SetCookieParam]", cookies)


def chromium_path() -> str | None:
    return CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")


def launch(playwright: Playwright, *flags: str, shell: bool = False) -> Browser:
    """Debian's Chromium, headless; `flags`: more command-line switches (bench/client.py);
    `shell`: its headless shell when installed (the tests)."""
    path = HEADLESS_SHELL if shell and Path(HEADLESS_SHELL).exists() else chromium_path()
    assert path, "Chromium is missing (Debian: apt-get install chromium)"
    return playwright.chromium.launch(
        executable_path=path,
        args=["--no-sandbox", "--disable-background-networking", "--disable-dev-shm-usage", *flags],
        headless=True,
    )


class SharedBrowser:
    """One Playwright driver and one Chromium for the browser modules a worker runs in a row
    (each module's players are browser contexts of their own, closed after each test): a
    driver and a browser cost about a second of CPU to start and stop, forty times a run.
    Stopped before any other test (`stop`, from tests/conftest.py): Playwright's sync API
    keeps an event loop running in this thread while it is started, and the asyncio tests
    need the thread free."""

    def __init__(self) -> None:
        self._driver: Any = None
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None

    def get(self) -> Browser:
        if self._browser is not None and self._browser.is_connected():
            return self._browser
        self.stop()
        self._driver = sync_playwright()
        self._playwright = self._driver.start()
        self._browser = launch(self._playwright, shell=True)
        return self._browser

    def stop(self) -> None:
        browser, driver = self._browser, self._driver
        self._browser = self._playwright = self._driver = None
        pool.POOL.clear()
        if browser is not None:
            with suppress(Exception):  # a browser that crashed is gone already
                browser.close()
        if driver is not None:
            driver.__exit__(None, None, None)


SHARED = SharedBrowser()


@contextmanager
def server(tmp: Path, **env: str) -> Iterator[str]:
    """`python -m app serve` in its own process, on SQLite in `tmp`, on a free port (or on
    `PORT`, to restart a server where its pages will reconnect)."""
    port = int(env.get("PORT") or free_port())
    environ = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "REDIS_"))},
        "DATA_DIR": str(tmp),
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "LOG_LEVEL": "warning",
        "BETWEEN_HANDS": "1.5",
        "BOT_SAMPLES": str(BOT_SAMPLES),
        # Every player and bot of a module's tests comes from 127.0.0.1: the per-address
        # limits (tested in tests/api) would refuse the thirty-first name of a minute, or the
        # sixty-first ledger read (a worker's modules share a server: bots-fill alone reads
        # 56 ledgers in about 35 s, and the review modules read more beside it).
        "SESSIONS_PER_MINUTE": "1000",
        "TABLES_PER_MINUTE": "1000",
        "READS_PER_MINUTE": "10000",
        **env,
    }
    log = (tmp / "server.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "serve"], cwd=ROOT, env=environ, stdout=log, stderr=log
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120  # a bound (a dead process fails at once): a start
        while True:  # is seconds of imports, and a clean clone compiles them at a load of 20+
            try:
                with urllib.request.urlopen(base + "/healthz", timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((tmp / "server.log").read_text()) from None
                time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


class Player:
    """One person: a browser context (own cookie jar) with one page. `kept`: a context kept
    from an earlier test when there is one (tests/e2e/pool.py; only when `options` add
    nothing to the pool's default ones), given back by `release`."""

    def __init__(
        self, browser: Browser, base: str, name: str, *, kept: bool = False, **options: Any
    ) -> None:
        self.base = base
        self.name = name
        if kept:
            options = {**pool.DEFAULT_OPTIONS, **options}
        self.kept = kept and options == pool.DEFAULT_OPTIONS
        taken = pool.POOL.take(browser) if self.kept else None
        if taken is None:
            self.context: BrowserContext = browser.new_context(**options)
            self.page: Page = pool.new_page(self.context)
            self.errors: list[str] = []
            self._watch(self.page, self.errors)
        else:
            self.context, self.page, self.errors = taken

    @staticmethod
    def _watch(page: Page, errors: list[str]) -> None:
        pool.listen(page, "pageerror", lambda e: errors.append(str(e)))
        # Every error the console shows: a clean visit has none (a first visit's session check
        # answers 200 {"session": null}, not a 401).
        pool.listen(page, "console", lambda m: errors.append(m.text) if m.type == "error" else None)

    def fresh_page(self) -> None:
        """Close this player's page for a new one in the same context (the same cookies: still
        signed in), with a new list of errors: cheaper than a new player and its name form,
        for tests that reuse one player."""
        self.page.close()
        self.page = pool.new_page(self.context)
        self.errors = []
        self._watch(self.page, self.errors)

    def open(self, path: str) -> None:
        """Navigate to `path` (on this player's server) and wait until the page is live."""
        self.page.goto(self.base + path)
        self.wait_live()

    def reload(self) -> None:
        self.page.reload()
        self.wait_live()

    def wait_live(self) -> None:
        self.page.wait_for_function(LIVE_PAGE)

    def join(self, path: str = "/") -> None:
        """Open `path` and pick the display name on the page."""
        self.page.goto(self.base + path)
        self.page.fill("input[name=name]", self.name)
        self.page.click("[data-cmd=save-name]")
        # Named: the home page says so; an invite link opens its table.
        self.page.wait_for_selector(".me, .table-page")
        self.wait_live()

    def sit(self, seat: int, buy_in: int | None = None) -> None:
        self.page.click(f"[data-sit='{seat}']")
        if buy_in is not None:
            self.page.fill("input[name=buy_in]", str(buy_in))
        self.page.click("[data-cmd=confirm-sit]")
        expect(self.page.locator(f".seat.mine[data-seat='{seat}']")).to_be_visible()

    def my_cards(self) -> list[str]:
        return cast(
            list[str],
            self.page.locator(".cards.mine .card").evaluate_all(
                "els => els.map(e => e.dataset.card)"
            ),
        )

    def dom_cards(self) -> set[str]:
        """Every card face anywhere in the page's DOM (not only what is on screen)."""
        return set(
            self.page.locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
        )

    def hand_cards(self) -> dict[str, str]:
        """Every card face in the DOM but the last hand's results (a new deck deals the same
        cards again), each with where it stands (its parents' classes), for a failure to say."""
        faces: list[list[str]] = self.page.locator("[data-card]").evaluate_all(
            """els => els.filter((e) => !e.closest('.results.previous')).map((e) => {
                const path = [];
                for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
                  if (p.className) path.unshift(String(p.className).split(' ')[0]);
                }
                return [e.dataset.card, path.join(' > ')];
            })"""
        )
        return dict(faces)

    def state(self, expression: str) -> Any:
        """Read the client's state (`window.__omaha.ctrl`), for waiting on it. The first
        paint is the server's, so the page may show the table before its script has made
        the controller: then wait for it. One round trip to the page when it is there (the
        play loops read the state many times a second, per player)."""
        read = (
            "() => { const o = window.__omaha; const c = o && o.ctrl;"
            f" return c ? [{expression}] : null; }}"
        )
        got = self.page.evaluate(read)
        if got is None:
            self.page.wait_for_function("() => window.__omaha && window.__omaha.ctrl")
            got = self.page.evaluate(read)
        return got[0]

    def my_turn(self) -> bool:
        """It is this player's turn and nothing is on its way to the server."""
        ready = "c && c.isMyTurn() && !c.pending"
        return bool(
            self.page.evaluate(f"() => {{ const c = window.__omaha.ctrl; return !!({ready}); }}")
        )

    def release(self) -> None:
        """The end of this player's test: its context kept for another test's player when it
        can be (`kept`), else closed."""
        if not (self.kept and pool.POOL.give(self.context, self.page, self.errors, self.base)):
            self.close()

    def close(self) -> None:
        # A test's route handlers go first: one still fetching while the page closes would
        # fail on a disposed response, in the teardown of a test that passed.
        with suppress(Exception):
            self.context.unroute_all(behavior="ignoreErrors")
            self.page.unroute_all(behavior="ignoreErrors")
        with suppress(Exception):
            self.context.close()


def create_table(host: Player, **settings: Any) -> str:
    """Create a table through the page's form; returns the code from the new address."""
    page = host.page
    form = page.locator("section.create form")  # the new table's (not the tournament's)
    form.locator("details.more summary").click()
    for key, value in settings.items():
        locator = form.locator(f"[name={key}]")
        kind = locator.evaluate("e => e.tagName + ':' + (e.type || '')")
        if kind.startswith("SELECT"):
            locator.select_option(str(value))
        elif kind.endswith("checkbox"):
            locator.set_checked(bool(value))
        else:
            locator.fill(str(value))
    page.click("[data-cmd=create]")
    page.wait_for_url("**/t/*")
    return page.url.rsplit("/t/", 1)[1]


def screenshot_all(players: list[Player], name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for p in players:
        with suppress(Exception):
            p.page.screenshot(path=str(ARTIFACTS / f"{name}-{p.name}.png"), full_page=True)


class Bot:
    """A player over the protocol (a WebSocket with the same cookie rules as a browser), who
    plays by `policy(legal) -> action dict`, in a thread."""

    def __init__(self, base: str, name: str, policy: Callable[[dict[str, Any]], dict[str, Any]]):
        self.base = base
        self.name = name
        self.policy = policy
        req = urllib.request.Request(
            base + "/api/session",
            data=json.dumps({"name": name}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(req) as r:
            self.player_id = json.load(r)["player_id"]
            cookie = r.headers["set-cookie"].split(";")[0]
        self.cookie = cookie
        self.ws: ClientConnection | None = None
        self.messages: list[dict[str, Any]] = []
        self.thread: threading.Thread | None = None
        self.stop = threading.Event()

    def start(self, code: str, seat: int, buy_in: int) -> None:
        url = self.base.replace("http", "ws", 1) + f"/ws/tables/{code}"
        self.ws = connect(url, origin=Origin(self.base), additional_headers={"Cookie": self.cookie})
        self.ws.send(json.dumps({"type": "sit", "seat": seat, "buy_in": buy_in}))
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        assert self.ws is not None
        done: set[tuple[str, int]] = set()
        while not self.stop.is_set():
            try:
                raw = self.ws.recv(timeout=0.5)
            except TimeoutError:
                continue
            except Exception:
                return
            message = json.loads(raw)
            self.messages.append(message)
            if message.get("type") == "turn" and "legal" in message:
                key = (message["hand"], message["counter"])
                if key in done:
                    continue
                done.add(key)
                try:
                    action = self.policy(message["legal"])
                except Exception:  # a puppet never fed before its test ended: stop quietly
                    return
                with suppress(Exception):
                    self.ws.send(json.dumps({
                        "type": "act", "hand": message["hand"], "counter": message["counter"],
                        **action,
                    }))  # fmt: skip

    def close(self) -> None:
        self.stop.set()
        if self.ws is not None:
            with suppress(Exception):
                self.ws.close()
        if self.thread is not None:
            self.thread.join(5)


def calling_station(legal: dict[str, Any]) -> dict[str, Any]:
    """Checks or calls everything, shows at showdown, agrees to run it twice."""
    actions = legal["actions"]
    if "run-twice" in actions:
        return {"action": "run-twice", "agree": True}
    if "show" in actions:
        return {"action": "show"}
    if "check" in actions:
        return {"action": "check"}
    return {"action": "call"}
