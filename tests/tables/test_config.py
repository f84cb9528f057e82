import pytest
from pydantic import ValidationError

from app.poker import Betting
from app.tables.config import TableConfig


def test_defaults_are_a_valid_pot_limit_omaha_table() -> None:
    cfg = TableConfig()
    hc = cfg.hand_config()
    assert hc.betting is Betting.POT_LIMIT and hc.small_bet == 2


@pytest.mark.parametrize(
    "bad",
    [
        {"game": "holdem"},
        {"small_blind": 5, "big_blind": 2},
        {"buy_in_min": 300, "buy_in_max": 200},
        {"seats": 11},
        {"seats": 1},
        {"game": "six-card-omaha", "seats": 10},  # 6*10 + 5 + 3 > 52
        {"big_blind": -1},
        {"big_blind": 10**13},
        {"unknown": 1},
        {"ante": 1, "big_blind_ante": 2},  # an ante for everyone or the big blind's, not both
        {"big_blind_ante": -1},
    ],
)
def test_refuses_what_cannot_be_dealt(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        TableConfig.model_validate(bad)


def test_fixed_limit_big_bet_defaults_to_two_big_blinds() -> None:
    cfg = TableConfig(betting=Betting.FIXED_LIMIT, big_blind=4, buy_in_min=40)
    assert cfg.hand_config().big_bet == 8


def test_rule_settings_default_to_cash_game_practice_and_reach_the_engine() -> None:
    cfg = TableConfig()
    assert not cfg.cap_heads_up and not cfg.dead_button and cfg.big_blind_ante == 0
    assert not cfg.hand_config().cap_heads_up
    assert TableConfig(cap_heads_up=True).hand_config().cap_heads_up
