"""A table's settings: the game, the stakes, the seats and the clock, as one validated value.

The host chooses them when creating the table (the REST body is this model) and may change the
stakes later (from the next hand). Everything the engine supports can be chosen here: every
game of `app.poker.GAMES`, pot/no/fixed limit, one or two boards, antes, a straddle, bomb pots
and run it twice.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)

from app.poker import GAMES, Betting, HandConfig, OddChip, max_players
from app.tables.names import BadName, clean_name

#: No amount on a table may exceed this: chips stay far from any overflow in JSON clients.
MAX_CHIPS = 10**12
#: The longest chat message, in characters.
CHAT_MAX = 200
#: The reactions a seated player may show on their seat, by name (the client draws each
#: from its own picture, static/vendor/twemoji: no font here need have emoji).
Reaction = Literal["thumbs_up", "laugh", "wow", "cry", "clap", "fire"]
REACTIONS: tuple[str, ...] = get_args(Reaction)

# Strict: "6" is not 6 and "yes" is not true, as in WebSocket messages; no NaN or infinity.
Chips = Annotated[StrictInt, Field(ge=0, le=MAX_CHIPS)]
Seconds = Annotated[float, Field(strict=True)]
TABLE_NAME_LENGTH = 40


class BankRefill(StrEnum):
    """How a player's time bank is refilled (docs/rules.md, The clock)."""

    NONE = "none"  # spent, never refilled
    HAND = "hand"  # `time_bank_per_hand` seconds more at each hand dealt, up to `time_bank`
    LEVEL = "level"  # back to `time_bank` at each new tournament level


class TableConfig(BaseModel):
    """What a table deals and how. Amounts are whole chips; times are seconds."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    name: StrictStr = Field(default="Omaha", min_length=1, max_length=TABLE_NAME_LENGTH)
    game: StrictStr = Field(default="omaha", description="one of: " + ", ".join(GAMES))
    betting: Betting = Betting.POT_LIMIT
    small_blind: Chips = 1
    big_blind: Annotated[StrictInt, Field(ge=1, le=MAX_CHIPS)] = 2
    big_bet: Chips = Field(
        default=0, description="fixed limit's turn and river bet; 0 means twice the big blind"
    )
    ante: Chips = 0
    big_blind_ante: Chips = Field(
        default=0,
        description="an ante the big blind posts alone for the table, dead money; 0 none",
    )
    straddle: StrictBool = Field(
        default=False, description="the player after the big blind may straddle (2 big blinds)"
    )
    boards: StrictInt = Field(default=1, ge=1, le=2)
    bomb_pot_every: StrictInt = Field(
        default=0, ge=0, le=1000, description="every Nth hand is a bomb pot; 0 never"
    )
    bomb_pot_ante: Chips = Field(default=0, description="each player's bomb pot ante; 0 = 1 BB")
    run_it_twice: StrictBool = False
    rabbit_hunt: StrictBool = Field(
        default=False,
        description="after a hand that ended before the river, a seated player may ask to "
        "see the board cards that would have come (shown as not played; changes nothing)",
    )
    odd_chip: OddChip = OddChip.POSITION
    raise_cap: StrictInt = Field(default=4, ge=2, le=10)
    cap_heads_up: StrictBool = Field(
        default=False,
        description="fixed limit: keep the raise cap heads-up (tournament practice); "
        "false: two players may raise without limit (cash games)",
    )
    dead_button: StrictBool = Field(
        default=False,
        description="dead button: the big blind moves to the next player each hand, the "
        "small blind and the button follow it even onto an empty seat; false: moving button",
    )
    buy_in_min: Annotated[StrictInt, Field(ge=1, le=MAX_CHIPS)] = 40
    buy_in_max: Annotated[StrictInt, Field(ge=1, le=MAX_CHIPS)] = 200
    seats: StrictInt = Field(default=6, ge=2, le=10)
    decision_time: Seconds = Field(default=30.0, ge=0, le=600, description="0: no clock")
    time_bank: Seconds = Field(default=60.0, ge=0, le=3600)
    time_bank_refill: BankRefill = Field(
        default=BankRefill.HAND,
        description="none: spent for good; hand: time_bank_per_hand more at each hand dealt "
        "(up to time_bank); level: full again at each tournament level",
    )
    time_bank_per_hand: Seconds = Field(default=5.0, ge=0, le=600)
    showdown_time: Seconds = Field(
        default=5.0,
        ge=1,
        le=60,
        description="a show-or-muck choice and a run-it-twice vote: their own short clock, "
        "never the time bank",
    )
    sit_out_after_timeouts: StrictInt = Field(
        default=2,
        ge=0,
        le=10,
        description="a player the clock acted for on this many decisions in a row sits out "
        "after the hand (cash tables); 0 never",
    )
    approval_required: StrictBool = False
    spectator_chat: StrictBool = Field(default=True, description="spectators may chat")
    tournament: StrictBool = Field(
        default=False,
        description="a tournament's table: its director seats players and calls each deal "
        "(app/tables/tournament.py); not settable when creating a table",
    )
    reveal_seed: StrictBool = Field(
        default=True,
        description="reveal the server seed when the session ends (the host closes the table "
        "or rotates the seed), so everyone can recompute every deck; false: keep it secret",
    )

    @field_validator("name")
    @classmethod
    def _clean_name(cls, value: str) -> str:
        """NFC, no control or format characters (NUL, CR/LF, RLO, zero-width...)."""
        try:
            return clean_name(value, TABLE_NAME_LENGTH)
        except BadName as bad:
            raise ValueError(str(bad)) from None

    @model_validator(mode="after")
    def _consistent(self) -> TableConfig:
        if self.game not in GAMES:
            raise ValueError(f"unknown game {self.game!r}; choose one of {', '.join(GAMES)}")
        if self.small_blind > self.big_blind:
            raise ValueError("the small blind cannot be larger than the big blind")
        if self.buy_in_min > self.buy_in_max:
            raise ValueError("the minimum buy-in cannot be above the maximum")
        if self.ante and self.big_blind_ante:
            raise ValueError("choose an ante for everyone or a big-blind ante, not both")
        if self.buy_in_min < self.big_blind:
            raise ValueError("the minimum buy-in must cover at least one big blind")
        most = max_players(GAMES[self.game], self.boards)
        if self.seats > most:
            raise ValueError(f"{GAMES[self.game].name} deals at most {most} players from one deck")
        return self

    @property
    def fixed_big_bet(self) -> int:
        return self.big_bet or 2 * self.big_blind

    @property
    def bomb_ante(self) -> int:
        return self.bomb_pot_ante or self.big_blind

    def is_bomb_pot(self, hand_number: int) -> bool:
        return self.bomb_pot_every > 0 and hand_number % self.bomb_pot_every == 0

    def hand_config(self, bomb_pot: bool = False) -> HandConfig:
        return HandConfig(
            game=GAMES[self.game],
            betting=self.betting,
            small_bet=self.big_blind,
            big_bet=self.fixed_big_bet if self.betting is Betting.FIXED_LIMIT else 0,
            boards=self.boards,
            bomb_pot=bomb_pot,
            run_it_twice=self.run_it_twice,
            raise_cap=self.raise_cap,
            odd_chip=self.odd_chip,
            cap_heads_up=self.cap_heads_up,
        )

    def with_stakes(self, **changes: Any) -> TableConfig:
        """A copy with new stakes, validated like a new table."""
        data = self.model_dump()
        data.update(changes)
        return TableConfig.model_validate(data)
