"""Done-when 5: a name full of markup shows as text; the CSP header is on every page; no page
has an inline script (or an inline style element)."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import re
import time
import urllib.request

from playwright.sync_api import Dialog, Page, expect
from playwright.sync_api import Error as PlaywrightError

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import calling_station
from tests.e2e.play import hand_number, wait_for_hand
from tests.e2e.test_games import new_table

#: elements a name or a message could have made: any script, and any image but the page's own
#: vendored icons (the reactions' Twemoji SVGs, served from its static files)
MADE = "#app script, #app img:not([src*='/static/'][src*='/vendor/twemoji/'])"

EVIL = "<img src=x onerror=alert(1)>"


def dismissed_dialogs(page: Page) -> list[str]:
    """The messages of the dialogs (an `alert` a name's markup ran) the page opens from now
    on, each dismissed."""
    dialogs: list[str] = []

    def dismiss(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", dismiss)
    return dialogs


def test_markup_in_names_is_text(players: PlayerFactory, bots: BotFactory) -> None:
    p = players(EVIL)
    dialogs = dismissed_dialogs(p.page)
    p.join()
    expect(p.page.locator(".me")).to_have_text(EVIL)
    code = new_table(p, name="<script>alert(2)</script>")
    p.open(f"/t/{code}")
    bot = bots('"><svg onload=alert(3)>', calling_station)
    bot.start(code, 1, 200)
    p.sit(0)
    expect(p.page.locator(".seat[data-seat='0'] .name")).to_have_text(EVIL)
    expect(p.page.locator(".seat[data-seat='1'] .name")).to_have_text('"><svg onload=alert(3)>')
    expect(p.page.locator(".table-name")).to_have_text("<script>alert(2)</script>")
    assert p.page.locator(f"{MADE}, #app svg[onload]").count() == 0
    p.page.goto(p.base + "/")
    expect(p.page.locator(".t-name").first).to_have_text("<script>alert(2)</script>")
    assert p.page.locator(MADE).count() == 0
    assert dialogs == []


def test_security_headers_and_no_inline_script(base: str) -> None:
    pages = ["/", "/t/some-code"]
    with urllib.request.urlopen(base + "/") as r:
        html = r.read().decode()
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', html)
    assert assets, html
    for path in [*pages, *assets, "/api/session", "/healthz", "/no/such/page"]:
        try:
            response = urllib.request.urlopen(base + path)
        except urllib.error.HTTPError as error:
            response = error
        headers = response.headers
        csp = headers["Content-Security-Policy"]
        assert csp and "default-src 'self'" in csp and "script-src 'self';" in csp, path
        assert "frame-ancestors 'none'" in csp and "object-src 'none'" in csp, path
        assert headers["X-Content-Type-Options"] == "nosniff", path
        assert headers["Referrer-Policy"] == "same-origin", path
    for path in pages:
        with urllib.request.urlopen(base + path) as r:
            page = r.read().decode()
        scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", page, re.S)
        assert scripts and all("src=" in attrs and not body.strip() for attrs, body in scripts)
        # one style element, the page's own style sheet, allowed by its hash and nothing else
        styles = re.findall(r"<style>(.*?)</style>", page, re.S)
        digest = base64.b64encode(hashlib.sha256(styles[0].encode()).digest()).decode()
        assert len(styles) == 1 and page.count("<style") == 1 and " style=" not in page
        assert f"style-src 'self' 'sha256-{digest}';" in r.headers["Content-Security-Policy"]
        assert not re.search(r"\son[a-z]+=", page), "no inline event handlers"


# (no "/": it names the failure screenshot's file) `<!--<script>` in a script element would
# swallow its end tag; tests/api/test_table_page.py has the `</script>` name
HOSTILE = "<!--<script>alert(4)<!--"


def test_the_page_draws_from_its_own_snapshot_under_the_strict_policy(
    players: PlayerFactory, bots: BotFactory
) -> None:
    """A table page loaded with a session carries the viewer's snapshot in a JSON data block
    (app/api/table_page.py): allowed by the CSP (no violation), drawn at once, the socket
    resumes after it (no second snapshot, no gap), a hostile name stays text, and a
    spectator's page holds no hole card."""
    p = players(HOSTILE)
    dialogs = dismissed_dialogs(p.page)
    p.join()
    code = new_table(p, decision_time=0)
    p.open(f"/t/{code}")
    bot = bots("Bot", calling_station)
    bot.start(code, 1, 200)
    p.sit(0)
    wait_for_hand(p)
    p.reload()
    assert p.page.locator("head script#boot-data[type='application/json']").count() == 1
    expect(p.page.locator(".seat[data-seat='0'] .name")).to_have_text(HOSTILE)
    expect(p.page.locator(".cards.mine .card")).to_have_count(4)
    # The socket takes over from the page's snapshot: open, and the hands go on without a
    # second snapshot (a gap in `seq` would have closed it and fetched one).
    number = hand_number(p)
    ready = ":is([data-act=check], [data-act=call], [data-act=show]):not([disabled])"
    deadline = time.monotonic() + 30
    while hand_number(p) == number and time.monotonic() < deadline:
        with contextlib.suppress(PlaywrightError):
            p.page.locator(ready).first.click(timeout=500)
    wait_for_hand(p, after=number)
    assert p.state("c.conn") == "open"
    assert p.state("c.socket.snapshots") == 1
    assert p.page.locator(MADE).count() == 0
    watcher = players("Watcher")
    watcher.join(f"/t/{code}")
    watcher.reload()
    assert watcher.page.locator("#boot-data").count() == 1
    expect(watcher.page.locator(".seat[data-seat='0'] .name")).to_have_text(HOSTILE)
    mine = set(p.my_cards())
    assert mine and not (watcher.dom_cards() & mine)
    assert not [e for e in p.errors + watcher.errors if "Content Security Policy" in e]
    assert p.errors == [] and watcher.errors == [] and dialogs == []
