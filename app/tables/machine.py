"""The table as a state machine: `TableMachine.handle(command, now)` takes one typed command
(app/tables/commands.py) and the table clock's time, and answers with a `Step`: the effects
to execute now (app/tables/effects.py), then what the command needs before it can go on (a
write, a read, a viewer's welcome), or its end (the reply, or the `TableError` refusing
it). The actor (app/tables/table.py) meets the need and calls `resume` (or `fail`), until
the command ends. Nothing here awaits, sleeps, reads a clock or touches a socket or the
store, so a test drives a table synchronously (`run`) with whatever time it likes.

Why steps and not one list of effects per command: some commands store more than once, and
what they do next depends on whether a write succeeded (the deal settles seats one by one,
and retries later from the one that failed). A command is written as a flow (a generator)
that yields each need and carries on with its outcome: sans-I/O, like h11 or wsproto, with
the effects of each stretch between two needs in order.

"Stored before `ok`", structurally: the machine's state is a frozen value (`core.Kept`, with
the hand in play) replaced by every change; before each need the driver keeps it
(`checkpoint`), and when a write fails it puts it back and throws the failure into the flow
(a best-effort write only reports it). So a refused write leaves the table as it was after
the last write that succeeded, whatever the command had changed meanwhile, and the effects
executed before it were all of stored state.

The parts: `core` (the state and the moves all parts make), `seating`, `host`, `pausing`
(the host's pause, which stops the hand's clock), `chat`, `seeds`, `tournament`,
`watching`, `play` (actions, the turn and its clock), `pace` (the
showdown without waiting, the short clock, the bank's refill, timeouts), `dealer` (the
next hand); `seat` (the seat book: each seat's state one enum, one transition) and `clock`
(every deadline as data). A new command is its class in `commands` and a line in
`HANDLERS`; a new timer kind a `clock.TimerKind` and a line in `TIMERS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.tables import (
    after,
    chat,
    dealer,
    host,
    pace,
    pausing,
    play,
    seating,
    seeds,
    showing,
    tournament,
    watching,
)
from app.tables.clock import Timer, TimerKind
from app.tables.commands import (
    Act,
    AddBot,
    Adjust,
    Approve,
    Attach,
    Auto,
    BombPotNext,
    CancelRequest,
    Chat,
    Close,
    Detach,
    Fire,
    Leave,
    Ledger,
    MoreTime,
    Pause,
    RabbitHunt,
    React,
    Refuse,
    Remove,
    Resume,
    RotateSeed,
    Seed,
    SetPreference,
    SetStakes,
    Show,
    ShowCards,
    Sit,
    SitIn,
    SitOut,
    SitOutNext,
    SitOutNextBb,
    SpectatorChat,
    Start,
    Straddle,
    TableCommand,
    TAddon,
    TClose,
    TDeal,
    TopUp,
    TransferHost,
    TSeat,
    TUnseat,
    check_kind,
)
from app.tables.core import Checkpoint, Flow, Reply, TableCore
from app.tables.effects import Effect, Need, Read, Welcome, Write
from app.tables.errors import TableError

Handler = Callable[[TableCore, Any], Flow[Reply] | Reply]

#: what each timer does when it runs out
TIMERS: Mapping[TimerKind, Callable[[TableCore, Timer], Flow[Reply] | Reply]] = {
    TimerKind.TURN: lambda t, timer: play.timeout(t),
    TimerKind.NEXT_HAND: lambda t, timer: dealer.next_hand(t),
    TimerKind.GRACE: lambda t, timer: play.grace(t, timer.player_id),
}


def fire(t: TableCore, c: Fire) -> Flow[Reply] | Reply:
    """A timer is due: taken only if it is still armed for that moment."""
    if not t.clock.fired(c.timer, c.at):
        return None
    return TIMERS[c.timer.kind](t, c.timer)


HANDLERS: Mapping[type[TableCommand], Handler] = {
    Sit: seating.sit,
    Approve: seating.approve,
    Refuse: seating.refuse,
    CancelRequest: seating.cancel_request,
    TopUp: seating.top_up,
    SitOut: seating.sit_out,
    SitIn: seating.sit_in,
    Straddle: seating.straddle,
    Leave: seating.leave,
    SitOutNext: seating.sit_out_next,
    SitOutNextBb: seating.sit_out_next_bb,
    SetPreference: pace.set_preference,
    Ledger: seating.ledger,
    Pause: pausing.pause,
    Resume: pausing.resume,
    SetStakes: host.set_stakes,
    Remove: host.remove,
    Adjust: host.adjust,
    Close: host.close,
    TransferHost: host.transfer_host,
    BombPotNext: host.bomb_pot_next,
    SpectatorChat: host.spectator_chat,
    AddBot: host.add_bot,
    Chat: chat.chat,
    React: chat.react,
    Seed: seeds.seed,
    RotateSeed: seeds.rotate_seed,
    Act: play.act,
    Show: play.show,
    RabbitHunt: after.hunt,
    ShowCards: showing.show_cards,
    MoreTime: play.more_time,
    Auto: play.auto,
    Fire: fire,
    Start: dealer.start,
    Attach: watching.attach,
    Detach: watching.detach,
    TSeat: tournament.t_seat,
    TUnseat: tournament.t_unseat,
    TAddon: tournament.t_addon,
    TDeal: tournament.t_deal,
    TClose: tournament.t_close,
}


@dataclass(slots=True)
class Step:
    """Where a command stands: `effects` to execute now, in order; then `need` to meet, or
    (need None) the command's end: `error`, or `ok` with `result`."""

    effects: list[Effect]
    need: Need | None = None
    result: Reply = None
    error: TableError | None = None


