"""The seat rules: who is dealt in, the moving button, the blinds, waiting and posting.
(The same rules under random changes of a table: test_button_properties.py.)"""

import pytest

from app.poker import HandSetup, HandState
from app.tables.button import Deal, note_missed, plan_deal, seat_dealt
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
    assert moving is not None and moving.button == 2 and moving.order == (3, 0, 2)
    # Moving button: seat 2, big blind last hand, takes the button; seat 3, due the big
    # blind, would skip it, so posts one too, live (Robert's: "There may be more than one
    # big blind").
    assert moving.blinds == (0, 2, 0) and moving.posts == (2, 0, 0)
    table[2] = None  # the big blind leaves: next hand has no small blind (a dead small blind)
    table[4] = Seat(4, "p4", "p4", 100, SeatState.PLAYING)
    again = plan_deal(table, deal.button, cfg, 3, deal.blind_seats)
    assert again is not None and again.button == 2 and again.blind_seats == (3, 4)
    assert again.order == (3, 4, 0) and again.blinds == (1, 2, 0)
    table[3] = None
    last = plan_deal(table, again.button, cfg, 4, again.blind_seats)
    assert last is not None and last.button == 4 and last.order == (0, 4)  # heads-up: moving


def after(table: list[Seat | None], deal: Deal) -> None:
    """What the table does to its seats once a hand is dealt."""
    for number in deal.order:
        seat = table[number]
        assert seat is not None
        table[number] = seat_dealt(seat)
    for seat in note_missed(table, deal.missed):
        table[seat.number] = seat


# ------------------------------------------------------------------- issue 25 rulings
@pytest.mark.parametrize("dead_button", [False, True])
def test_three_to_two_the_last_big_blind_does_not_post_it_again(dead_button: bool) -> None:
    """TDA 34-B: "Heads-up, the small blind is the button, is dealt the last card, and acts
    first pre-flop and last on all other betting rounds. Starting heads-up play, the button
    may need to be adjusted to ensure no player has the big blind twice in a row." Robert's
    (Buttons and Blinds): "In heads-up play with two blinds, the small blind is on the
    button." The button busts three-handed: the big blind goes to the small blind's player,
    and the last big blind takes the button and the small blind."""
    cfg = CFG.with_stakes(dead_button=dead_button)
    table = seats("r", "r", "r")
    first = plan_deal(table, 2, cfg, 1)
    assert first is not None and (first.button, first.blind_seats) == (0, (1, 2))
    after(table, first)
    table[0] = None  # the button busts
    deal = plan_deal(table, first.button, cfg, 2, first.blind_seats)
    assert deal is not None and deal.button == 2 and deal.blind_seats == (2, 1)
    assert deal.order == (1, 2) and deal.blinds == (2, 1)  # seat 1 the big, the button the small
    after(table, deal)
    again = plan_deal(table, deal.button, cfg, 3, deal.blind_seats)
    assert again is not None and again.blind_seats == (1, 2)  # heads-up they alternate


@pytest.mark.parametrize("dead_button", [False, True])
def test_a_new_player_between_the_button_and_the_blinds_waits_for_the_button(
    dead_button: bool,
) -> None:
    """Robert's (Buttons and Blinds): "A new player cannot be dealt in between the big blind
    and the button." Last hand: button 0, small blind 2, big blind 4; next: button 2, blinds
    4 and 5. A player sitting down at seat 3 to post is not dealt in (dealt in, the moving
    button would reach them next and seats 4 and 5 would post the same blinds again); once
    the button has passed, they post and play."""
    cfg = TableConfig(seats=6, small_blind=1, big_blind=2, dead_button=dead_button)
    table = seats("r", None, "r", None, "r", "r")
    last = plan_deal(table, 5, cfg, 1)
    assert last is not None and (last.button, last.blind_seats) == (0, (2, 4))
    after(table, last)
    table[3] = Seat(3, "new", "new", 100, SeatState.POSTING)
    deal = plan_deal(table, last.button, cfg, 2, last.blind_seats)
    assert deal is not None and (deal.button, deal.blind_seats) == (2, (4, 5))
    assert 3 not in deal.order and not any(deal.posts)
    after(table, deal)
    later = plan_deal(table, deal.button, cfg, 3, deal.blind_seats)
    assert later is not None and (later.button, later.blind_seats) == (4, (5, 0))
    assert 3 in later.order and later.posts[later.order.index(3)] == 2  # behind the button
    assert later.order[-1] == 4


