"""Browser fixtures: one Chromium for the browser modules a worker runs in a row, one server
process per worker (a module that needs other settings starts its own), players (browser
contexts) that are screenshotted to tests/artifacts/ when their test fails."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e import pool
from tests.e2e.harness import SHARED, Bot, Player, chromium_path, screenshot_all, server
from tests.servers import missing


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        item.stash[FAILED] = report.failed
    return report


FAILED = pytest.StashKey[bool]()

# `expect` waits on a condition; its bound only says when to give up. Playwright's 5 s, like
# the page's own 30 s for waits, failed on a loaded machine with the condition about to hold.
expect.set_options(timeout=30_000)


# Module scope over a browser shared across modules (`SHARED`): a module that runs on
# another worker, or after other tests, starts it again.
@pytest.fixture(scope="module")
def browser() -> Browser:
    if chromium_path() is None:
        missing("chromium is not installed (Debian: apt-get install chromium)")
    return SHARED.get()


# Session scope: starting `python -m app serve` costs seconds (most of it imports), and every
# test makes its own players and tables, so one server serves every module of a worker.
@pytest.fixture(scope="session")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server(tmp_path_factory.mktemp("e2e")) as url:
        yield url


# A second server, as `base` is, for the modules that play many hands and do not watch the
# pace: it deals 0.1 s after a hand ends (not 1.5 s) and its practice bots act at once. Such a
# module points its players and bots here with its own `base` fixture returning this one.
# A test on it never counts on the pause between hands: a hand's end lasts 0.1 s on the
# page before the next is dealt (the results stay, `.results.previous`).
@pytest.fixture(scope="session")
def quick_base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server(tmp_path_factory.mktemp("e2e-quick"), BETWEEN_HANDS="0.1", BOT_THINK="0") as url:
        yield url


PlayerFactory = Callable[..., Player]


@pytest.fixture
def players(request: pytest.FixtureRequest, browser: Browser, base: str) -> Iterator[PlayerFactory]:
    made: list[Player] = []

    def make(name: str, **options: Any) -> Player:
        options = {**pool.DEFAULT_OPTIONS, **options}
        p = Player(browser, base, name, kept=True, **options)
        made.append(p)
        return p

    yield make
    failed = request.node.stash.get(FAILED, True)  # (no report: the setup failed)
    if failed:
        screenshot_all(made, request.node.name)
    for p in made:
        if failed:
            p.close()
        else:
            p.release()


BotFactory = Callable[..., Bot]


@pytest.fixture
def bots(base: str) -> Iterator[BotFactory]:
    made: list[Bot] = []

    def make(name: str, policy: Callable[[dict[str, Any]], dict[str, Any]]) -> Bot:
        b = Bot(base, name, policy)
        made.append(b)
        return b

    yield make
    for b in made:
        b.close()
