"""The relay's wire format: every entry of its Redis streams is one of the records below, and
`Wire` alone writes and reads them (each field a string in Redis; a record's `TYPE` in
`type`).

A table's in stream (`omaha:table:<id>:in`), read by the table's owner:
`Taken`, `Attach`, `Command`, `Detach`, `Read`.
An incarnation's own stream (`omaha:gateway:<incarnation>:out`), read by it alone: `Hello`,
the entries of one relayed connection (`Message`, `Attached`, `Seated`, `Closed`, numbered
per connection from 1), the answers to its calls (`Answer`, `Refusal`), and the calls of other
processes to it (`Place`, `TournamentCall`).

What a card, a command or an answer could be in (`SEALED`) is sealed with AES-GCM under a key
derived from SECRET_KEY (HKDF-SHA256, its own `info`, as decks are: docs/security.md), with
the entry's type and address (its connection and number, or its reply id) as associated
data: a sealed text opens only as what it was written as, for the connection it was meant for.
"""

from __future__ import annotations

import base64
import os
import re
import types
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Union, get_type_hints

import orjson
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from app.store.decks import derive_key

#: the HKDF `info` of the relay's key (a deck's key does not open a relayed message)
INFO = b"omaha relay v1"


class Malformed(ValueError):
    """An entry this codec cannot read: an unknown type, a missing or bad field, or a sealed
    field that does not open (another SECRET_KEY, or meant for another connection)."""


@dataclass(frozen=True, slots=True)
class Taken:
    """In: `owner` took the table's lease here; the entries after it are that owner's."""

    TYPE: ClassVar[str] = "taken"
    owner: str


@dataclass(frozen=True, slots=True)
class Attach:
    """In: attach connection `conn` of `gateway`, for `owner` (the lease holder the gateway
    saw: no other process applies it), resuming at `stream`/`since` if given."""

    TYPE: ClassVar[str] = "attach"
    conn: str
    gateway: str
    owner: str
    player: str | None
    stream: str | None
    since: int | None


@dataclass(frozen=True, slots=True)
class Command:
    """In: the connection's `n`th command (from 1): the client's validated command `kind`
    with its `data`, answered to the connection with the client's message id `ref`."""

    TYPE: ClassVar[str] = "cmd"
    SEALED: ClassVar[frozenset[str]] = frozenset({"data"})
    conn: str
    n: int
    kind: str
    ref: Any
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Detach:
    """In: the connection ended."""

    TYPE: ClassVar[str] = "detach"
    conn: str


@dataclass(frozen=True, slots=True)
class Read:
    """In: a read (`streams.READS`) of the table for the HTTP API, answered to `reply`."""

    TYPE: ClassVar[str] = "read"
    SEALED: ClassVar[frozenset[str]] = frozenset({"args"})
    reply: str
    gateway: str
    kind: str
    player: str | None
    args: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Hello:
    """Out: an incarnation's first entry (it reads its stream from there)."""

    TYPE: ClassVar[str] = "hello"


@dataclass(frozen=True, slots=True)
class Message:
    """Out: one message for the connection, as its socket sends it."""

    TYPE: ClassVar[str] = "msg"
    SEALED: ClassVar[frozenset[str]] = frozenset({"text"})
    conn: str
    n: int
    text: str


@dataclass(frozen=True, slots=True)
class Attached:
    """Out: the owner attached the connection (after its snapshot or catch-up); its seat."""

    TYPE: ClassVar[str] = "attached"
    conn: str
    n: int
    seat: int | None


@dataclass(frozen=True, slots=True)
class Seated:
    """Out: the connection's player's seat changed (None: watching)."""

    TYPE: ClassVar[str] = "seated"
    conn: str
    n: int
    seat: int | None


@dataclass(frozen=True, slots=True)
class Closed:
    """Out: close the connection (`n` 0: from an owner it is not attached to)."""

    TYPE: ClassVar[str] = "closed"
    conn: str
    n: int
    code: int
    reason: str


@dataclass(frozen=True, slots=True)
class Answer:
    """Out: the result of a call or read."""

    TYPE: ClassVar[str] = "answer"
    SEALED: ClassVar[frozenset[str]] = frozenset({"result"})
    reply: str
    result: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Refusal:
    """Out: a call or read refused, with its typed error."""

    TYPE: ClassVar[str] = "refusal"
    reply: str
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Place:
    """Out, to the chosen process: create a table for `host` here (`app.scale.placement`)."""

    TYPE: ClassVar[str] = "place"
    reply: str
    gateway: str
    host: str
    config: dict[str, Any]


@dataclass(frozen=True, slots=True)
class TournamentCall:
    """Out, to the process directing a tournament: a read or action (`what`) of it (or of
    the clock of the table of code `code`), for `player` (`app.api.tournaments.answer`)."""

    TYPE: ClassVar[str] = "tour"
    reply: str
    gateway: str
    code: str
    what: str
    player: str | None
    name: str