TOURNAMENT = TableConfig(seats=6, small_blind=1, big_blind=2, dead_button=True,
                         tournament=True)  # fmt: skip


def test_a_player_seated_by_the_director_is_dealt_in_except_between_the_button_and_sb() -> None:
    """TDA 8-A (late entries, re-entries): "They will randomly draw a seat and table ... and
    are dealt in except between the small blind and button." TDA 10-A: "New players entering
    the tournament and players from broken tables can get any seat including the small or big
    blind or the button and be dealt in except between the SB and button." TDA 32:
    "Tournament play will use a dead button." Last hand: button 0, blinds 2 and 4."""
    table = seats("r", None, "r", None, "r", None)
    last = plan_deal(table, 5, TOURNAMENT, 1)
    assert last is not None and (last.button, last.blind_seats) == (0, (2, 4))
    after(table, last)
    # Next hand: button 2, small blind 4, big blind the next player after 4.
    table[3] = Seat(3, "late", "late", 100, SeatState.WAITING)  # between the button and the SB
    table[5] = Seat(5, "moved", "moved", 100, SeatState.WAITING)  # the big blind's seat
    deal = plan_deal(table, last.button, TOURNAMENT, 2, last.blind_seats)
    assert deal is not None and (deal.button, deal.blind_seats) == (2, (4, 5))
    assert deal.order == (4, 5, 0, 2) and deal.blinds == (1, 2, 0, 0)  # 5 posts the big blind
    assert not any(deal.posts)
    after(table, deal)
    later = plan_deal(table, deal.button, TOURNAMENT, 3, deal.blind_seats)
    assert later is not None and (later.button, later.blind_seats) == (4, (5, 0))
    assert later.order == (5, 0, 2, 3, 4)  # the button has passed seat 3: dealt in, no post
    assert later.blinds == (1, 2, 0, 0, 0) and not any(later.posts)


def test_a_player_seated_in_the_small_blind_seat_posts_it() -> None:
    """TDA 10-A: "can get any seat including the small or big blind or the button"."""
    table = seats("r", "r", "r", "r", None, None)
    last = plan_deal(table, 3, TOURNAMENT, 1)
    assert last is not None and last.blind_seats == (1, 2)
    after(table, last)
    table[2] = Seat(2, "new", "new", 100, SeatState.WAITING)  # the big blind moved away
    deal = plan_deal(table, last.button, TOURNAMENT, 2, last.blind_seats)
    assert deal is not None and (deal.button, deal.blind_seats) == (1, (2, 3))
    assert deal.order == (2, 3, 0, 1) and deal.blinds == (1, 2, 0, 0)


def test_tournament_dead_button_when_the_big_blind_busts() -> None:
    """TDA 32: "Tournament play will use a dead button." The big blind busts: the next
    player posts the big blind (not skipped), the small blind is dead, the button stays."""
    table = seats("r", "r", "r", "r", "r")
    last = plan_deal(table, 4, TOURNAMENT, 1)
    assert last is not None and (last.button, last.blind_seats) == (0, (1, 2))
    after(table, last)
    table[2] = None
    deal = plan_deal(table, last.button, TOURNAMENT, 2, last.blind_seats)
    assert deal is not None and (deal.button, deal.blind_seats) == (1, (2, 3))
    assert deal.order == (3, 4, 0, 1) and deal.blinds == (2, 0, 0, 0)


def test_a_broke_cash_player_misses_the_blinds_and_owes_them_topped_up() -> None:
    """Robert's (Buttons and Blinds): "A player who goes all in and loses is obligated to make
    up the blinds if they are missed before a rebuy is made." """
    table = seats("r", "r", "r", "r")
    broke = table[3]
    assert broke is not None
    table[3] = broke._replace(stack=0)
    deal = plan_deal(table, 1, CFG, 5)  # button 2, blinds 0 and 1: the small blind passes 3
    assert deal is not None and 3 not in deal.order and deal.missed == {3: MISSED_SMALL}
    after(table, deal)
    broke = table[3]
    assert broke is not None
    table[3] = broke = broke._replace(stack=100)  # topped up: owes the small blind, waits
    assert broke.waiting  # for the big blind or posts
    deal = plan_deal(table, deal.button, CFG, 6, deal.blind_seats)
    assert deal is not None and 3 not in deal.order


