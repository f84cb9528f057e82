"""deal-v1: known answers, an independent re-implementation from docs/fairness.md, uniformity.

The known answers pin the scheme so any other implementation (a player's script, the browser)
can check itself against ours; the re-implementation below is written from the document, not
from app/poker/fairness.py, so a drift between the two fails here.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import random

import pytest

from app.poker.cards import FULL_DECK, cards_str, parse_cards
from app.poker.fairness import (
    FairnessError,
    Opening,
    check_client_seed,
    commit_deal,
    deal_deck,
    merkle_root,
    opening,
    salts,
    seed_commitment,
    verify_opening,
)
from tests.sizes import sample

SEED = bytes(range(32))

# Known answers (deal-v1). Changing any of these changes the scheme: bump its version instead.
KAT_DECK_1 = (
    "3h 9s Jc As 6h Qc 9c 8c 9d Ad 4c 4h 4d 7s Kh Jh Qh 6c 7d Qs Ts Tc 8h 3c 3s Qd "
    "4s 6s Kc Td 8s Kd 2h 8d 5h 5c 2s Jd Ah 9h Js 7h Ac 5d 2c Th 7c 3d 5s 2d Ks 6d"
)
KAT_ROOT_1 = "8e0138404a3b9f0b1a2c365ae3d1262a76004b57808f3e99f916666da8c01337"
KAT_COMMIT_1_0 = "3ed068426ca9543aba71adaafdb817974a1197e77256c071009e726e3070f79a"
KAT_SALT_1_0 = "97c723623464572b3cfe9a39161848f9"
KAT_SEED_HASH = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
KAT_DECK_2 = (
    "2c 8h 8d Qs 2h 5c Kd Kc 9s 6c 9c 5h 4c 8c 3s Qc 9h 4s 2d 4d Td 8s Ac Kh Ks 6h "
    "7c 5d Jd 3c Qd Ad 3d As 6s Jc Tc Qh 7d 7h Jh 2s Th 5s Ah Ts 6d 4h 9d Js 7s 3h"
)


def test_known_answers() -> None:
    deck = deal_deck(SEED, "t-1", 1, ["alice-seed", "", "bob"])
    assert cards_str(deck, " ") == KAT_DECK_1
    s = salts(SEED, "t-1", 1)
    committed = commit_deal(deck, s)
    assert committed.root.hex() == KAT_ROOT_1
    assert committed.commitments[0].hex() == KAT_COMMIT_1_0
    assert s[0].hex() == KAT_SALT_1_0
    assert seed_commitment(SEED) == KAT_SEED_HASH
    assert cards_str(deal_deck(b"\xff" * 32, "9f1c", 123456789, []), " ") == KAT_DECK_2


# ---------------------------------------------------------------- written from docs/fairness.md


def _field(b: bytes) -> bytes:
    return len(b).to_bytes(2, "big") + b


def _spec_deck(seed: bytes, table: str, hand: int, client: list[str]) -> list[str]:
    msg = _field(b"deal-v1/deck") + _field(table.encode()) + hand.to_bytes(8, "big")
    msg += len(client).to_bytes(2, "big") + b"".join(_field(c.encode()) for c in client)
    stream: list[int] = []
    counter = 0

    def word() -> int:
        nonlocal counter
        if not stream:
            block = hmac.new(seed, msg + counter.to_bytes(4, "big"), hashlib.sha256).digest()
            stream.extend(int.from_bytes(block[i : i + 4], "big") for i in range(0, 32, 4))
            counter += 1
        return stream.pop(0)

    cards = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    for i in range(51, 0, -1):
        n = i + 1
        while (w := word()) >= 2**32 - 2**32 % n:
            pass
        j = w % n
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def _spec_root(leaves: list[bytes]) -> bytes:
    if len(leaves) == 1:
        return hashlib.sha256(b"\x00" + leaves[0]).digest()
    k = 1 << (len(leaves) - 1).bit_length() - 1
    return hashlib.sha256(b"\x01" + _spec_root(leaves[:k]) + _spec_root(leaves[k:])).digest()


@pytest.mark.parametrize(
    ("table", "hand", "client"),
    [("t-1", 1, ["alice-seed", "", "bob"]), ("x", 0, []), ("ü-table", 2**40, ["~" * 64])],
)
def test_the_document_and_the_code_agree(table: str, hand: int, client: list[str]) -> None:
    seed = hashlib.sha256(table.encode()).digest()
    deck = deal_deck(seed, table, hand, client)
    assert cards_str(deck, " ").split() == _spec_deck(seed, table, hand, client)
    s = salts(seed, table, hand)
    head = _field(b"deal-v1/salt") + _field(table.encode()) + hand.to_bytes(8, "big")
    assert s == [hmac.new(seed, head + bytes([p]), hashlib.sha256).digest()[:16] for p in range(52)]
    committed = commit_deal(deck, s)
    leaves = [
        hashlib.sha256(b"deal-v1/commit" + bytes([p]) + cards_str([c]).encode() + s[p]).digest()
        for p, c in enumerate(deck)
    ]
    assert list(committed.commitments) == leaves
    assert committed.root == _spec_root(leaves)


def test_client_seeds_change_the_deck_and_their_order_matters() -> None:
    a = deal_deck(SEED, "t", 5, ["a", "b"])
    assert deal_deck(SEED, "t", 5, ["a", "b"]) == a
    assert deal_deck(SEED, "t", 5, ["b", "a"]) != a
    assert deal_deck(SEED, "t", 5, ["a", "c"]) != a
    assert deal_deck(SEED, "t", 6, ["a", "b"]) != a
    assert deal_deck(SEED, "u", 5, ["a", "b"]) != a
    # length prefixes: moving a character between two seeds is a different input
    assert deal_deck(SEED, "t", 5, ["ab", "c"]) != deal_deck(SEED, "t", 5, ["a", "bc"])


def test_openings_verify_and_tampering_is_caught() -> None:
    deck = deal_deck(SEED, "t", 9, ["s"])
    s = salts(SEED, "t", 9)
    committed = commit_deal(deck, s).commitments
    for p in range(52):
        assert verify_opening(committed, opening(deck, s, p))
    good = opening(deck, s, 7)
    other = next(c for c in FULL_DECK if c != good.card)
    assert not verify_opening(committed, Opening(7, other, good.salt))
    assert not verify_opening(committed, Opening(8, good.card, good.salt))
    assert not verify_opening(committed, Opening(7, good.card, bytes(16)))
    assert not verify_opening(committed, Opening(52, good.card, good.salt))
    assert Opening(0, parse_cards("Ah")[0], bytes(16)).to_json()["card"] == "Ah"


def test_the_merkle_root_names_every_commitment() -> None:
    deck = deal_deck(SEED, "t", 3, [])
    s = salts(SEED, "t", 3)
    leaves = commit_deal(deck, s).commitments
    root = merkle_root(leaves)
    for i in (0, 31, 51):
        changed = list(leaves)
        changed[i] = bytes(32)
        assert merkle_root(changed) != root


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(FairnessError):
        deal_deck(b"short", "t", 1, [])
    with pytest.raises(FairnessError):
        deal_deck(SEED, "t", -1, [])
    for bad in ("", "x" * 65, "tab\there", "é"):
        with pytest.raises(FairnessError):
            check_client_seed(bad)
    with pytest.raises(FairnessError):
        commit_deal([0] * 52, salts(SEED, "t", 1))


# ---------------------------------------------------------------- uniformity

# 25,000 decks in `make test` (about 480 per cell; the biased shuffle below, on a quarter of
# that, scores 6,960 against the threshold of 2,830), 100,000 in `make test-full`.
DECKS = sample(25_000, 100_000)
# Chi-squared over the 52 x 52 table "card c at position p": row and column totals are fixed,
# so (52 - 1)^2 = 2,601 degrees of freedom. Threshold: the 99.9th percentile (Wilson–Hilferty),
# about 2,829. The seeds are fixed, so the test is deterministic, not flaky.
DOF = 51 * 51


def _critical(dof: int, z: float = 3.0902) -> float:
    """Wilson–Hilferty: the chi-squared quantile for a standard normal quantile z."""
    return dof * (1 - 2 / (9 * dof) + z * math.sqrt(2 / (9 * dof))) ** 3


def _chi_squared(decks: int, shuffle: object) -> float:
    counts = [[0] * 52 for _ in range(52)]
    for n in range(decks):
        for position, card in enumerate(shuffle(n)):  # type: ignore[operator]
            counts[card][position] += 1
    expected = decks / 52
    return sum((x - expected) ** 2 / expected for row in counts for x in row)


def test_the_shuffle_is_uniform() -> None:
    seed = hashlib.sha256(b"uniformity").digest()
    stat = _chi_squared(DECKS, lambda n: deal_deck(seed, "chi", n, []))
    assert stat < _critical(DOF), f"chi-squared {stat:.0f} over {DOF} dof"


def test_the_uniformity_test_catches_a_biased_shuffle() -> None:
    """The same statistic on the classic wrong shuffle (swap with any position) fails: the
    test above has the power to see a bias of that size."""
    rng = random.Random(1)

    def naive(_: int) -> list[int]:
        deck = list(range(52))
        for i in range(52):
            j = rng.randrange(52)
            deck[i], deck[j] = deck[j], deck[i]
        return deck

    assert _chi_squared(DECKS // 4, naive) > _critical(DOF)
