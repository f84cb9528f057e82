"""Every message a client may send, as pydantic models: one discriminated union on `type`.

Strict types (no "5" for 5, no 1.0 for 1), bounded numbers and strings, no extra fields:
anything else is refused with a typed error before it reaches a table.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, TypeAdapter

from app.poker.fairness import MAX_CLIENT_SEED
from app.tables.adjust import REASON_MAX
from app.tables.config import CHAT_MAX, MAX_CHIPS, Reaction

Chips = Annotated[StrictInt, Field(ge=-MAX_CHIPS, le=MAX_CHIPS)]
SeatNo = Annotated[StrictInt, Field(ge=0, le=9)]
Ref = Annotated[StrictInt, Field(ge=0, le=2**53)] | Annotated[str, Field(max_length=64)]
Id = Annotated[str, Field(min_length=1, max_length=64)]


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    #: echoed in the reply (`ok` or `error`), so a client can match answers to requests
    id: Ref | None = None
    type: str

    def command(self) -> dict[str, Any]:
        return self.model_dump(exclude={"type", "id"})


class Ping(Message):
    type: Literal["ping"]


class Sit(Message):
    type: Literal["sit"]
    seat: SeatNo
    buy_in: Chips
    post: StrictBool = False


class TopUp(Message):
    type: Literal["top_up"]
    amount: Chips


class SitOut(Message):
    type: Literal["sit_out"]


class SitIn(Message):
    type: Literal["sit_in"]
    post: StrictBool = False


class Leave(Message):
    type: Literal["leave"]


class Straddle(Message):
    type: Literal["straddle"]
    on: StrictBool = True


class Act(Message):
    type: Literal["act"]
    hand: Id
    counter: Annotated[StrictInt, Field(ge=0, le=10_000)]
    action: Literal["fold", "check", "call", "bet", "raise", "show", "muck", "run-twice"]
    amount: Chips | None = None
    agree: StrictBool | None = None


class Approve(Message):
    type: Literal["approve"]
    player_id: Id


class Refuse(Message):
    type: Literal["refuse"]
    player_id: Id


class CancelRequest(Message):
    type: Literal["cancel_request"]


class Pause(Message):
    type: Literal["pause"]


class Resume(Message):
    type: Literal["resume"]


class SetStakes(Message):
    type: Literal["set_stakes"]
    small_blind: Chips | None = None
    big_blind: Chips | None = None
    big_bet: Chips | None = None
    ante: Chips | None = None
    straddle: StrictBool | None = None
    bomb_pot_every: Annotated[StrictInt, Field(ge=0, le=1000)] | None = None
    bomb_pot_ante: Chips | None = None
    buy_in_min: Chips | None = None
    buy_in_max: Chips | None = None
    run_it_twice: StrictBool | None = None
    rabbit_hunt: StrictBool | None = None


class Remove(Message):
    type: Literal["remove"]
    seat: SeatNo


class Adjust(Message):
    type: Literal["adjust"]
    seat: SeatNo
    amount: Chips
    reason: Annotated[str, Field(max_length=REASON_MAX)] = ""


class Close(Message):
    """The host closes the table: after the current hand everyone is cashed out and every
    connection is closed with 4410."""

    type: Literal["close"]


class TransferHost(Message):
    type: Literal["transfer_host"]
    player_id: Id


class AddBot(Message):
    type: Literal["add_bot"]
    seat: SeatNo
    buy_in: Chips | None = None


class BombPotNext(Message):
    type: Literal["bomb_pot_next"]
    on: StrictBool = True


class SpectatorChat(Message):
    type: Literal["spectator_chat"]
    on: StrictBool


class Chat(Message):
    type: Literal["chat"]
    text: Annotated[str, Field(min_length=1, max_length=CHAT_MAX)]


class React(Message):
    """A seated player's reaction on their seat, by name (REACTIONS), not an emoji."""

    type: Literal["react"]
    reaction: Reaction

    def command(self) -> dict[str, Any]:
        return {"text": self.reaction}  # the table reads it as a chat's text (React(Chat))


class Show(Message):
    type: Literal["show"]
    hand: Id


class RabbitHunt(Message):
    type: Literal["rabbit_hunt"]
    hand: Id


class ShowCards(Message):
    type: Literal["show_cards"]
    hand: Id
    cards: Annotated[list[Annotated[str, Field(min_length=2, max_length=2)]],
                     Field(min_length=1, max_length=6)]  # fmt: skip


class MoreTime(Message):
    type: Literal["more_time"]


class SitOutNext(Message):
    type: Literal["sit_out_next"]
    on: StrictBool = True


class SitOutNextBb(Message):
    type: Literal["sit_out_next_bb"]
    on: StrictBool = True


class SetPreference(Message):
    """A seated player's showdown preferences; a field left out stays as it is."""

    type: Literal["set_preference"]
    auto_muck: StrictBool | None = None
    always_show: StrictBool | None = None


class Seed(Message):
    """A seated player's client seed for the next deals (docs/fairness.md): 1 to 64
    printable ASCII characters (the table says `bad_seed` to anything else)."""

    type: Literal["seed"]
    seed: Annotated[str, Field(min_length=1, max_length=MAX_CLIENT_SEED)]


class RotateSeed(Message):
    """The host ends the session's server seed (revealed unless the table keeps it secret)
    and starts a new one; between hands only."""

    type: Literal["rotate_seed"]


Inbound = Annotated[
    Ping
    | Sit
    | TopUp
    | SitOut
    | SitIn
    | Leave
    | Straddle
    | Act
    | Approve
    | Refuse
    | CancelRequest
    | Pause
    | Resume
    | SetStakes
    | Remove
    | Adjust
    | TransferHost
    | AddBot
    | BombPotNext
    | SpectatorChat
    | Chat
    | React
    | Show
    | RabbitHunt
    | ShowCards
    | MoreTime
    | SitOutNext
    | SitOutNextBb
    | SetPreference
    | Seed
    | RotateSeed
    | Close,
    Field(discriminator="type"),
]
inbound: TypeAdapter[Message] = TypeAdapter(cast(Any, Inbound))  # a union of messages
