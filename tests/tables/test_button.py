"""The seat rules: who is dealt in, the moving button, the blinds, waiting and posting."""

from app.tables.button import plan_deal
from app.tables.config import TableConfig
from app.tables.seat import Seat

CFG = TableConfig(seats=6, small_blind=1, big_blind=2)


def seats(*spec: str | None) -> list[Seat | None]:
    """'r' ready, 'w' waiting, 'p' posting, 'o' sitting out, None empty."""
    out: list[Seat | None] = []
    for i, s in enumerate(spec):
        if s is None:
            out.append(None)
            continue
        out.append(
            Seat(i, f"p{i}", f"p{i}", 100, waiting=s in "wp", post=s == "p", sitting_out=s == "o")
        )
    return out


def test_first_hand_button_is_lowest_seat_and_blinds_follow() -> None:
    deal = plan_deal(seats("r", None, "r", "r"), None, CFG, 1)
    assert deal is not None
    assert deal.button == 0
    assert deal.order == (2, 3, 0)  # position order ends with the button
    assert deal.blinds == (1, 2, 0)


def test_button_moves_to_next_ready_player() -> None:
    deal = plan_deal(seats("r", None, "r", "r"), 0, CFG, 2)
    assert deal is not None and deal.button == 2
    assert deal.order == (3, 0, 2) and deal.blinds == (1, 2, 0)


def test_heads_up_button_posts_small_blind() -> None:
    deal = plan_deal(seats("r", None, None, "r"), 0, CFG, 2)
    assert deal is not None and deal.button == 3
    assert deal.order == (0, 3)
    assert deal.blinds == (2, 1)  # (big, small): the engine's heads-up order


def test_waiting_player_dealt_in_only_at_big_blind() -> None:
    # button 0 -> small blind 1 -> big blind: seat 2 is waiting and gets the big blind.
    deal = plan_deal(seats("r", "r", "w", "r"), 3, CFG, 5)
    assert deal is not None and deal.button == 0
    assert deal.order == (1, 2, 3, 0) and deal.blinds == (1, 2, 0, 0)
    # Waiting in the small blind's seat: skipped, still waiting.
    deal = plan_deal(seats("r", "w", "r", "r"), 3, CFG, 5)
    assert deal is not None
    assert 1 not in deal.order and deal.order == (2, 3, 0) and deal.blinds == (1, 2, 0)


def test_posting_player_comes_in_at_once_with_a_live_big_blind() -> None:
    deal = plan_deal(seats("r", "r", "r", "p"), 3, CFG, 5)
    assert deal is not None and deal.button == 0
    assert deal.order == (1, 2, 3, 0)
    assert deal.posts == (0, 0, 2, 0) and deal.blinds == (1, 2, 0, 0)


def test_everyone_is_dealt_when_fewer_than_two_are_ready() -> None:
    deal = plan_deal(seats("w", "w", None), None, CFG, 1)
    assert deal is not None and deal.order == (1, 0)


def test_no_deal_with_one_player_or_sitting_out() -> None:
    assert plan_deal(seats("r", None, "o"), None, CFG, 1) is None
    assert plan_deal(seats(None, "r"), None, CFG, 1) is None


def test_straddle_antes_and_bomb_pot() -> None:
    cfg = CFG.with_stakes(straddle=True, ante=1, bomb_pot_every=3)
    table = seats("r", "r", "r", "r")
    for s in table:
        assert s is not None
        s.straddle = True
    deal = plan_deal(table, 3, cfg, 1)
    assert deal is not None and deal.order == (1, 2, 3, 0)
    assert deal.blinds == (1, 2, 4, 0) and deal.straddle == 3
    assert deal.antes == (1, 1, 1, 1)
    bomb = plan_deal(table, 3, cfg, 3)
    assert bomb is not None and bomb.bomb_pot
    assert bomb.blinds == (0, 0, 0, 0) and bomb.antes == (2, 2, 2, 2)
