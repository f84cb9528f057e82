"""A table's deals as exported (`GET /api/tables/{code}/deals.json`) and their verification
(`python -m app verify-deals FILE`): pure functions of JSON, no I/O.

The export holds, per table session, the server seed's hash, the seed itself once the session
ended revealed, and per hand the client seeds and the 52 commitments with their Merkle root
(exactly what `hand_started` published). `verify` recomputes each deck and its commitments from
the seeds (docs/fairness.md) and names every difference.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.poker.fairness import (
    SCHEME,
    FairnessError,
    commit_deal,
    deal_deck,
    merkle_root,
    salts,
)

if TYPE_CHECKING:
    from app.tables.fairness import HandDeal

FORMAT = "omaha-deals/1"


def export_session(
    seed_hash: str, seed: bytes | None, hands: Iterable[tuple[str, int, HandDeal]]
) -> dict[str, Any]:
    """One session of the export: `seed` only when it was revealed."""
    return {
        "scheme": SCHEME,
        "seed_hash": seed_hash,
        "seed": seed.hex() if seed is not None else None,
        "hands": [
            {
                "hand": hand_id,
                "number": number,
                "client_seeds": list(deal.client_seeds),
                "commitments": [c.hex() for c in deal.committed.commitments],
                "root": deal.committed.root.hex(),
            }
            for hand_id, number, deal in hands
        ],
    }


@dataclass
class Verdict:
    verified: int = 0  # hands whose deck was recomputed and matched
    unrevealed: int = 0  # hands of sessions whose seed is not revealed (roots checked only)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


class BadExport(ValueError):
    """Not an export of this server's deals."""


def _hex(value: Any, size: int, what: str) -> bytes:
    try:
        data = bytes.fromhex(value) if isinstance(value, str) else b""
    except ValueError:
        data = b""
    if len(data) != size:
        raise BadExport(f"{what} is {size} bytes in hex")
    return data


def verify(export: Any) -> Verdict:
    """Check every hand of an export; raises `BadExport` when it is not one."""
    if not isinstance(export, dict) or export.get("format") != FORMAT:
        raise BadExport(f"not a deals export (its format is {FORMAT!r})")
    table = export.get("table")
    sessions = export.get("sessions")
    if not isinstance(table, str) or not isinstance(sessions, list):
        raise BadExport("an export has a table id and a list of sessions")
    verdict = Verdict()
    for session in sessions:
        if not isinstance(session, dict) or session.get("scheme") != SCHEME:
            raise BadExport(f"a session is of scheme {SCHEME!r}")
        seed_hash = _hex(session.get("seed_hash"), 32, "a seed hash")
        seed = session.get("seed")
        server_seed = None if seed is None else _hex(seed, 32, "a server seed")
        if server_seed is not None and not hmac.compare_digest(
            hashlib.sha256(server_seed).digest(), seed_hash
        ):
            verdict.problems.append(f"session {seed_hash.hex()[:12]}: the seed is not its hash's")
            server_seed = None
        hands = session.get("hands")
        if not isinstance(hands, list):
            raise BadExport("a session has a list of hands")
        for hand in hands:
            _check_hand(verdict, table, server_seed, hand)
    return verdict


def _check_hand(verdict: Verdict, table: str, seed: bytes | None, hand: Any) -> None:
    if not isinstance(hand, dict):
        raise BadExport("a hand is an object")
    number, client = hand.get("number"), hand.get("client_seeds")
    if not isinstance(number, int) or not isinstance(client, list):
        raise BadExport("a hand has a number and its client seeds")
    committed = hand.get("commitments")
    if not isinstance(committed, list) or len(committed) != 52:
        raise BadExport("a hand has 52 commitments")
    leaves = [_hex(c, 32, "a commitment") for c in committed]
    root = _hex(hand.get("root"), 32, "a root")
    if merkle_root(leaves) != root:
        verdict.problems.append(f"hand {number}: the root is not its commitments' Merkle root")
        return
    if seed is None:
        verdict.unrevealed += 1
        return
    try:
        deck = deal_deck(seed, table, number, [str(c) for c in client])
        again = commit_deal(deck, salts(seed, table, number))
    except FairnessError as error:
        verdict.problems.append(f"hand {number}: {error}")
        return
    if list(again.commitments) != leaves:
        wrong = sum(1 for a, b in zip(again.commitments, leaves, strict=True) if a != b)
        verdict.problems.append(
            f"hand {number}: {wrong} commitments differ from the deck the seeds make"
        )
        return
    verdict.verified += 1
