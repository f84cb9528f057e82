"""Settle-up and the ledger lines: known answers, and for random evenings the payments square
every net in the fewest payments (checked against a brute-force search)."""

from __future__ import annotations

import itertools
import random

import pytest

from app.tables.ledger import Payment, ledger_lines, people_nets, settle_up
from app.tables.store_protocol import LedgerTotal


def squared(nets: dict[str, int], payments: list[Payment]) -> bool:
    left = dict(nets)
    for p in payments:
        assert p.amount > 0 and p.payer != p.payee
        left[p.payer] += p.amount
        left[p.payee] -= p.amount
    return all(v == 0 for v in left.values())


def fewest(nets: dict[str, int]) -> int:
    """Brute force: players with a non-zero net minus the most zero-sum groups."""
    values = [v for v in nets.values() if v]
    best = 0

    def split(rest: list[int], groups: int) -> None:
        nonlocal best
        if not rest:
            best = max(best, groups)
            return
        first, others = rest[0], rest[1:]
        for k in range(len(others) + 1):
            for combo in itertools.combinations(range(len(others)), k):
                if first + sum(others[i] for i in combo) == 0:
                    split([v for i, v in enumerate(others) if i not in combo], groups + 1)

    split(values, 0)
    return len(values) - best


def test_everyone_even_pays_nobody() -> None:
    assert settle_up({"alice": 0, "bob": 0, "carol": 0}) == []
    assert settle_up({}) == []


def test_one_big_winner_is_paid_by_everyone_else() -> None:
    nets = {"alice": 150, "bob": -50, "carol": -60, "dave": -40}
    payments = settle_up(nets)
    assert payments == [
        Payment("carol", "alice", 60),
        Payment("bob", "alice", 50),
        Payment("dave", "alice", 40),
    ]


def test_many_small_ones_pair_off_where_they_can() -> None:
    # Three pairs that cancel and a triple: 9 players, 4 groups -> 5 payments, not 8.
    nets = {"a": 5, "b": -5, "c": 7, "d": -7, "e": 3, "f": -3, "g": 4, "h": -1, "i": -3}
    payments = settle_up(nets)
    assert squared(nets, payments)
    assert len(payments) == 5 == fewest(nets)
    assert Payment("b", "a", 5) in payments and Payment("d", "c", 7) in payments


def test_nets_that_do_not_add_up_are_refused() -> None:
    with pytest.raises(ValueError, match="zero"):
        settle_up({"a": 5, "b": -4})


def test_random_evenings_settle_in_the_fewest_payments() -> None:
    rng = random.Random(13)
    for _ in range(150):
        n = rng.randint(2, 8)
        values = [rng.choice([0, rng.randint(-40, 40), 10, -10]) for _ in range(n - 1)]
        values.append(-sum(values))
        nets = {f"p{i}": v for i, v in enumerate(values)}
        payments = settle_up(nets)
        assert squared(nets, payments)
        assert len(payments) == fewest(nets) <= n - 1


def test_many_players_still_settle_within_players_minus_one() -> None:
    rng = random.Random(14)
    values = [rng.randint(-100, 100) for _ in range(29)]
    values.append(-sum(values))
    nets = {f"p{i}": v for i, v in enumerate(values)}
    payments = settle_up(nets)
    assert squared(nets, payments) and len(payments) <= len(nets) - 1


def test_ledger_lines_net_and_in_play() -> None:
    totals = [
        LedgerTotal("a", "Alice", False, "buy_in", 200),
        LedgerTotal("a", "Alice", False, "top_up", 50),
        LedgerTotal("b", "Bot B", True, "buy_in", 200),
        LedgerTotal("c", "Carol", False, "buy_in", 100),
        LedgerTotal("c", "Carol", False, "adjustment", -10),
        LedgerTotal("c", "Carol", False, "cash_out", 40),
    ]
    # Alice and the bot are in a hand: 20 and 30 of their chips are in the middle.
    lines = ledger_lines(totals, {"a": (260, 20), "b": (190, 30)})
    by = {line["player_id"]: line for line in lines}
    assert by["a"]["net"] == 260 + 20 - 250
    assert by["b"]["net"] == 190 + 30 - 200 and by["b"]["bot"]
    assert by["c"]["net"] == 40 - 90 and not by["c"]["seated"]
    assert sum(line["net"] for line in lines) == 0
    assert [line["player_id"] for line in lines] == ["a", "b", "c"]  # biggest winner first


def test_practice_bots_are_never_paid_and_never_pay() -> None:
    # The bot won 100: the losers' nets are brought down in proportion (100 and 50 lost,
    # 50 won by Alice: Bob pays 33, Carol 17), the rest is theirs to the bot.
    nets = {"alice": 50, "bob": -100, "carol": -50, "bot": 100}
    settled, left = people_nets(nets, {"bot"})
    assert settled == {"alice": 50, "bob": -33, "carol": -17}
    assert left == {"bob": -67, "carol": -33}
    payments = settle_up(settled)
    assert all("bot" not in (p.payer, p.payee) for p in payments)
    assert squared(settled, payments)
    # The bot lost: the winners' are brought down; nobody pays what the bot lost.
    settled, left = people_nets({"alice": 90, "bob": 30, "carol": -40, "bot": -80}, {"bot"})
    assert settled == {"alice": 30, "bob": 10, "carol": -40} and left == {"alice": 60, "bob": 20}
    # No bot, or a bot even: as before.
    assert people_nets({"a": 5, "b": -5}, set()) == ({"a": 5, "b": -5}, {})
    assert people_nets({"a": 5, "b": -5, "bot": 0}, {"bot"}) == ({"a": 5, "b": -5}, {})
    # Only winners (everything came from the bot): nothing to settle.
    settled, left = people_nets({"a": 5, "b": 7, "bot": -12}, {"bot"})
    assert settled == {"a": 0, "b": 0} and left == {"a": 5, "b": 7}


def test_random_evenings_with_bots_settle_people_only() -> None:
    rng = random.Random(29)
    for _ in range(300):
        values = [rng.randint(-60, 60) for _ in range(rng.randint(1, 7))]
        bots = {f"bot{i}": v for i, v in enumerate(rng.randint(-50, 50) for _ in range(2))}
        bots["bot0"] -= sum(values) + sum(bots.values())
        nets = {f"p{i}": v for i, v in enumerate(values)} | bots
        settled, left = people_nets(nets, set(bots))
        assert set(settled) == {p for p in nets if p not in bots}
        assert sum(settled.values()) == 0
        for p, n in settled.items():
            # within the net, on its side, and the two parts make the net
            assert abs(n) <= abs(nets[p]) and n * nets[p] >= 0
            assert n + left.get(p, 0) == nets[p]
        assert sum(left.values()) == -sum(bots.values())
        assert squared(settled, settle_up(settled))
