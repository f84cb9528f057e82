"""Done-when 5: a name full of markup shows as text; the CSP header is on every page; no page
has an inline script (or an inline style element)."""

from __future__ import annotations

import re
import urllib.request

from playwright.sync_api import expect

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import calling_station
from tests.e2e.test_games import new_table

EVIL = "<img src=x onerror=alert(1)>"


def test_markup_in_names_is_text(players: PlayerFactory, bots: BotFactory) -> None:
    p = players(EVIL)
    dialogs: list[str] = []
    p.page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    p.join()
    expect(p.page.locator(".me")).to_have_text(EVIL)
    code = new_table(p, name="<script>alert(2)</script>")
    p.page.goto(f"{p.base}/t/{code}")
    bot = bots('"><svg onload=alert(3)>', calling_station)
    bot.start(code, 1, 200)
    p.sit(0)
    expect(p.page.locator(".seat[data-seat='0'] .name")).to_have_text(EVIL)
    expect(p.page.locator(".seat[data-seat='1'] .name")).to_have_text('"><svg onload=alert(3)>')
    expect(p.page.locator(".table-name")).to_have_text("<script>alert(2)</script>")
    assert p.page.locator("#app img, #app script, #app svg[onload]").count() == 0
    p.page.goto(p.base + "/")
    expect(p.page.locator(".t-name").first).to_have_text("<script>alert(2)</script>")
    assert p.page.locator("#app img, #app script").count() == 0
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
        assert "<style" not in page and " style=" not in page
        assert not re.search(r"\son[a-z]+=", page), "no inline event handlers"
