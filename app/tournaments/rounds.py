"""Play in rounds: the deal called at every table with the level in force, each hand's end
(who busted is placed and leaves), the moves between rounds (balancing, breaking tables, the
final table's draw) and the end (places, prizes, the tables closed)."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from app.tables.command import Command
from app.tables.errors import TableError
from app.tournaments.balance import TableSeats, plan
from app.tournaments.field import draw as seat_draw
from app.tournaments.payouts import prizes, split
from app.tournaments.state import DirectorState, HandLog

log = logging.getLogger("omaha.tournaments")


class Rounds(DirectorState):
    def _deal_all(self, delay: float = 0.0) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(delay, self.post, Command("deal_all"))

    async def _on_deal_all(self, c: Command) -> None:
        """Deal every table between hands (with two players or more) at the level in force
        now; on a break, come back when it ends."""
        self._timer = None
        if self.status != "running" or any(t.playing for t in self.tables.values()):
            return
        if (kind := self._chop_agreed()) is not None:
            await self._finish(kind)
            return
        if (talks := self._deal_talks()) > 0:  # the players left talk of a deal: wait
            self._deal_all(talks)
            return
        elapsed = self.elapsed()  # one reading: the level and the hand's time agree
        moment = self.settings.schedule.at(elapsed)
        if moment.on_break:
            assert moment.remaining is not None
            self._deal_all(moment.remaining)
            return
        level = self.settings.schedule.levels[moment.level]
        # The clock's reading, stored once a round: after a crash the level goes on from
        # here, not from the start (a failed write is tried again with the next round).
        with contextlib.suppress(TableError):
            await self._save_state()
        for state in self.tables.values():
            if len(state.seats) < 2:
                continue
            table = self.registry.get(state.id)
            # TDA 48: the fixed-limit cap holds heads-up until the event is down to two.
            result = await table.request(
                "t_deal", None, small_blind=level.small_blind, big_blind=level.big_blind,
                ante=level.ante, big_blind_ante=level.big_blind_ante,
                cap_heads_up=len(self.live) > 2)  # fmt: skip
            state.playing = True
            self.hands.append(HandLog(state.id, int(result["hand"]), moment.level, elapsed))

    async def _on_hand_ended(self, c: Command) -> None:
        event = c.data
        state = self.tables.get(str(event["table"]))
        if state is None:
            return
        state.playing = False
        stacks: dict[str, int] = {str(p): int(s) for p, s in event["stacks"].items()}
        started: dict[str, int] = {str(p): int(s) for p, s in event["started"].items()}
        state.stacks = stacks
        state.button = event.get("button")
        for k in range(len(self.hands) - 1, -1, -1):  # the chips when this hand ended
            h = self.hands[k]
            if h.table == state.id and h.number == event["hand"]:
                total = sum(sum(t.stacks.values()) for t in self.tables.values())
                self.hands[k] = HandLog(h.table, h.number, h.level, h.elapsed, total)
                break
        for p, stack in stacks.items():
            if stack == 0 and p in self.live:
                self._round_busts[self.live[p]] = started.get(p, 0)
        if any(t.playing for t in self.tables.values()):
            return  # the round ends with the last table's hand
        await self._place_round()
        if self.standings.left == 1:
            await self._finish()
            return
        if (kind := self._chop_agreed()) is not None:
            await self._finish(kind)  # the players left agreed a deal
            return
        await self._balance()
        self._deal_all(self.between_hands)

    async def _place_round(self) -> None:
        """Place the round's bust-outs and take them off their tables. Every table plays one
        hand a round and the next round waits for all (hand for hand), so they went out in
        the same hand: the larger stack at its start finishes better, equal stacks share
        (`Standings.bust`; TDA RP-8, PokerStars' "synchronized" hand)."""
        busts, self._round_busts = self._round_busts, {}
        if not busts:
            return
        out = [self.entries[key] for key in busts]
        for key, place in self.standings.bust(busts).items():
            self.entries[key].place = place
        with contextlib.suppress(TableError):  # in memory; all stored again at the end
            await self._write(self.store.save_places(self.id, out))
        for entry in out:
            pid, table_id = entry.player_id, entry.table
            if table_id is not None and table_id in self.tables:
                await self.registry.get(table_id).request("t_unseat", None, player_id=pid)
                state = self.tables[table_id]
                state.seats = {n: q for n, q in state.seats.items() if q != pid}
                state.stacks.pop(pid, None)
                self._carried.pop(pid, None)
            entry.table = entry.seat = None
            del self.live[pid]

    async def _balance(self) -> None:
        """Moves between hands: balance, break tables, draw the final table."""
        seats = [TableSeats(t.id, self.settings.seats, dict(t.seats), t.button)
                 for t in self.tables.values()]  # fmt: skip
        players = [p for t in self.tables.values() for p in t.seats.values()]
        self.shuffle(players)
        decided = plan(seats, players, rng=seat_draw)  # TDA 10-B: a broken table's seats drawn
        if decided.final is not None:
            final_id, draw = decided.final
            for t in list(self.tables.values()):
                for pid in list(t.seats.values()):
                    await self._unseat(t.id, pid)
            for seat, pid in draw.items():
                await self._seat(pid, final_id, seat, self._carried.pop(pid))
        for move in decided.moves:
            await self._unseat(move.from_table, move.player)
            await self._seat(
                move.player, move.to_table, move.to_seat, self._carried.pop(move.player)
            )
        for gone in decided.broken:  # its seed stays sealed until the end (players still in)
            await self.registry.get(gone).request("t_close", None, reveal=False)
            del self.tables[gone]
            self.broken.append(gone)

    async def _unseat(self, table_id: str, pid: str) -> None:
        result = await self.registry.get(table_id).request("t_unseat", None, player_id=pid)
        state = self.tables[table_id]
        state.seats = {n: p for n, p in state.seats.items() if p != pid}
        state.stacks.pop(pid, None)
        self._carried[pid] = int(result["stack"])

    async def _finish(self, chop: str | None = None) -> None:
        """One player holds every chip (or those left agreed a `chop`): places, prizes, the
        results stored, the tables closed."""
        amounts = split(self.prize_pool(), self.payouts())
        chopped: dict[str, int] = {}
        if chop is not None:
            try:
                chopped = await self._chop(chop)
            except TableError as error:  # no figures (the worker failed): no deal, play on
                log.warning("tournament %s: the deal failed (%s)", self.id, error.code)
                self.chop_votes.clear()
                self._deal_all(self.between_hands)
                return
        else:
            winner = next(k for k, e in self.entries.items() if e.place is None)
            self.standings.win(winner)
            self.entries[winner].place = 1
        # Shared places' odd units go to the earliest entries (`prizes`): registration order.
        places = {k: self.standings.places[k] for k in self.entries if k in self.standings.places}
        for key, prize in prizes(places, amounts).items():
            self.entries[key].prize = chopped.get(key, prize)
        self._elapsed, self._since = self.elapsed(), None
        self.status = "finished"
        self.stop()
        for _ in range(3):  # the results must be stored: try a few times
            try:
                await self._write(self.store.save_places(self.id, list(self.entries.values())))
                await self._save_state()
                break
            except TableError:
                await asyncio.sleep(1.0)
        for t in self.tables.values():
            table = self.registry.get(t.id)
            for pid in list(t.seats.values()):
                await table.request("t_unseat", None, player_id=pid)
            await table.request("t_close")
            self.registry.directors.pop(t.id, None)
        try:  # the broken tables' seeds, sealed while their players played on
            await self.registry.store.reveal_seeds(self.broken)
        except Exception as error:
            log.error("tournament %s: broken tables' seeds not revealed (%s)", self.id,
                      type(error).__name__)  # fmt: skip
