"""The blind schedule: levels, breaks, where a time falls, presets and the suggestion."""

from __future__ import annotations

import pytest

from app.tournaments.structure import (
    BadSchedule,
    Level,
    Schedule,
    build,
    nice_big_blinds,
    preset,
    suggest,
)


def three_levels() -> Schedule:
    return Schedule(
        (Level(10, 20, minutes=10), Level(15, 30, minutes=10), Level(25, 50, 0, 50, minutes=5)),
        break_every=2,
        break_minutes=5,
    )


def test_periods_put_a_break_after_every_n_levels_but_not_after_the_last() -> None:
    s = three_levels()
    assert s.periods() == [(0, False, 600.0), (1, False, 600.0), (1, True, 300.0),
                           (2, False, 300.0)]  # fmt: skip
    assert s.starts() == [0.0, 600.0, 1500.0]


@pytest.mark.parametrize(
    ("elapsed", "level", "on_break", "remaining", "next_level"),
    [
        (0.0, 0, False, 600.0, 1),
        (599.5, 0, False, 0.5, 1),
        (600.0, 1, False, 600.0, 2),  # a level starts exactly at its time
        (1200.0, 1, True, 300.0, 2),  # the break shows the level before it
        (1499.0, 1, True, 1.0, 2),
        (1500.0, 2, False, 300.0, None),
        (10_000.0, 2, False, None, None),  # the last level lasts for ever
    ],
)
def test_where_a_time_falls(
    elapsed: float, level: int, on_break: bool, remaining: float | None, next_level: int | None
) -> None:
    m = three_levels().at(elapsed)
    assert (m.level, m.on_break, m.remaining, m.next_level) == (
        level, on_break, remaining, next_level)  # fmt: skip


@pytest.mark.parametrize(
    "levels",
    [
        (),
        (Level(30, 20),),  # small blind above the big blind
        (Level(10, 20, ante=2, big_blind_ante=20),),  # both antes
        (Level(10, 20, minutes=0),),
        (Level(10, 20), Level(5, 10)),  # going down
    ],
)
def test_bad_schedules_are_refused(levels: tuple[Level, ...]) -> None:
    with pytest.raises(BadSchedule):
        Schedule(levels)


def test_json_round_trip_and_bad_json() -> None:
    s = three_levels()
    assert Schedule.from_json(s.to_json()) == s
    with pytest.raises(BadSchedule):
        Schedule.from_json({"levels": [{"small_blind": "10", "big_blind": 20}]})
    with pytest.raises(BadSchedule):
        Schedule.from_json({"levels": [{"small_blind": 10}]})


def test_the_nice_ladder_is_even_and_rising() -> None:
    assert nice_big_blinds(2, 100) == [2, 4, 6, 8, 10, 12, 16, 20, 24, 30, 40, 50, 60, 80, 100]
    assert nice_big_blinds(25, 40) == [30, 40]


PRESET_CASES = [("turbo", 60, 5.0), ("regular", 30, 15.0), ("deep", 16, 20.0)]


@pytest.mark.parametrize(("name", "first_bb", "minutes"), PRESET_CASES)
def test_presets(name: str, first_bb: int, minutes: float) -> None:
    s = preset(name, 3000, players=10)
    assert s.levels[0].big_blind == first_bb
    assert s.levels[0].small_blind * 2 == first_bb
    assert {lv.minutes for lv in s.levels} == {minutes}
    assert s.levels[-1].big_blind >= 10 * 3000 // 20  # to the end of any tournament
    assert s.levels[3].big_blind_ante == s.levels[3].big_blind  # big-blind ante from level 4
    assert s.levels[2].big_blind_ante == 0
    assert s.break_every == 4
    classic = preset(name, 3000, ante="classic")
    assert classic.levels[3].ante == max(1, classic.levels[3].big_blind // 8)
    with pytest.raises(BadSchedule):
        preset("hyper", 3000)


def test_turbo_rises_faster_than_regular() -> None:
    turbo, regular = build(3000, stack_in_big_blinds=100, minutes=5, step=2), build(
        3000, stack_in_big_blinds=100, minutes=5, step=1)  # fmt: skip
    assert turbo.levels[4].big_blind > regular.levels[4].big_blind


@pytest.mark.parametrize(("players", "stack", "target"), [(6, 1500, 60), (30, 5000, 240),
                                                          (9, 10_000, 120)])  # fmt: skip
def test_the_suggestion_reaches_the_end_blinds_at_about_the_target_time(
    players: int, stack: int, target: float
) -> None:
    s = suggest(players, stack, target)
    end = players * stack // 20
    reached = next(t for t, lv in zip(s.starts(), s.levels, strict=True) if lv.big_blind >= end)
    assert 0.7 * target * 60 <= reached <= 1.3 * target * 60
    assert s.levels[0].big_blind == max(2, stack // 100) or s.levels[0].big_blind > stack // 100