def test_dead_button_when_heads_up_play_becomes_three_handed() -> None:
    """Robert's (dead button): "The big blind is posted by the player due for it, and the small
    blind and button are positioned accordingly." Heads-up, seat 0 has the button and the small
    blind, seat 2 the big blind; a player sits down at seat 1 to post. Seat 0 is due the big
    blind, seat 2 posts the small blind, and the button goes to seat 1, just before it (the
    small blind's seat of last hand, the button's, is the big blind's now)."""
    cfg = CFG.with_stakes(dead_button=True, seats=3)
    table = seats("r", None, "r")
    first = plan_deal(table, None, cfg, 1)
    assert first is not None and (first.button, first.blind_seats) == (0, (0, 2))
    after(table, first)
    table[1] = Seat(1, "new", "new", 100, SeatState.POSTING)
    deal = plan_deal(table, first.button, cfg, 2, first.blind_seats)
    assert deal is not None and (deal.button, deal.blind_seats) == (1, (2, 0))
    assert deal.order == (2, 0, 1) and deal.blinds == (1, 2, 0) and deal.posts == (0, 0, 2)


def test_dead_button_never_puts_the_big_blind_before_the_small_blind() -> None:
    """Found by the property test. Heads-up, seat 0 had the button and the small blind and
    seat 3 the big blind; seat 0 sits out, seat 2 is in, seat 1 waits for the big blind. The big
    blind goes round from seat 3 to seat 1, the small blind to seat 3: the button must go just
    before it, to seat 2 (the seat of the last small blind, 0, would put the big blind first)."""
    cfg = TableConfig(seats=4, small_blind=1, big_blind=2, dead_button=True)
    table = seats("o", "w", "r", "r")
    deal = plan_deal(table, 0, cfg, 9, (0, 3))
    assert deal is not None and (deal.button, deal.blind_seats) == (2, (3, 1))
    assert deal.order == (3, 1, 2) and deal.blinds == (1, 2, 0)


def test_a_broke_player_between_the_blinds_of_a_table_starting_over_owes_the_big() -> None:
    """Found by the property test (issue 25). Robert's (Buttons and Blinds): "A player who goes
    all in and loses is obligated to make up the blinds if they are missed before a rebuy is
    made"; docs/rules.md: the big blind "is never skipped and never paid twice in a row".
    Moving button, five seats: seat 3 posts the big blind and goes broke; seat 0 leaves and
    new players sit down at 2 and 4. Only seat 1 is ready, so the table starts over: everyone
    is dealt in, button 1, blinds 2 and 4, and seat 3 sits out of chips between the two
    blinds: the big blind has passed it. Topped up, it owes the big blind and waits for it
    (else it would take the small blind and seat 4 post the big blind twice in a row)."""
    cfg = TableConfig(seats=5, small_blind=1, big_blind=2)
    table = seats("r", "r", None, "r", None)
    first = plan_deal(table, None, cfg, 1)
    assert first is not None and (first.button, first.blind_seats) == (0, (1, 3))
    after(table, first)
    broke = table[3]
    assert broke is not None
    table[3] = broke._replace(stack=0)
    table[0] = None
    table[2] = Seat(2, "new2", "new2", 100, SeatState.WAITING)
    table[4] = Seat(4, "new4", "new4", 100, SeatState.WAITING)
    fresh = plan_deal(table, first.button, cfg, 2, first.blind_seats)
    assert fresh is not None and (fresh.button, fresh.blind_seats) == (1, (2, 4))
    assert fresh.order == (2, 4, 1) and fresh.missed == {3: MISSED_BIG}
    after(table, fresh)
    broke = table[3]
    assert broke is not None
    table[3] = broke = broke._replace(stack=100)  # topped up
    assert broke.waiting and broke.missed_blinds == MISSED_BIG
    deal = plan_deal(table, fresh.button, cfg, 3, fresh.blind_seats)
    assert deal is not None and (deal.button, deal.blind_seats) == (2, (4, 1))
    assert deal.order == (4, 1, 2) and deal.blinds == (1, 2, 0)  # seat 4 the small blind now
    after(table, deal)
    deal = plan_deal(table, deal.button, cfg, 4, deal.blind_seats)
    assert deal is not None and (deal.button, deal.blind_seats) == (4, (1, 2))
    assert 3 not in deal.order  # still waiting: the big blind has not come round
    after(table, deal)
    deal = plan_deal(table, deal.button, cfg, 5, deal.blind_seats)
    assert deal is not None and (deal.button, deal.blind_seats) == (1, (2, 3))
    assert deal.order == (2, 3, 4, 1) and deal.blinds == (1, 2, 0, 0) and not any(deal.posts)
