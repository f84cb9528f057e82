"""The PokerStars export, read back by an independent parser: the books balance in every
hand of every game, and our own fixtures in the real layout read the same way."""

from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from app.history.pokerstars import export_hand, export_session
from app.history.record import build
from app.poker import GAMES
from tests.history.gen import random_hand
from tests.history.psparse import parse_hand, parse_session

FIXTURES = Path(__file__).parent / "fixtures"
HANDS = 500


@pytest.mark.parametrize("game", list(GAMES))
def test_every_exported_hand_accounts_for_every_chip(game: str) -> None:
    rng = random.Random(f"pokerstars-{game}")
    seen: set[str] = set()
    for number in range(1, HANDS + 1):
        stored, hand = random_hand(rng, game, number)
        state = hand.state
        viewer = rng.choice([None, *hand.players])
        parsed = parse_hand(export_hand(build(stored, viewer, equity=False)))
        parsed.check_books()
        assert parsed.number == number
        # The hand as players name it, by its table and its number there (the header's #N
        # is the server's): the first comment line, after the summary.
        assert parsed.table == "Friday" and parsed.comments[0] == f"Friday, hand {stored.at_table}"
        truth = {hand.names[p]: Decimal(state.stacks[p]) for p in range(state.n)}
        assert parsed.final_stacks() == truth, (number, parsed.final_stacks(), truth)
        if viewer is not None:
            p = hand.players.index(viewer)
            assert parsed.dealt is not None and parsed.dealt[0] == hand.names[p]
        if state.runs == 2:
            seen.add("run twice")
            assert parsed.run_twice and "FIRST RIVER" in parsed.streets
        if state.config.boards == 2 and parsed.boards:
            seen.add("two boards")
            assert len(parsed.boards) == 2 * state.runs
        if len(parsed.collected) > 1:
            seen.add("split")
        if GAMES[game].courchevel and parsed.streets:
            assert parsed.streets[0].endswith("PRE-FLOP")
    assert {"run twice", "two boards", "split"} <= seen


ORDINALS = ("FIRST", "SECOND", "THIRD", "FOURTH")


def check_against_record(record: dict[str, Any], seen: set[str]) -> None:
    """The cases trackers misread, read back and compared with the hand record."""
    text = export_hand(record)
    parsed = parse_hand(text)
    parsed.check_books()
    names = {s["seat"]: s["name"] for s in record["seats"]}
    roles = {s["seat"]: s["roles"] for s in record["seats"]}
    # Antes, the big-blind ante too: `posts the ante N` (what trackers book as an ante).
    antes: dict[str, Decimal] = {}
    for st in record["steps"]:
        if st["type"] == "forced_bet" and (
            st["kind"] == "ante" or (st["kind"] == "dead" and "big blind" in roles[st["seat"]])
        ):
            who = names[st["seat"]]
            antes[who] = antes.get(who, Decimal(0)) + st["amount"]
            seen.add("big-blind ante" if st["kind"] == "dead" else "ante")
    assert parsed.antes == antes
    assert "dead blind" not in text
    # Two boards: a "Split" game, each street once per board, every board as the record's.
    flat = [board for run in record["boards"] for board in run]
    assert parsed.split == (record["boards_per_run"] == 2)
    if len(flat) > 1:
        seen.add("two boards" if record["boards_per_run"] == 2 else "run twice")
        dealt = {k: v for k, v in parsed.street_boards.items() if k}
        for i, board in enumerate(flat):
            if board and ORDINALS[i] in dealt:
                assert board[: len(dealt[ORDINALS[i]])] == dealt[ORDINALS[i]]
        assert [b for b in flat if b] == parsed.boards
    elif flat[0]:
        assert parsed.boards == [flat[0]]
    # An uncontested winner who showed: the show line before the summary, no empty name.
    if sum(not s["folded"] for s in record["seats"]) == 1 and any(
        s["shown"] for s in record["seats"]
    ):
        seen.add("show after a win")
        winner = next(s for s in record["seats"] if not s["folded"])
        assert parsed.shown_after == [winner["name"]]
        assert parsed.shown[winner["name"]] == winner["cards"]
    assert " with \n" not in text and not text.endswith(" with\n")
    # Courchevel: the exposed card, even when the hand ends before the flop.
    if record["courchevel"] and not record["bomb_pot"]:
        for b, board in enumerate(record["boards"][0]):
            key = ORDINALS[b] if record["boards_per_run"] == 2 else ""
            shown = parsed.street_boards.get(key)
            assert (shown[0] if shown else None) == board[0], key
            assert board[0] in parsed.boards[b]
        if not any(len(board) > 1 for board in record["boards"][0]):
            seen.add("courchevel before the flop")


