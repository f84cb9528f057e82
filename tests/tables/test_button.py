"""The seat rules: who is dealt in, the moving button, the blinds, waiting and posting."""

from app.poker import HandSetup, HandState
from app.tables.button import plan_deal
from app.tables.config import TableConfig
from app.tables.seat import MISSED_BIG, MISSED_SMALL, Seat, SeatState

CFG = TableConfig(seats=6, small_blind=1, big_blind=2)


STATES = {"r": SeatState.PLAYING, "w": SeatState.WAITING, "p": SeatState.POSTING,
          "o": SeatState.SITTING_OUT}  # fmt: skip


def seats(*spec: str | None) -> list[Seat | None]:
    """'r' ready, 'w' waiting, 'p' posting, 'o' sitting out, None empty."""
    return [None if s is None else Seat(i, f"p{i}", f"p{i}", 100, STATES[s])
            for i, s in enumerate(spec)]  # fmt: skip


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
    table = [s._replace(straddle=True) if s else None for s in seats("r", "r", "r", "r")]
    deal = plan_deal(table, 3, cfg, 1)
    assert deal is not None and deal.order == (1, 2, 3, 0)
    assert deal.blinds == (1, 2, 4, 0) and deal.straddle == 3
    assert deal.antes == (1, 1, 1, 1)
    bomb = plan_deal(table, 3, cfg, 3)
    assert bomb is not None and bomb.bomb_pot
    assert bomb.blinds == (0, 0, 0, 0) and bomb.antes == (2, 2, 2, 2)


# ------------------------------------------------- floor rulings (issue 9, docs/rules.md)
def test_big_blind_ante_is_dead_money_posted_by_the_big_blind() -> None:
    # Rule 004: "each player, or an individual player, may also be required to post an ante";
    # TDA: the big blind antes for the table, dead money, the ante before the blind.
    cfg = CFG.with_stakes(big_blind_ante=2, bomb_pot_every=3)
    deal = plan_deal(seats("r", "r", "r"), 2, cfg, 1)
    assert deal is not None and deal.order == (1, 2, 0)
    assert deal.dead == (0, 2, 0) and deal.antes == (0, 0, 0) and deal.blinds == (1, 2, 0)
    bomb = plan_deal(seats("r", "r", "r"), 2, cfg, 3)
    assert bomb is not None and not any(bomb.dead)
    setup = HandSetup(cfg.hand_config(), (100, 100, 100), blinds=deal.blinds, dead=deal.dead)
    state = HandState(setup, list(range(52)))
    la = state.legal_actions()
    assert la is not None and la.call == 2  # the ante is nobody's bet: the call is the blind
    assert state.pot_total() == 5


def test_a_seat_sitting_out_misses_the_blinds_that_pass_it() -> None:
    # Robert's (Buttons and Blinds): a player who misses a blind owes it on return.
    table = seats("r", "r", "o", "r")
    deal = plan_deal(table, 3, CFG, 5)  # button 0, small blind 1, big blind 3
    assert deal is not None and deal.blind_seats == (1, 3)
    assert deal.missed == {2: MISSED_BIG}
    deal = plan_deal(table, 0, CFG, 6)  # button 1, small blind 3: it passes seat 2
    assert deal is not None and deal.blind_seats == (3, 0)
    assert deal.missed == {2: MISSED_SMALL}


def test_a_returning_player_posts_the_big_blind_live_and_the_small_blind_dead() -> None:
    table = seats("r", "r", "r", "p")
    back = table[3]
    assert back is not None
    table[3] = back = back._replace(missed_blinds=MISSED_SMALL | MISSED_BIG)
    deal = plan_deal(table, 3, CFG, 5)  # button 0, blinds 1 and 2: seat 3 posts what it owes
    assert deal is not None and deal.order == (1, 2, 3, 0)
    assert deal.blinds == (1, 2, 0, 0) and deal.posts == (0, 0, 2, 0) and deal.dead == (0, 0, 1, 0)
    table[3] = back = back._replace(missed_blinds=MISSED_SMALL)  # only the small blind: dead
    deal = plan_deal(table, 3, CFG, 5)
    assert deal is not None and deal.posts == (0, 0, 0, 0) and deal.dead == (0, 0, 1, 0)
    table[3] = back._replace(state=SeatState.WAITING)  # waiting: dealt in only with the big blind
    deal = plan_deal(table, 3, CFG, 5)
    assert deal is not None and 3 not in deal.order


def test_dead_button_moves_the_blinds_as_if_every_seat_were_filled() -> None:
    # Robert's (Buttons and Blinds, dead button): the big blind moves to the next player, the
    # small blind to who had the big blind, the button to who had the small blind.
    cfg = CFG.with_stakes(dead_button=True)
    table = seats("r", "r", "r", "r", None)
    first = plan_deal(table, None, cfg, 1)
    assert first is not None and (first.button, first.blind_seats) == (0, (1, 2))
    table[1] = None  # the small blind leaves
    deal = plan_deal(table, first.button, cfg, 2, first.blind_seats)
    assert deal is not None and deal.button == 1  # a dead button on the empty seat
    assert deal.order == (2, 3, 0) and deal.blinds == (1, 2, 0)  # nobody skips the big blind
    moving = plan_deal(table, first.button, CFG, 2, first.blind_seats)
    assert moving is not None and moving.button == 2 and moving.blinds == (1, 2, 0)
    assert moving.order == (3, 0, 2)  # moving button: seat 2, big blind last hand, skips it
    table[2] = None  # the big blind leaves: next hand has no small blind (a dead small blind)
    table[4] = Seat(4, "p4", "p4", 100, SeatState.PLAYING)
    again = plan_deal(table, deal.button, cfg, 3, deal.blind_seats)
    assert again is not None and again.button == 2 and again.blind_seats == (3, 4)
    assert again.order == (3, 4, 0) and again.blinds == (1, 2, 0)
    table[3] = None
    last = plan_deal(table, again.button, cfg, 4, again.blind_seats)
    assert last is not None and last.button == 4 and last.order == (0, 4)  # heads-up: moving
