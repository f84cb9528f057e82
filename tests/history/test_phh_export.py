"""PHH exports from every seat replay through the engine, and `python -m app replay`, to the
hand's final stacks."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from app.history.phh import phh_hand, phhs_session
from app.poker import GAMES
from app.poker.phh import loads, loads_all
from tests.history.gen import random_hand

HANDS = 150


@pytest.mark.parametrize("game", list(GAMES))
def test_every_exported_hand_replays_to_the_same_stacks(game: str) -> None:
    rng = random.Random(f"phh-{game}")
    for number in range(1, HANDS + 1):
        stored, hand = random_hand(rng, game, number)
        viewer = rng.choice([None, *hand.players])
        text = phh_hand(stored, viewer)
        exported = loads(text)
        replayed = exported.replay()  # checks finishing_stacks too
        assert tuple(replayed.stacks) == tuple(hand.state.stacks)
        assert exported.metadata["hand"] == number
        assert text.startswith(f"# Friday, hand {stored.at_table}\n")
        assert exported.metadata["players"] == list(hand.names)


def test_a_session_file_replays_on_the_command_line(tmp_path: Path) -> None:
    rng = random.Random(5)
    hands = [random_hand(rng, game, n) for n, game in enumerate(list(GAMES) * 5, start=1)]
    viewer = hands[0][1].players[0]
    text = phhs_session([s for s, _ in hands], viewer)
    assert [key for key, _ in loads_all(text)] == [str(n) for n in range(1, len(hands) + 1)]
    path = tmp_path / "session.phhs"
    path.write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "app", "replay", str(path)],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["hand"] for line in lines] == [str(n) for n in range(1, len(hands) + 1)]
    for line, (_, hand) in zip(lines, hands, strict=True):
        assert line["finishing_stacks"] == list(hand.state.stacks)


def test_a_broken_hand_in_a_session_is_named(tmp_path: Path) -> None:
    stored, _ = random_hand(random.Random(1), "omaha", 1)
    good = phhs_session([stored], None)
    bad = good + '\n\n[2]\nvariant = "PO"\n'
    path = tmp_path / "bad.phhs"
    path.write_text(bad)
    done = subprocess.run(
        [sys.executable, "-m", "app", "replay", str(path)],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 1
    assert "hand [2]" in done.stdout