@pytest.mark.parametrize("game", ["omaha", "courchevel-hi-lo"])
def test_the_cases_trackers_misread_follow_the_record(game: str) -> None:
    rng = random.Random(f"trackers-{game}")
    seen: set[str] = set()
    for number in range(1, 400):
        stored, hand = random_hand(rng, game, number)
        check_against_record(build(stored, rng.choice([None, *hand.players]), equity=False), seen)
    expected = {"ante", "big-blind ante", "two boards", "run twice", "show after a win"}
    if game.startswith("courchevel"):
        expected.add("courchevel before the flop")
    assert expected <= seen, expected - seen


def test_layout_of_known_lines() -> None:
    rng = random.Random(7)
    texts = []
    for number in range(1, 400):
        game = ("courchevel-hi-lo", "omaha-hi-lo", "omaha")[number % 3]
        stored, hand = random_hand(rng, game, number)
        texts.append(export_hand(build(stored, hand.players[0], equity=False)))
    every = "\n".join(texts)
    assert "PokerStars Hand #1:  Omaha Hi/Lo " in every
    assert "Table 'Friday' 10-max Seat #" in every
    assert "*** PRE-FLOP *** [" in every
    assert "; LO: " in every and ": shows [" in every and "(HI: " in every
    assert "*** FIRST SHOW DOWN ***" in every and "*** SECOND SHOW DOWN ***" in every
    assert "Hand was run twice" in every and "FIRST Board [" in every
    assert "Uncalled bet (" in every and "from side pot-1" in every
    assert "Total pot " in every and "| Rake 0" in every
    for label in ("Pot Limit (1/2)", "No Limit (1/2)", "Limit (2/4)"):
        assert label in every


def test_a_session_reads_back_hand_by_hand() -> None:
    rng = random.Random(11)
    hands = [random_hand(rng, "big-o", n) for n in range(1, 31)]
    text = export_session(build(s, None, equity=False) for s, _ in hands)
    parsed = parse_session(text)
    assert [p.number for p in parsed] == list(range(1, 31))
    for p, (_, hand) in zip(parsed, hands, strict=True):
        p.check_books()
        assert p.final_stacks() == {
            hand.names[k]: Decimal(hand.state.stacks[k]) for k in range(hand.state.n)
        }


@pytest.mark.parametrize(
    ("name", "finals"),
    [
        ("plo-uncalled", {"Alice": "9.95", "Bob": "9.85", "Carol": "5.40"}),
        ("hilo-split", {"Dan": "78", "Erin": "61", "Finn": "101"}),
        ("plo-run-twice", {"Gus": "200", "Hana": "150"}),
    ],
)
def test_reads_real_layout_fixtures(name: str, finals: dict[str, str]) -> None:
    hand = parse_hand((FIXTURES / f"{name}.txt").read_text())
    hand.check_books()
    assert hand.final_stacks() == {k: Decimal(v) for k, v in finals.items()}


def test_a_hand_without_summary_is_partial() -> None:
    text = (FIXTURES / "hilo-split.txt").read_text().split("*** SUMMARY ***")[0]
    with pytest.raises(AssertionError, match="no summary"):
        parse_hand(text)


def test_an_unknown_game_label_is_refused() -> None:
    text = (FIXTURES / "hilo-split.txt").read_text().replace("Omaha Hi/Lo", "Omaha Hi-Lo")
    with pytest.raises(AssertionError, match="label"):
        parse_hand(text)
