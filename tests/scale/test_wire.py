"""The relay's wire format (app/scale/wire.py): every entry goes through Redis and back as it
was; what could hold a card is sealed, opens only under the same SECRET_KEY and only as what
it was written for (its type, its connection and number); anything else is `Malformed`."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from app.scale import wire
from app.scale.wire import (
    Answer,
    Attach,
    Attached,
    Closed,
    Command,
    Detach,
    Entry,
    Hello,
    Malformed,
    Message,
    Place,
    Read,
    Refusal,
    Seated,
    Taken,
    TournamentCall,
    Wire,
)

CODEC = Wire.from_secret("k" * 40)
HOLE = '{"type":"hand_started","hand":"h1","cards":["Ah","Kd","Qs","Jc"],"seq":7}'
EVERY: list[Entry] = [
    Taken("a@1"),
    Attach("b@2/1", "b@2", "a@1", "p1", "ab12", 40),
    Attach("b@2/2", "b@2", "a@1", None, None, None),
    Command("b@2/1", 3, "act", 17, {"hand": "h1", "counter": 2, "action": "call"}),
    Command("b@2/1", 4, "chat", None, {"text": "nice hand", "name": "Bo"}),
    Detach("b@2/1"),
    Read("b@2/r9", "b@2", "snapshot", "p1", {}),
    Hello(),
    Message("b@2/1", 5, HOLE),
    Attached("b@2/1", 1, 3),
    Seated("b@2/1", 2, None),
    Closed("b@2/1", 6, 1012, "reconnect"),
    Answer("b@2/r9", {"snapshot": HOLE}),
    Refusal("b@2/r9", "unavailable", "try again"),
    Place("b@2/r10", "b@2", "host", {"seats": 6, "game": "omaha"}),
    TournamentCall("b@2/r11", "b@2", "code", "state", None, ""),
]


@pytest.mark.parametrize("entry", EVERY, ids=lambda e: type(e).__name__)
def test_every_entry_goes_through_as_it_was(entry: Entry) -> None:
    fields = CODEC.encode(entry)
    assert all(isinstance(v, str) for v in fields.values())
    assert CODEC.decode(fields) == entry


def test_what_could_hold_a_card_is_sealed() -> None:
    for entry in (Message("c@1/1", 1, HOLE), Answer("c@1/r1", {"snapshot": HOLE}),
                  Command("c@1/1", 1, "chat", 1, {"text": "Ah Kd"})):  # fmt: skip
        text = "".join(CODEC.encode(entry).values())
        assert '"Ah"' not in text and '"cards"' not in text and '"snapshot"' not in text


def opens(fields: dict[str, str], codec: Wire = CODEC) -> bool:
    try:
        codec.decode(fields)
    except Malformed:
        return False
    return True


def test_a_sealed_text_opens_only_for_its_connection_its_number_and_its_key() -> None:
    sent = CODEC.encode(Message("b@2/1", 5, HOLE))
    assert opens(sent)
    assert not opens({**sent, "conn": "b@3/1"})  # another incarnation's connection 1
    assert not opens({**sent, "n": "6"})
    assert not opens({**sent, "type": "answer", "reply": "b@2/1", "result": sent["text"]})
    assert not opens(sent, Wire.from_secret("z" * 40))
    other = CODEC.encode(Message("b@2/2", 5, "{}"))
    assert not opens({**sent, "text": other["text"]})


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"type": "nonsense"},
        {"type": "detach"},
        {"type": "attached", "conn": "c", "n": "one", "seat": ""},
        {"type": "attached", "conn": "c", "n": "1" * 30, "seat": ""},
        {"type": "cmd", "conn": "c", "n": "1", "kind": "act", "ref": "{", "data": "x"},
        {"type": "msg", "conn": "c", "n": "1", "text": "not base64!"},
    ],
)
def test_anything_else_is_malformed(fields: dict[str, Any]) -> None:
    assert not opens(fields)


def test_a_key_free_encoding_is_for_entries_with_nothing_to_seal() -> None:
    assert wire.plain(Taken("a@1")) == {"type": "taken", "owner": "a@1"}
    with pytest.raises(ValueError):
        wire.plain(Message("c@1/1", 1, HOLE))
    assert CODEC.decode(wire.plain(replace(Taken("a@1"), owner="b@2"))) == Taken("b@2")