@dataclass
class Outcome:
    """A command run to its end by `TableMachine.run`: its answer, and everything it did
    (effects and needs, in order)."""

    result: Reply
    error: TableError | None
    did: list[Effect | Need] = field(default_factory=list)


class TableMachine:
    """One table's logic over its state (`core`), one command at a time."""

    def __init__(self, core: TableCore) -> None:
        self.core = core
        self._flow: Flow[Reply] | None = None
        self._need: Need | None = None
        self._checkpoint: Checkpoint | None = None

    def handle(self, command: TableCommand, now: float) -> Step:
        assert self._flow is None, "a table handles one command at a time"
        t = self.core
        t.now, t.effects = now, []
        try:
            check_kind(command.kind, command.sender, t.kept.host_id, t.config.tournament)
            out = HANDLERS[type(command)](t, command)
        except TableError as error:
            return Step(self._effects(), error=error)
        if out is None or isinstance(out, dict):  # answered without a need
            return Step(self._effects(), result=out)
        self._flow, self._checkpoint = out, t.checkpoint()
        return self._advance(None)

    def resume(self, value: Any, now: float) -> Step:
        """The need was met (`value`: what a read read)."""
        self.core.now = now
        self._checkpoint = self.core.checkpoint()
        return self._advance(value)

    def fail(self, error: TableError, now: float) -> Step:
        """The need could not be met: the state goes back to the last write that succeeded
        and the flow goes on from the failure (a best-effort write's failure is only told)."""
        need, checkpoint = self._need, self._checkpoint
        assert checkpoint is not None
        self.core.now = now
        if isinstance(need, Write) and need.best_effort:
            self._checkpoint = self.core.checkpoint()
            return self._advance(error)
        self.core.restore(checkpoint)
        return self._advance(error, throw=True)

    def _advance(self, value: Any, *, throw: bool = False) -> Step:
        flow = self._flow
        assert flow is not None
        try:
            need = flow.throw(value) if throw else flow.send(value)
        except StopIteration as done:
            self._flow = None
            return Step(self._effects(), result=done.value)
        except TableError as error:
            self._flow = None
            return Step(self._effects(), error=error)
        except BaseException:
            self._flow = None
            raise
        self._need = need
        return Step(self._effects(), need=need)

    def _effects(self) -> list[Effect]:
        effects, self.core.effects = self.core.effects, []
        return effects

    def run(
        self,
        command: TableCommand,
        now: float,
        refuse: Callable[[Need], TableError | None] = lambda need: None,
        read: Callable[[Read], Any] = lambda need: need.op.unread(),
    ) -> Outcome:
        """Run `command` to its end synchronously: each write is taken as stored unless
        `refuse` gives the error it fails with; each read is answered by `read`."""
        step = self.handle(command, now)
        did: list[Effect | Need] = []
        while True:
            did.extend(step.effects)
            need = step.need
            if need is None:
                return Outcome(step.result, step.error, did)
            did.append(need)
            error = refuse(need) if not isinstance(need, Welcome) else None
            if error is not None:
                step = self.fail(error, now)
            else:
                step = self.resume(read(need) if isinstance(need, Read) else None, now)
