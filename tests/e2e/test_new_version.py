"""A table page learns on its socket that the server has a new client version (a deploy while
it was open: `client_version`, docs/protocol.md) and reloads itself, at a safe moment: at once
when the viewer has nothing under way, else once their turn is over; once, not in a loop (it
remembers, in this tab, the versions it reloaded for). A client that does not know the message
(an older one) plays on as if it never came."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, Route, WebSocketRoute

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import Player, calling_station
from tests.e2e.play import act_once, wait_for_hand
from tests.e2e.test_games import new_table

#: a version this server never served (its own are 12 hex digits of a hash of the files)
STALE = "0123456789ab"
NEWER = "fedcba987654"
#: each load of the page counted in its tab, and what the page was doing when it left: read
#: at `beforeunload`, which fires inside `location.reload()` itself; `pagehide` comes only once
#: the new page is fetched, and a loaded machine gave the bot time to bring the turn back
#: meanwhile (the old page still reads its socket: the reloaded page resumes that turn)
COUNT_LOADS = """
sessionStorage.setItem('test.loads', String(Number(sessionStorage.getItem('test.loads') || 0) + 1));
addEventListener('beforeunload', () => {
  const o = window.__omaha; const c = o && o.ctrl;
  sessionStorage.setItem('test.left', JSON.stringify({
    turn: !!(c && c.isMyTurn()), pending: !!(c && c.pending), busy: !!(c && c.newVersion.busy()),
    state: (o && o.newVersion) || null }));
});
"""
MY_TURN = "!!(window.__omaha.ctrl.isMyTurn() && !window.__omaha.ctrl.pending)"
NEXT_HAND = "(window.__omaha.ctrl.state.hand?.number ?? 0) > number"


def loads(page: Page) -> int:
    return int(page.evaluate("() => sessionStorage.getItem('test.loads')"))


def left(page: Page) -> Any:
    return json.loads(page.evaluate("() => sessionStorage.getItem('test.left')"))


def rewritten(page: Page, module: str, old: str, new: str) -> None:
    """`module` (js/…) served with `old` replaced by `new` (which must be in it)."""

    def serve(route: Route) -> None:
        body = route.fetch().text()
        assert old in body, (module, old)
        route.fulfill(status=200, content_type="text/javascript; charset=utf-8",
                      body=body.replace(old, new))  # fmt: skip

    page.route(re.compile(rf"/static/[0-9a-f]+/{re.escape(module)}$"), serve)


def looks_stale(page: Page) -> None:
    """The page's modules say they are of version STALE (as a page open across a deploy)."""
    rewritten(page, "js/socket.js", "import.meta.url.match(", f"'/static/{STALE}/'.match(")


def seated_against_a_bot(
    p: Player, bots: BotFactory, before: Callable[[Page], None] | None = None
) -> tuple[Page, Sockets, int]:
    """`p` seated at a new two-seat table against a calling bot, its page's loads counted and
    its sockets relayed (`before(page)`: more routes, before the page opens), a hand dealt:
    the page, its sockets and the hand's number."""
    p.join()
    code = new_table(p, decision_time=0, seats=2)
    page = p.page
    page.add_init_script(COUNT_LOADS)
    if before is not None:
        before(page)
    sockets = Sockets(page)
    p.open(f"/t/{code}")
    bots("Bot", calling_station).start(code, 1, 200)
    p.sit(0)
    return page, sockets, wait_for_hand(p)


class Sockets:
    """The page's table sockets, relayed to the server as they are; `tell` adds a message
    from the server's side, at the moment the test chooses."""

    def __init__(self, page: Page) -> None:
        self.routes: list[WebSocketRoute] = []
        page.route_web_socket(re.compile(r"/ws/tables/"), self._relay)

    def _relay(self, ws: WebSocketRoute) -> None:
        self.routes.append(ws)
        ws.connect_to_server()

    def tell(self, message: dict[str, Any]) -> None:
        self.routes[-1].send(json.dumps(message))