InEntry = Taken | Attach | Command | Detach | Read
#: what one relayed connection receives, numbered per connection
ToConnection = Message | Attached | Seated | Closed
Call = Place | TournamentCall
OutEntry = Hello | ToConnection | Answer | Refusal | Call
Entry = InEntry | OutEntry

_INT = re.compile(r"-?[0-9]{1,18}")


def _int(raw: str) -> int:
    if not _INT.fullmatch(raw):
        raise Malformed(f"not an integer: {raw[:20]!r}")
    return int(raw)


def _optional(read: Callable[[str], Any]) -> Callable[[str], Any]:
    return lambda raw: None if raw == "" else read(raw)


def _json(raw: str) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise Malformed("not JSON") from None


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


@dataclass(frozen=True)
class _Field:
    name: str
    sealed: bool
    write: Callable[[Any], str]
    read: Callable[[str], Any]


def _codec(hint: Any) -> tuple[Callable[[Any], str], Callable[[str], Any]]:
    """How one field's type goes to a string and back."""
    if hint is str:
        return str, str
    if hint is int:
        return str, _int
    is_union = isinstance(hint, types.UnionType) or getattr(hint, "__origin__", None) is Union
    if is_union and type(None) in hint.__args__ and len(hint.__args__) == 2:
        inner = next(a for a in hint.__args__ if a is not type(None))
        write, read = _codec(inner)
        return (lambda value: "" if value is None else write(value)), _optional(read)
    return _dumps, _json  # anything else travels as JSON


def _fields(cls: type) -> tuple[_Field, ...]:
    hints = get_type_hints(cls)
    sealed: frozenset[str] = getattr(cls, "SEALED", frozenset())
    out = []
    for f in fields(cls):
        write, read = _codec(hints[f.name])
        out.append(_Field(f.name, f.name in sealed, write, read))
    return tuple(out)


_TYPES: dict[str, type] = {
    cls.TYPE: cls
    for cls in (Taken, Attach, Command, Detach, Read, Hello, Message, Attached, Seated, Closed,
                Answer, Refusal, Place, TournamentCall)
}  # fmt: skip
_SPECS: dict[type, tuple[_Field, ...]] = {cls: _fields(cls) for cls in _TYPES.values()}


def _bound(kind: str, values: dict[str, Any]) -> bytes:
    """The associated data of a sealed field: the entry's type and its address."""
    address = values.get("conn", values.get("reply", ""))
    return f"{kind}|{address}|{values.get('n', '')}".encode()


def _encode(entry: Entry, seal: Callable[[str, bytes], str] | None) -> dict[str, str]:
    kind = entry.TYPE
    out = {"type": kind}
    spec = _SPECS[type(entry)]
    values = {f.name: getattr(entry, f.name) for f in spec}
    for f in spec:
        text = f.write(values[f.name])
        if f.sealed:
            if seal is None:
                raise ValueError(f"{kind} has sealed fields: encode it with a Wire")
            text = seal(text, _bound(kind, values))
        out[f.name] = text
    return out


def plain(entry: Entry) -> dict[str, str]:
    """An entry with nothing to seal, written without a key (the lease script's `Taken`)."""
    return _encode(entry, None)


class Wire:
    """The one encoder and decoder of relay entries, sealing what `SEALED` names."""

    def __init__(self, key: bytes) -> None:
        self._aead = AESGCM(key)

    @classmethod
    def from_secret(cls, secret: str) -> Wire:
        return cls(derive_key(secret, INFO))

    def encode(self, entry: Entry) -> dict[str, str]:
        return _encode(entry, self._seal)

    def decode(self, raw: dict[str, str]) -> Entry:
        """The entry of a stream's fields; `Malformed` if it is not one this codec wrote."""
        kind = raw.get("type", "")
        cls = _TYPES.get(kind)
        if cls is None:
            raise Malformed(f"unknown entry type {kind[:20]!r}")
        spec = _SPECS[cls]
        values: dict[str, Any] = {}
        for f in spec:
            text = raw.get(f.name)
            if text is None:
                raise Malformed(f"{kind}: no {f.name}")
            if not f.sealed:
                values[f.name] = f.read(text)
        for f in spec:
            if f.sealed:
                values[f.name] = f.read(self._open(raw[f.name], _bound(kind, values)))
        entry: Entry = cls(**values)
        return entry

    def _seal(self, text: str, bound: bytes) -> str:
        nonce = os.urandom(12)
        sealed = self._aead.encrypt(nonce, text.encode(), bound)
        return base64.b64encode(nonce + sealed).decode("ascii")

    def _open(self, text: str, bound: bytes) -> str:
        try:
            raw = base64.b64decode(text, validate=True)
            return self._aead.decrypt(raw[:12], raw[12:], bound).decode()
        except (InvalidTag, ValueError):
            raise Malformed("a sealed field does not open") from None


def message_text(message: dict[str, Any] | str) -> str:
    """A connection's message as its socket sends it (records come serialised already)."""
    return message if isinstance(message, str) else orjson.dumps(message).decode()
