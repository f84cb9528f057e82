"""Decks at rest: sealed with AES-GCM under a key derived from SECRET_KEY (HKDF-SHA256), so a
database dump or backup reveals no card: neither a live hand's deck nor a past one's (which
would show every folded hand for ever).

`SealedDeck` is the column type of `hands.deck`: whoever reads a `HandRow` (the table store,
hand history, tests) gets the deck as a list of card numbers, and every write is sealed. The
stored JSON is `{"v": 1, "n": <nonce>, "c": <ciphertext>}` (base64); a plain list is a deck
stored before encryption and is still read as it is (`seal_legacy_decks` seals those).

The key is process-wide: `use_secret` is called once at start-up with SECRET_KEY. Until then a
random key is used, which only this process can read (tests of the store alone).
"""

from __future__ import annotations

import base64
import logging
import os
from typing import Any

import orjson
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from sqlalchemy import JSON, text
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.types import TypeDecorator

log = logging.getLogger("omaha.store")
INFO = b"omaha deck v1"
_key: AESGCM = AESGCM(os.urandom(32))


def derive_key(secret: str, info: bytes = INFO) -> bytes:
    """A 32-byte key from SECRET_KEY; `info` names what it seals (each use its own key)."""
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info)
    key: bytes = hkdf.derive(secret.encode("utf-8"))
    return key


def use_secret(secret: str) -> None:
    """Seal and open decks with the key derived from this secret from now on."""
    global _key
    _key = AESGCM(derive_key(secret))


def seal(deck: list[int]) -> dict[str, Any]:
    nonce = os.urandom(12)
    data = _key.encrypt(nonce, orjson.dumps(list(deck)), INFO)
    return {
        "v": 1,
        "n": base64.b64encode(nonce).decode(),
        "c": base64.b64encode(data).decode(),
    }


def unseal(value: Any) -> list[int]:
    """The deck from its stored form; a plain list (stored before encryption) as it is.
    Raises `cryptography.exceptions.InvalidTag` under another SECRET_KEY."""
    if isinstance(value, list):
        return [int(card) for card in value]
    nonce, data = base64.b64decode(value["n"]), base64.b64decode(value["c"])
    return [int(card) for card in orjson.loads(_key.decrypt(nonce, data, INFO))]


#: associated data of what else is sealed: a hand's deal (salts, seeds) and a server seed
DEAL_INFO = b"omaha deal v1"


def seal_value(value: Any) -> dict[str, Any]:
    """Any JSON value sealed like a deck (its own associated data: a deck does not open as one)."""
    nonce = os.urandom(12)
    data = _key.encrypt(nonce, orjson.dumps(value), DEAL_INFO)
    return {"v": 1, "n": base64.b64encode(nonce).decode(), "c": base64.b64encode(data).decode()}


def unseal_value(value: dict[str, Any]) -> Any:
    nonce, data = base64.b64decode(value["n"]), base64.b64decode(value["c"])
    return orjson.loads(_key.decrypt(nonce, data, DEAL_INFO))


class Sealed(TypeDecorator[Any]):
    """A JSON column sealed at rest (`seal_value`): a hand's deal, a table's server seed."""

    impl = JSON
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        return None if value is None else seal_value(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> Any:
        return None if value is None else unseal_value(value)


class SealedDeck(TypeDecorator[list[int]]):
    """A deck column: sealed on the way in, opened on the way out."""

    impl = JSON
    cache_ok = True

    def process_bind_param(self, value: list[int] | None, dialect: Dialect) -> Any:
        return None if value is None else seal(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> list[int] | None:
        return None if value is None else unseal(value)


async def seal_legacy_decks(engine: AsyncEngine, batch: int = 500) -> int:
    """Seal the decks stored before encryption (a JSON array in the column). Returns how many."""
    array = (
        "json_typeof(deck) = 'array'"
        if engine.dialect.name == "postgresql"
        else "json_type(deck) = 'array'"
    )
    done = 0
    while True:
        async with engine.begin() as c:
            rows = (
                await c.execute(text(f"SELECT id, deck FROM hands WHERE {array} LIMIT {batch}"))
            ).all()
            for hand_id, raw in rows:
                deck: Any = orjson.loads(raw) if isinstance(raw, str | bytes) else raw
                await c.execute(
                    text("UPDATE hands SET deck = :deck WHERE id = :id"),
                    {"deck": orjson.dumps(seal(deck)).decode(), "id": hand_id},
                )
        done += len(rows)
        if len(rows) < batch:
            break
    if done:
        log.info("sealed %d decks stored before encryption", done)
    return done
