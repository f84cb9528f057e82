"""Play in rounds: the deal called at every table with the level in force, each hand's end
(who busted is placed and leaves), and the moves between rounds (balancing, breaking tables,
the final table's draw); the end is `finish`."""

from __future__ import annotations

import contextlib
import logging

from app.tables.command import Command
from app.tables.errors import TableError
from app.tournaments.balance import TableSeats, plan
from app.tournaments.deal import chop_agreed, deal_talks
from app.tournaments.finish import finish
from app.tournaments.seating import seat, take_off, unseat
from app.tournaments.state import HandLog, Tournament, draw
from app.tournaments.writes import save_state, write

log = logging.getLogger("omaha.tournaments")
#: seconds before a round whose every deal was refused is called again
RETRY = 1.0


async def on_deal_all(t: Tournament, c: Command) -> None:
    """Deal every table between hands (with two players or more) at the level in force
    now; on a break, come back when it ends."""
    t.deal_timer = None
    if t.status != "running" or any(s.playing for s in t.tables.values()):
        return
    if t.round_open:  # the last round's end was cut short: it ends first (then deals)
        await end_round(t)
        return
    if (kind := chop_agreed(t)) is not None:
        await finish(t, kind)
        return
    if (talks := deal_talks(t)) > 0:  # the players left talk of a deal: wait
        t.deal_all(talks)
        return
    elapsed = t.elapsed()  # one reading: the level and the hand's time agree
    moment = t.settings.schedule.at(elapsed)
    if moment.on_break:
        assert moment.remaining is not None
        t.deal_all(moment.remaining)
        return
    level = t.settings.schedule.levels[moment.level]
    # The clock's reading, stored once a round: after a crash the level goes on from
    # here, not from the start (a failed write is tried again with the next round).
    with contextlib.suppress(TableError):
        await save_state(t)
    refused = False
    for state in t.tables.values():
        if len(state.seats) < 2:
            continue
        try:
            table = t.registry.get(state.id)
            # TDA 48: the fixed-limit cap holds heads-up until the event is down to two.
            result = await table.request(
                "t_deal", None, small_blind=level.small_blind, big_blind=level.big_blind,
                ante=level.ante, big_blind_ante=level.big_blind_ante,
                cap_heads_up=len(t.live) > 2)  # fmt: skip
        except TableError as error:  # its store, or it is being restored: the next round
            log.warning("tournament %s: table %s refused its deal (%s)", t.id, state.id,
                        error.code)  # fmt: skip
            refused = True
            continue
        state.playing, state.actor = True, result.get("actor")
        t.hands.append(HandLog(state.id, int(result["hand"]), moment.level, elapsed))
    if refused and not any(s.playing for s in t.tables.values()):
        # No hand's end will call the next round (every deal was refused): call it here.
        t.deal_all(RETRY)


async def on_hand_ended(t: Tournament, c: Command) -> None:
    event = c.data
    state = t.tables.get(str(event["table"]))
    if state is None:
        return
    if event.get("restarted"):
        # A table actor (re)started between hands. Another actor accepted the deal being
        # played: its call was lost with it, and this one waits for a call; the table's
        # round is over (it deals with the next).
        if not state.playing or state.actor == event.get("actor"):
            return
        log.warning("tournament %s: table %s restarted before its deal", t.id, state.id)
        state.playing = False
        if not any(s.playing for s in t.tables.values()):
            await end_round(t)
        return
    state.playing = False
    stacks: dict[str, int] = {str(p): int(s) for p, s in event["stacks"].items()}
    started: dict[str, int] = {str(p): int(s) for p, s in event["started"].items()}
    state.stacks = stacks
    state.button = event.get("button")
    blinds = event.get("blinds")
    state.big_blind = None if blinds is None else blinds[1]
    for k in range(len(t.hands) - 1, -1, -1):  # the chips when this hand ended
        h = t.hands[k]
        if h.table == state.id and h.number == event["hand"]:
            total = sum(sum(s.stacks.values()) for s in t.tables.values())
            t.hands[k] = HandLog(h.table, h.number, h.level, h.elapsed, total)
            break
    for p, stack in stacks.items():
        if stack == 0 and p in t.live:
            t.round_busts[t.live[p]] = started.get(p, 0)
    if any(s.playing for s in t.tables.values()):
        return  # the round ends with the last table's hand
    await end_round(t)


