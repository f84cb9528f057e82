"""The rate limiters (app/rate.py) on a fake clock: what each allows, refuses and forgets.
The Redis-shared window is tested against a real Redis in tests/scale/test_rate.py."""

from __future__ import annotations

from app.rate import SlidingWindow, TokenBucket


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_window_allows_its_limit_then_refuses_without_counting() -> None:
    clock = Clock()
    window = SlidingWindow(3, 60.0, clock)
    assert [window.allow("a") for _ in range(5)] == [True, True, True, False, False]
    assert window.allow("b")  # each key its own window
    clock.now += 59.9
    assert not window.allow("a")
    clock.now += 0.1  # the first three stamps are a whole window old: gone
    assert [window.allow("a") for _ in range(4)] == [True, True, True, False]


def test_a_window_slides_stamp_by_stamp() -> None:
    clock = Clock()
    window = SlidingWindow(2, 10.0, clock)
    assert window.allow("a")
    clock.now += 5
    assert window.allow("a")
    clock.now += 5  # the first is 10 s old: one place free, not two
    assert window.allow("a")
    assert not window.allow("a")


def test_checked_and_counted_apart_an_event_counts_only_once_counted() -> None:
    clock = Clock()
    window = SlidingWindow(2, 10.0, clock)
    for _ in range(5):
        assert not window.full("p")  # checked, then not done (a chat message not stored)
    window.count("p")
    window.count("p")
    assert window.full("p")
    assert window.full("p", now=clock.now + 9.99)
    assert not window.full("p", now=clock.now + 10)  # `now` given: the clock is not read


def test_a_window_forgets_keys_with_nothing_in_their_window() -> None:
    clock = Clock()
    window = SlidingWindow(5, 60.0, clock)
    for k in range(1000):
        window.allow(f"10.0.{k // 256}.{k % 256}")
    assert len(window.events) == 1000
    clock.now += 61
    window.allow("10.9.9.9")  # a call after a whole window sweeps the idle keys
    assert list(window.events) == ["10.9.9.9"]


def test_a_bucket_allows_its_burst_then_its_rate() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=2.0, burst=4, clock=clock)
    assert [bucket.take() for _ in range(6)] == [True] * 4 + [False] * 2
    clock.now += 0.5  # one token a half second
    assert bucket.take()
    assert not bucket.take()
    clock.now += 100  # refilled to the burst, not beyond
    assert [bucket.take() for _ in range(5)] == [True] * 4 + [False]
    assert bucket.tokens < 1


def test_a_refused_take_costs_nothing() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=1.0, burst=1, clock=clock)
    assert bucket.take()
    for _ in range(8):
        clock.now += 0.0625
        assert not bucket.take()
    clock.now += 0.5  # 1 s since the last token: refused takes did not push it back
    assert bucket.take()
