"""The contexts kept between tests (tests/e2e/pool.py): a kept one comes back as a new
visitor's, and one a test did something to that cannot be undone is not kept."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Browser

from tests.e2e.harness import Player
from tests.e2e.pool import DEFAULT_OPTIONS, POOL


@pytest.fixture(autouse=True)
def empty_pool() -> None:
    POOL.clear()


def test_a_kept_context_comes_back_as_a_new_visitors(browser: Browser, base: str) -> None:
    first = Player(browser, base, "Kim", kept=True)
    first.join()
    first.page.evaluate("() => { localStorage.x = '1'; sessionStorage.y = '2'; }")
    first.page.evaluate("() => console.error('an error of the first test')")
    assert first.errors == ["an error of the first test"]
    assert first.context.cookies()  # signed in
    context = first.context
    first.release()

    second = Player(browser, base, "Lou", kept=True)
    try:
        assert second.context is context and second.page.url == base + "/healthz"
        assert second.context.cookies() == []
        assert second.page.evaluate("() => [localStorage.length, sessionStorage.length]") == [0, 0]
        assert second.errors == []
        second.join()  # a new visitor: the name form again
        assert "Lou" in second.page.locator(".me").inner_text()
    finally:
        second.close()


UNDOABLE: list[Callable[[Player], object]] = [
    lambda p: p.page.add_init_script("window.planted = 1"),
    lambda p: p.context.add_init_script("window.planted = 1"),
    lambda p: p.page.clock.install(),
    lambda p: p.page.emulate_media(reduced_motion="reduce"),
    lambda p: p.context.new_page(),
]

PROBE = """async () => [innerWidth, innerHeight, navigator.onLine,
    (await navigator.permissions.query({name: 'notifications'})).state]"""


def test_what_a_test_did_that_can_be_undone_is_undone(browser: Browser, base: str) -> None:
    fresh = Player(browser, base, "Ola", **DEFAULT_OPTIONS)
    fresh.open("/")
    as_new = fresh.page.evaluate(PROBE)
    fresh.close()

    p = Player(browser, base, "Pat", kept=True)
    p.open("/")
    heard: list[str] = []
    p.page.on("console", lambda m: heard.append(m.text))
    p.context.on("console", lambda m: heard.append(m.text))
    p.page.route("**/healthz", lambda route: route.fulfill(status=500, body="routed"))
    p.page.set_viewport_size({"width": 375, "height": 667})
    p.context.set_offline(True)
    p.context.grant_permissions(["notifications"])
    changed = p.page.evaluate(PROBE)
    assert [a != b for a, b in zip(changed, as_new, strict=True)] == [True] * 4, changed
    context = p.context
    p.release()

    again = Player(browser, base, "Quinn", kept=True)
    try:
        assert again.context is context  # kept, with what the test did undone
        assert again.page.evaluate(PROBE) == as_new  # the viewport, the network, permissions
        assert again.page.evaluate("() => document.body.innerText").startswith("{")  # /healthz
        heard.clear()
        again.page.evaluate("() => console.log('after')")
        assert heard == []  # the test's listeners are gone
    finally:
        again.close()


@pytest.mark.parametrize("change", UNDOABLE)
def test_a_context_changed_for_good_is_not_kept(
    browser: Browser, base: str, change: Callable[[Player], object]
) -> None:
    p = Player(browser, base, "Max", kept=True)
    context = p.context
    p.open("/")
    change(p)
    p.release()
    assert context.pages == []  # closed
    assert POOL.take(browser) is None


def test_a_context_with_other_options_is_not_kept(browser: Browser, base: str) -> None:
    p = Player(browser, base, "Ned", kept=True, viewport={"width": 375, "height": 667})
    p.open("/")
    p.release()
    assert POOL.take(browser) is None
