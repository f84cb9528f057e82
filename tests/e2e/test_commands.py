"""The command box's words against known turns: each typed command either becomes exactly the
action and amount the server offered, or is refused with what was offered (the client holds
no rules). The turns are the server's own messages applied to a page; what the page would
send is caught before the socket."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import PlayerFactory
from tests.e2e.harness import Player

H = "fake-hand"

FACING_A_RAISE = {"actions": ["fold", "call", "raise"], "call": 3, "min_to": 8, "max_to": 14,
                  "pot_to": 14}  # fmt: skip
FREE_CHECK = {"actions": ["fold", "check", "bet"], "call": 0, "min_to": 2, "max_to": 12,
              "pot_to": 12}  # fmt: skip
FIXED = {"actions": ["fold", "call", "raise"], "call": 2, "min_to": 8, "max_to": 8, "pot_to": 8}
CALL_ONLY = {"actions": ["fold", "call"], "call": 5, "min_to": None, "max_to": None,
             "pot_to": None}  # fmt: skip

# A turn's `phase` rides along in these (it is the `turn` message's, beside `legal`).
SHOWDOWN = {"phase": "showdown", "actions": ["show", "muck"]}
MUST_SHOW = {"phase": "showdown", "actions": ["show"]}
VOTE = {"phase": "run-it-twice", "actions": ["run-twice"]}

# (legal, typed, what is sent or None, what is said or None)
CASES: list[tuple[dict[str, Any], str, Any, str | None]] = [
    (FACING_A_RAISE, "call", ["call", {}], None),
    (FACING_A_RAISE, "C", ["call", {}], None),
    (FACING_A_RAISE, "raise 10", ["raise", {"amount": 10}], None),
    (FACING_A_RAISE, "raise to 14.", ["raise", {"amount": 14}], None),
    (FACING_A_RAISE, "bet 9", ["raise", {"amount": 9}], None),  # the one wager offered
    (FACING_A_RAISE, "12", ["raise", {"amount": 12}], None),
    (FACING_A_RAISE, "pot", ["raise", {"amount": 14}], None),
    (FACING_A_RAISE, "min", ["raise", {"amount": 8}], None),
    (FACING_A_RAISE, "fold", ["fold", {}], None),
    (
        FACING_A_RAISE,
        "raise 15",
        None,
        "Not possible: raise 15. You can call 3, or raise from 8 to 14, or fold.",
    ),
    (FACING_A_RAISE, "raise 7", None, "Not possible: raise 7. You can call 3"),
    (FACING_A_RAISE, "raise 9.5", None, "Say a whole number of chips"),
    (FACING_A_RAISE, "raise", None, "Say how much: raise from 8 to 14"),
    (FACING_A_RAISE, "check", None, "Not possible: you cannot check, 3 to call."),
    (FACING_A_RAISE, "all in", None, "Not possible: you cannot go all in now."),
    (FREE_CHECK, "check", ["check", {}], None),
    (FREE_CHECK, "bet 5", ["bet", {"amount": 5}], None),
    (FREE_CHECK, "half pot", ["bet", {"amount": 6}], None),
    (FREE_CHECK, "call", None, "Not possible: there is nothing to call."),
    (FREE_CHECK, "fold", None, "Checking is free. Type fold again"),
    (FIXED, "raise", ["raise", {"amount": 8}], None),
    (FIXED, "raise 9", None, "Not possible: raise 9. You can call 2, or raise to 8, or fold."),
    (CALL_ONLY, "raise 10", None, "Not possible: you cannot bet or raise now. You can call 5"),
    (CALL_ONLY, "dance", None, '"dance" is not a command.'),
    (CALL_ONLY, "time", None, "No clock is running."),
    (CALL_ONLY, "cards", None, "You have no cards."),
    (SHOWDOWN, "muck", ["muck", {}], None),
    (SHOWDOWN, "show", ["show", {}], None),
    (MUST_SHOW, "muck", None, "Not possible: you must show this hand. You can show."),
    (VOTE, "yes", ["run-twice", {"agree": True}], None),
    (VOTE, "once", ["run-twice", {"agree": False}], None),
    (VOTE, "call", None, "Everyone is all in: type yes to run it twice, or no for one run."),
]


def seated_page(p: Player) -> None:
    p.join()
    r = p.page.request.post(p.base + "/api/tables", data={"seats": 3, "decision_time": 0})
    assert r.status == 201, r.text()
    p.open(f"/t/{r.json()['code']}")
    # The page believes it holds seat 0 of a hand that only exists in these messages.
    p.page.evaluate(
        """() => {
          const c = window.__omaha.ctrl;
          c.state.you.seat = 0;
          c.sent = [];
          c.act = (action, extra = {}) => { c.sent.push([action, extra]); };
          c.setSetting('screenReader', true);
          const seat = (s, name) => ({type: 'seat', seat: s, player_id: 'p' + s, name, stack: 20,
            status: 'playing', away: false, straddle: false});
          [seat(0, 'Me'), seat(1, 'Bob'),
           {type: 'hand_started', hand: 'fake-hand', number: 1, button: 1, seats: [0, 1],
            stacks: [20, 20], bomb_pot: false, straddle: null}].forEach((e) => c.receive(e));
        }"""
    )


def test_a_typed_command_maps_to_what_the_server_offered(players: PlayerFactory) -> None:
    p = players("Typist")
    seated_page(p)
    for legal, typed, sent, said in CASES:
        out = p.page.evaluate(
            """async ([legal, typed]) => {
              const c = window.__omaha.ctrl;
              c.ui.confirmFold = false;
              c.receive({type: 'turn', hand: 'fake-hand', counter: 0, seat: 0,
                         phase: legal.phase || 'betting', timeout: null, time_bank: null,
                         in_time_bank: false, legal});
              c.sent = [];
              await c.runCommand(typed);
              const lines = c.narrator.lines;
              return {sent: c.sent, said: lines[lines.length - 1].text};
            }""",
            [legal, typed],
        )
        assert out["sent"] == ([sent] if sent else []), (typed, legal, out)
        if said is not None:
            assert out["said"].startswith(said), (typed, legal, out)
    assert not p.errors, p.errors


def test_the_turn_is_said_with_the_servers_figures(players: PlayerFactory) -> None:
    p = players("Listener")
    seated_page(p)
    prompts = p.page.evaluate(
        """(cases) => cases.map((legal) => {
          const c = window.__omaha.ctrl;
          c.receive({type: 'turn', hand: 'fake-hand', counter: 0, seat: 0, phase: 'betting',
                     timeout: null, time_bank: null, in_time_bank: false, legal});
          return c.narrator.lines[c.narrator.lines.length - 1].text;
        })""",
        [FACING_A_RAISE, FREE_CHECK, FIXED, CALL_ONLY],
    )
    # With a clock, the seconds to decide.
    timed = p.page.evaluate(
        """async (legal) => {
          const c = window.__omaha.ctrl;
          c.receive({type: 'turn', hand: 'fake-hand', counter: 0, seat: 0, phase: 'betting',
                     timeout: 30, time_bank: 60, in_time_bank: false, legal});
          await c.runCommand('time');
          return c.narrator.lines.slice(-2).map((l) => l.text);
        }""",
        CALL_ONLY,
    )
    assert timed == ["Your turn: call 5, or fold. Pot 0. 30 seconds.", "You have 30 seconds."]
    assert prompts == [
        "Your turn: call 3, or raise from 8 to 14, or fold. Pot 0.",
        "Your turn: check, or bet from 2 to 12. Pot 0.",
        "Your turn: call 2, or raise to 8, or fold. Pot 0.",
        "Your turn: call 5, or fold. Pot 0.",
    ]


def test_seats_coming_and_going_are_said(players: PlayerFactory) -> None:
    p = players("Watcher")
    seated_page(p)
    said = p.page.evaluate(
        """() => {
          const c = window.__omaha.ctrl;
          const bob = {type: 'seat', seat: 1, player_id: 'p1', name: 'Bob', stack: 20,
                       status: 'playing', away: false, straddle: false};
          const steps = [
            {...bob, status: 'sitting_out'}, {...bob}, {...bob, away: true}, {...bob},
            {type: 'seat', seat: 2, player_id: 'p2', name: 'Cy', stack: 80, status: 'waiting',
             away: false, straddle: false},
            {type: 'left', seat: 2, player_id: 'p2', cash_out: 80},
          ];
          return steps.map((e) => { c.receive(e); return c.narrator.lines.at(-1).text; });
        }"""
    )
    assert said == [
        "Bob sits out.",
        "Bob is back.",
        "Bob is away.",
        "Bob is back.",
        "Cy sits in seat 3 with 80.",
        "Cy leaves seat 3.",
    ]
