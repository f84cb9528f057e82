"""Our PHH exports read and replayed by pokerkit (a test-only reference), two ways.

``standard_replay``: pokerkit's own reading loop (``HandHistory.state_actions``, its
default automations), as anyone using pokerkit reads a file. That loop "repairs" a file: an
action it refuses is put back and it checks or folds for the player to act instead. A
repair would hide a wrong export, so here it is an error (``Refused``): every betting line
of the file must be the one pokerkit plays, and pokerkit must play no other.

``replay``: the file's actions replayed in order by this module, doing only the dealer's
work in between (antes, blinds, burns, collecting bets, the runout count, showing down,
pushing chips), each action accepted where it stands or ``Refused`` naming it. It also
reads the two user-defined keys that name what pokerkit plays but the standard has no
field for, which pokerkit's own loop cannot be told: ``_board_count`` (pokerkit's
``starting_board_count``: it then takes each street's ``d db`` lines board after board, as
we write them) and ``_run_it_twice_votes`` (pokerkit's runout-count selection: two runs
when every vote is yes; its own loop always selects one). The standard has neither: the
spec has no such field, and pokerkit's changelog says a state with several runs "will be
incompatible with the PHH file format, as it stands".

A show by the winner of a pot nobody contested (the standard's showing "after all other
players fold") comes once pokerkit has ended the hand; pokerkit takes it then (a
"non-standard showdown": the player is named), and so does ``replay`` (counted in
``Replayed.late_shows``). One documented rule difference shows up in the replay itself
(tests/poker/test_differential.py, difference 7): when everyone else has folded or is all
in and the last player with chips has nothing to call, ours ends the betting and pokerkit
still asks for a check. ``replay`` makes that check and counts it; pokerkit's own loop
makes it as a repair, which ``standard_replay`` then allows only there.
"""

from __future__ import annotations

import warnings
from collections import deque
from dataclasses import dataclass
from typing import Any

from pokerkit import (
    Automation,
    CheckingOrCalling,
    CompletionBettingOrRaisingTo,
    Folding,
    HandHistory,
    State,
)
from pokerkit.notation import parse_action

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)
BETTING = (Folding, CheckingOrCalling, CompletionBettingOrRaisingTo)


class Refused(AssertionError):
    """pokerkit refused ``action`` of the file where it stands, after ``done`` betting
    lines (f, cc, cbr) of the file were played."""

    def __init__(self, message: str, action: str = "", done: int = 0) -> None:
        super().__init__(message)
        self.action = action
        self.done = done


@dataclass
class Replayed:
    state: State
    extra_checks: int  # difference 7: checks pokerkit asked for and the file has not
    late_shows: int = 0  # shows after the hand was over (a pot nobody contested)


def is_betting(action: str) -> bool:
    """A betting line: ``pN f``, ``pN cc``, ``pN cbr AMOUNT``."""
    return action.split("#")[0].split()[1:2] in (["f"], ["cc"], ["cbr"])


def load(text: str) -> HandHistory:
    with warnings.catch_warnings():
        # An unexpected key without the underscore is warned about: make it an error.
        warnings.simplefilter("error", UserWarning)
        return HandHistory.loads(text)


def _state(hand: HandHistory) -> State:
    hand.automations = AUTOMATIONS  # no runout-count selection: the votes decide
    game: Any = hand.create_game()
    boards = hand.user_defined_fields.get("_board_count", 1)
    game.starting_board_count = boards  # a game's settings are plain attributes
    return game(hand.starting_stacks, len(hand.starting_stacks))  # type: ignore[no-any-return]


def _nobody_else_can_act(state: State) -> bool:
    actor = state.actor_index
    return (
        actor is not None
        and state.checking_or_calling_amount == 0
        and all(
            not state.statuses[i] or state.stacks[i] == 0
            for i in range(state.player_count)
            if i != actor
        )
    )


def replay(text: str) -> Replayed:
    """pokerkit's final state after the file's actions, or ``Refused``."""
    hand = load(text)
    votes = [v.split()[1] == "y" for v in hand.user_defined_fields.get("_run_it_twice_votes", [])]
    state = _state(hand)
    actions = deque(a for a in hand.actions if a.split("#")[0].strip())
    extra = done = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "not recommended" hand-picked cards
        while state.status:
            refusal = "the file ends"
            if actions:
                try:
                    parse_action(state, actions[0])
                    done += is_betting(actions.popleft())
                    continue
                except ValueError as error:
                    refusal = f"{actions[0]!r}: {error}"
            if state.can_burn_card():  # (pokerkit's games burn only when told to)
                state.burn_card("??")
            elif state.can_select_runout_count():
                state.select_runout_count(2 if votes and all(votes) else 1)
            elif state.can_show_or_muck_hole_cards() and not actions:
                state.show_or_muck_hole_cards(True)
            elif state.can_kill_hand():
                state.kill_hand()
            elif state.can_push_chips():
                state.push_chips()
            elif state.can_pull_chips():
                state.pull_chips()
            elif _nobody_else_can_act(state):
                state.check_or_call()
                extra += 1
            else:
                raise Refused(refusal, actions[0] if actions else "", done)
        late = len(actions)
        for action in actions:  # a show after the hand is over
            try:
                parse_action(state, action)
            except ValueError as error:
                raise Refused(f"{action!r}: {error}", action, done) from None
    return Replayed(state, extra, late)


def standard_replay(text: str, extra_checks: int = 0) -> State:
    """pokerkit's own loop over the file: its final state. ``Refused`` if it could not play
    every action or had to repair the file, beyond ``extra_checks`` checks (difference 7)."""
    hand = load(text)
    lines = sum(is_betting(a) for a in hand.actions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "not recommended" hand-picked cards
        try:
            *_, (state, _) = hand.state_actions
        except ValueError as error:  # "Unable to repair the hand history"
            raise Refused(f"pokerkit's own loop: {error}") from None
    played = sum(isinstance(op, BETTING) for op in state.operations)
    if state.status or played != lines + extra_checks:
        raise Refused(
            f"pokerkit's own loop played {played} betting actions for the file's {lines}"
            f" ({extra_checks} checks it asks for besides), and the hand is "
            + ("not over" if state.status else "over")
        )
    return state