def test_a_stale_page_reloads_once(players: PlayerFactory) -> None:
    p = players("Stella")
    p.join()
    code = new_table(p, decision_time=0, seats=2)
    page = p.page
    urls: list[str] = []
    page.on("websocket", lambda ws: urls.append(ws.url))
    page.add_init_script(COUNT_LOADS)
    looks_stale(page)
    p.open(f"/t/{code}")
    # Told at once (not seated: nothing under way), it reloaded; the reloaded page is as stale
    # (a stale cache between, say), is told again, and stays: one reload, not a loop.
    page.wait_for_function(
        "() => sessionStorage.getItem('test.loads') === '2'"
        " && window.__omaha && window.__omaha.newVersion === 'held'"
    )
    assert loads(page) == 2
    assert left(page) == {"turn": False, "pending": False, "busy": False, "state": "reloading"}
    current = re.search(r"/static/([0-9a-f]+)/", page.content())
    assert current is not None and current.group(1) != STALE
    remembered = json.loads(page.evaluate("() => sessionStorage.getItem('omaha.new-version')"))
    assert (remembered["from"], remembered["to"]) == (STALE, current.group(1))
    assert len(urls) >= 2 and all(f"client={STALE}" in u for u in urls), urls
    # Still a page that plays: it sits.
    p.sit(0)
    assert loads(page) == 2
    assert not p.errors, p.errors


def test_a_new_version_waits_for_the_end_of_the_turn(
    players: PlayerFactory, bots: BotFactory
) -> None:
    p = players("Tess")
    page, sockets, _ = seated_against_a_bot(p, bots)
    page.wait_for_function(f"() => {MY_TURN}")
    sockets.tell({"type": "client_version", "current": NEWER})
    page.wait_for_function("() => window.__omaha.newVersion === 'waiting'")
    # Heard on the viewer's turn: no reload under way (it would be scheduled at once).
    assert p.state("[c.isMyTurn(), c.newVersion.busy(), c.newVersion.timer]") == [True, True, 0]
    assert loads(page) == 1
    # The viewer plays on; the page reloads at the first moment nothing of theirs is under way
    # (after this action, or a later one of theirs should their turn come straight back).
    for _ in range(40):
        page.wait_for_function(f"() => sessionStorage.getItem('test.loads') === '2' || {MY_TURN}")
        if loads(page) == 2:
            break
        act_once(p, keyboard=False)
    assert loads(page) == 2
    assert left(page) == {"turn": False, "pending": False, "busy": False, "state": "reloading"}
    # Told the same again on the reloaded page: it stays.
    p.wait_live()
    page.wait_for_function("() => window.__omaha.ctrl && window.__omaha.ctrl.state")
    page.wait_for_function("() => window.__omaha.ctrl.conn === 'open'")
    assert len(sockets.routes) >= 2
    sockets.tell({"type": "client_version", "current": NEWER})
    page.wait_for_function("() => window.__omaha.newVersion === 'held'")
    assert loads(page) == 2
    assert not p.errors, p.errors


def test_a_client_that_does_not_know_the_message_plays_on(
    players: PlayerFactory, bots: BotFactory
) -> None:
    p = players("Olaf")

    def older(page: Page) -> None:
        # An older client: its controller has no word for `client_version`, which goes down
        # the path of any message it does not know. The server tells it at each connection.
        rewritten(page, "js/table-ctrl.js", "if (m.type === 'client_version')", "if (false)")
        looks_stale(page)

    page, sockets, number = seated_against_a_bot(p, bots, older)
    # Told again mid-hand, at each of the viewer's turns: it plays the hand to its end.
    told = 0
    for _ in range(40):
        page.wait_for_function(f"(number) => {MY_TURN} || {NEXT_HAND}", arg=number)
        if page.evaluate(f"(number) => {NEXT_HAND}", number):
            break
        sockets.tell({"type": "client_version", "current": NEWER})
        told += 1
        act_once(p, keyboard=False)
    assert told >= 2 and page.evaluate(f"(number) => {NEXT_HAND}", number)
    assert page.evaluate("() => window.__omaha.newVersion === undefined")
    assert loads(page) == 1
    assert not p.errors, p.errors
