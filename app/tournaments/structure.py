"""The blind schedule: levels of small blind, big blind and ante (classic, or a big-blind
ante), minutes per level, a break every N levels; presets and a suggestion; and where a
moment of tournament time falls in it.

Time here is seconds of play: the director counts it (a paused tournament's clock stops), so
this module never reads a clock.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

AnteStyle = Literal["none", "classic", "big_blind"]
PRESETS: tuple[str, ...] = ("turbo", "regular", "deep")


class BadSchedule(ValueError):
    """A schedule that cannot be played (the message says why)."""


@dataclass(frozen=True)
class Level:
    """One level: blinds, an ante for everyone (`ante`) or one the big blind posts for the
    table (`big_blind_ante`), and how long it lasts."""

    small_blind: int
    big_blind: int
    ante: int = 0
    big_blind_ante: int = 0
    minutes: float = 15.0

    def check(self) -> None:
        if not 0 <= self.small_blind <= self.big_blind or self.big_blind < 1:
            raise BadSchedule("a level needs 0 ≤ small blind ≤ big blind and a big blind ≥ 1")
        if self.ante < 0 or self.big_blind_ante < 0:
            raise BadSchedule("an ante is not negative")
        if self.ante and self.big_blind_ante:
            raise BadSchedule("a level has an ante for everyone or a big-blind ante, not both")
        if not (self.minutes > 0 and math.isfinite(self.minutes)):
            raise BadSchedule("a level lasts a positive number of minutes")

    @property
    def seconds(self) -> float:
        return self.minutes * 60.0

    def to_json(self) -> dict[str, int | float]:
        return {
            "small_blind": self.small_blind,
            "big_blind": self.big_blind,
            "ante": self.ante,
            "big_blind_ante": self.big_blind_ante,
            "minutes": self.minutes,
        }


@dataclass(frozen=True)
class Moment:
    """Where a tournament time falls: the level in force (the last one once the schedule
    runs out), whether it is a break, and the seconds until the next change (None: never)."""

    level: int
    on_break: bool
    remaining: float | None
    next_level: int | None


@dataclass(frozen=True)
class Schedule:
    levels: tuple[Level, ...]
    break_every: int = 0  # a break after every N levels; 0: none
    break_minutes: float = 0.0

    def __post_init__(self) -> None:
        if not self.levels:
            raise BadSchedule("a schedule has at least one level")
        for level in self.levels:
            level.check()
        for before, after in zip(self.levels, self.levels[1:], strict=False):
            if after.big_blind < before.big_blind:
                raise BadSchedule("the big blind never goes down from one level to the next")
        if self.break_every < 0 or self.break_minutes < 0:
            raise BadSchedule("breaks are every N ≥ 0 levels and last ≥ 0 minutes")
        if self.break_every and not self.break_minutes > 0:
            raise BadSchedule("a break lasts a positive number of minutes")

    def periods(self) -> list[tuple[int, bool, float]]:
        """(level, is a break, seconds) in order: level 0, level 1, ... with the breaks after
        every `break_every` levels (none after the last level)."""
        out: list[tuple[int, bool, float]] = []
        for i, level in enumerate(self.levels):
            out.append((i, False, level.seconds))
            last = i == len(self.levels) - 1
            if self.break_every and (i + 1) % self.break_every == 0 and not last:
                out.append((i, True, self.break_minutes * 60.0))
        return out

    def starts(self) -> list[float]:
        """The tournament time at which each level starts."""
        out: list[float] = []
        t = 0.0
        for _, on_break, seconds in self.periods():
            if not on_break:
                out.append(t)
            t += seconds
        return out

    def at(self, elapsed: float) -> Moment:
        """The level (or break) in force `elapsed` seconds into the tournament. A break
        belongs to the level before it (its blinds are shown; no hand is dealt)."""
        t = 0.0
        periods = self.periods()
        for k, (level, on_break, seconds) in enumerate(periods):
            if elapsed < t + seconds:
                following = periods[k + 1 :]
                nxt = next((lv for lv, brk, _ in following if not brk), None)
                return Moment(level, on_break, t + seconds - elapsed, nxt)
            t += seconds
        return Moment(len(self.levels) - 1, False, None, None)

    def to_json(self) -> dict[str, object]:
        return {
            "levels": [level.to_json() for level in self.levels],
            "break_every": self.break_every,
            "break_minutes": self.break_minutes,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Schedule:
        raw = data.get("levels")
        if not isinstance(raw, list):
            raise BadSchedule("levels is a list")
        levels = []
        for item in raw:
            if not isinstance(item, dict):
                raise BadSchedule("a level is an object")
            try:
                levels.append(
                    Level(
                        small_blind=_whole(item["small_blind"]),
                        big_blind=_whole(item["big_blind"]),
                        ante=_whole(item.get("ante", 0)),
                        big_blind_ante=_whole(item.get("big_blind_ante", 0)),
                        minutes=_number(item.get("minutes", 15)),
                    )
                )
            except KeyError as missing:
                raise BadSchedule(f"a level needs {missing.args[0]}") from None
        return cls(
            tuple(levels),
            _whole(data.get("break_every", 0)),
            _number(data.get("break_minutes", 0)),
        )


def _whole(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadSchedule("amounts and counts are whole numbers")
    return value


def _number(value: object) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise BadSchedule("minutes are a number")
    return float(value)


# ----------------------------------------------------------------------------- presets
#: "nice" big blinds: even (the small blind is half), 1-1.2-1.6-2-2.4-3-4-5-6-8 per decade
_MANTISSAS = (10, 12, 16, 20, 24, 30, 40, 50, 60, 80)


def nice_big_blinds(smallest: int, largest: int) -> list[int]:
    """The even "nice" amounts from the first at or above `smallest` to the first at or
    above `largest`."""
    out: list[int] = []
    scale = 1
    while True:
        for m in _MANTISSAS:
            value, fraction = divmod(m * scale, 10)
            if fraction or value < 2 or value % 2 or value < smallest:
                continue
            out.append(value)
            if value >= largest:
                return out
        scale *= 10


#: per preset: starting stack in big blinds, minutes per level, steps of the ladder per level
_PRESET: dict[str, tuple[int, float, int]] = {
    "turbo": (50, 5.0, 2),
    "regular": (100, 15.0, 1),
    "deep": (200, 20.0, 1),
}


def build(
    starting_stack: int,
    *,
    stack_in_big_blinds: int,
    minutes: float,
    step: int,
    players: int = 10,
    ante: AnteStyle = "big_blind",
    ante_from: int = 3,
    break_every: int = 4,
    break_minutes: float = 10.0,
) -> Schedule:
    """A schedule whose first big blind is `starting_stack / stack_in_big_blinds`, rising
    `step` rungs of the nice ladder per level, until the big blind is a twentieth of all the
    chips of `players` (a tournament is over long before); antes from level `ante_from`
    (0-based): classic an eighth of the big blind, a big-blind ante equal to it."""
    if starting_stack < 2 or stack_in_big_blinds < 1 or step < 1 or players < 2:
        raise BadSchedule("a schedule needs a stack ≥ 2, ≥ 1 big blind and ≥ 2 players")
    first = max(2, starting_stack // stack_in_big_blinds)
    last = max(first, players * starting_stack // 20)
    ladder = nice_big_blinds(first, last)[::step]
    levels = []
    for i, bb in enumerate(ladder):
        a = bba = 0
        if i >= ante_from and ante == "classic":
            a = max(1, bb // 8)
        elif i >= ante_from and ante == "big_blind":
            bba = bb
        levels.append(Level(bb // 2, bb, a, bba, minutes))
    return Schedule(tuple(levels), break_every, break_minutes if break_every else 0.0)


def preset(
    name: str, starting_stack: int, *, players: int = 10, ante: AnteStyle = "big_blind"
) -> Schedule:
    """The turbo, regular or deep structure for a starting stack."""
    if name not in _PRESET:
        raise BadSchedule(f"the presets are {', '.join(PRESETS)}")
    bbs, minutes, step = _PRESET[name]
    return build(starting_stack, stack_in_big_blinds=bbs, minutes=minutes, step=step,
                 players=players, ante=ante)  # fmt: skip


def suggest(
    players: int, starting_stack: int, target_minutes: float, *, ante: AnteStyle = "big_blind"
) -> Schedule:
    """A schedule for a field of `players` starting with `starting_stack` that should end in
    about `target_minutes`: 100 big blinds to start, and the level length chosen so that the
    big blind reaches a twentieth of all the chips (one player's stack is then a few big
    blinds: the last hands are all in) at the target time."""
    if players < 2 or starting_stack < 2 or not target_minutes > 0:
        raise BadSchedule("suggest needs ≥ 2 players, a stack ≥ 2 and a positive length")
    first = max(2, starting_stack // 100)
    end = max(first, players * starting_stack // 20)
    rungs = len(nice_big_blinds(first, end)) - 1
    minutes = max(1.0, round(target_minutes / max(1, rungs)))
    return build(starting_stack, stack_in_big_blinds=100, minutes=minutes, step=1,
                 players=players * 4, ante=ante, break_every=0)  # fmt: skip


def custom(levels: Sequence[Level], break_every: int = 0, break_minutes: float = 0.0) -> Schedule:
    return Schedule(tuple(levels), break_every, break_minutes)