async def end_round(t: Tournament) -> None:
    """Every table's hand is over: place the busts, end or balance, call the next round. A
    table refusing to take a player off or on (its store did not answer, or it is being
    restored) cuts it short: what is left is done again in `RETRY` seconds (before, the round
    never ended and nothing was dealt again)."""
    t.round_open = True
    try:
        await place_round(t)
        over = t.standings.left == 1
        kind = None if over else chop_agreed(t)
        if not over and kind is None:
            await balance(t)
    except TableError as error:
        log.warning("tournament %s: a table refused the round's moves (%s); again in %.0f s",
                    t.id, error.code, RETRY)  # fmt: skip
        t.deal_all(RETRY)
        return
    t.round_open = False
    if over or kind is not None:
        await finish(t, kind)  # one player holds every chip, or those left agreed a deal
        return
    t.deal_all(t.between_hands)


async def place_round(t: Tournament) -> None:
    """Place the round's bust-outs and take them off their tables. Every table plays one
    hand a round and the next round waits for all (hand for hand), so they went out in
    the same hand: the larger stack at its start finishes better, equal stacks share
    (`Standings.bust`; TDA RP-8, PokerStars' "synchronized" hand)."""
    busts, t.round_busts = t.round_busts, {}
    if busts:
        out = [t.entries[key] for key in busts]
        for key, place in t.standings.bust(busts).items():
            t.entries[key].place = place
        t.leaving += busts
        with contextlib.suppress(TableError):  # in memory; all stored again at the end
            await write(t, t.store.save_places(t.id, out))
    for key in list(t.leaving):  # placed once; taken off until their tables have done it
        entry = t.entries[key]
        pid, table_id = entry.player_id, entry.table
        if table_id is not None and table_id in t.tables:
            await take_off(t, table_id, pid)
            state = t.tables[table_id]
            state.seats = {n: q for n, q in state.seats.items() if q != pid}
            state.stacks.pop(pid, None)
            t.carried.pop(pid, None)
        entry.table = entry.seat = None
        del t.live[pid]
        t.leaving.remove(key)


async def balance(t: Tournament) -> None:
    """Moves between hands: balance, break tables, draw the final table. Players a refusal
    left between two tables (`carried`) sit down first where the fewest are, as a late entry
    does; then the moves are planned from where everyone sits."""
    for pid in list(t.carried):
        room = [s for s in t.tables.values() if len(s.seats) < t.settings.seats]
        fewest = min(len(s.seats) for s in room)
        target = draw.choice([s.id for s in room if len(s.seats) == fewest])
        await seat(t, pid, target, None, t.carried[pid])
        del t.carried[pid]
    seats = [TableSeats(s.id, t.settings.seats, dict(s.seats), s.button, s.big_blind)
             for s in t.tables.values()]  # fmt: skip
    players = [p for s in t.tables.values() for p in s.seats.values()]
    t.shuffle(players)
    decided = plan(seats, players, rng=draw)  # TDA 10-B: a broken table's seats drawn
    if decided.final is not None:
        final_id, final_draw = decided.final
        for s in list(t.tables.values()):
            for pid in list(s.seats.values()):
                await unseat(t, s.id, pid)
        for number, pid in final_draw.items():
            await seat(t, pid, final_id, number, t.carried[pid])
            del t.carried[pid]  # seated: no longer between tables
    for move in decided.moves:
        await unseat(t, move.from_table, move.player)
        await seat(t, move.player, move.to_table, move.to_seat, t.carried[move.player])
        del t.carried[move.player]
    for gone in decided.broken:  # its seed stays sealed until the end (players still in)
        await t.registry.get(gone).request("t_close", None, reveal=False)
        del t.tables[gone]
        t.broken.append(gone)
