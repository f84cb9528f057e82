"""Our PHH exports read and replayed by pokerkit (a test-only reference), strictly.

pokerkit's own loop (``HandHistory.__iter__``) "repairs" a file: an action it refuses is
put back and it checks or folds for the player to act instead. That would hide a wrong
export, so this replays the file's actions in order itself, doing only the dealer's work
in between (antes, blinds, burns, collecting bets, showing down, pushing chips): every
action of the file must be accepted where it stands.

Two of our user-defined keys name things pokerkit itself plays but that the standard has
no field for: ``_board_count`` (pokerkit's ``starting_board_count``: it then takes each
street's ``d db`` lines board after board, as we write them) and ``_run_it_twice_votes``
(pokerkit's runout-count selection: two runs when every vote is yes).

A show by the winner of a pot nobody contested comes after pokerkit has ended the hand
(see ``Replayed.late_shows``). One documented rule difference shows up in the replay
itself (tests/poker/test_differential.py, difference 7): when everyone else has folded
or is all in and the last player with chips has nothing to call, ours ends the betting
and pokerkit still asks for a check. That check is made here and counted.
"""

from __future__ import annotations

import warnings
from collections import deque
from dataclasses import dataclass
from typing import Any

from pokerkit import Automation, HandHistory, State
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


class Refused(AssertionError):
    """pokerkit refused an action of the file where it stands."""


@dataclass
class Replayed:
    state: State
    extra_checks: int  # difference 7: checks pokerkit asked for and the file has not
    #: the standard lets the winner of a pot nobody contested show ("after all other
    #: players fold"); pokerkit 0.7.7 ends the hand at the last fold and takes no action
    #: after it (its own loop stops there too): such a show is left over, and counted
    late_shows: int = 0


def load(text: str) -> HandHistory:
    with warnings.catch_warnings():
        # An unexpected key without the underscore is warned about: make it an error.
        warnings.simplefilter("error", UserWarning)
        hand = HandHistory.loads(text)
    hand.automations = AUTOMATIONS  # no runout-count selection: the votes decide
    return hand


def _state(hand: HandHistory) -> State:
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
    extra = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "not recommended" hand-picked cards
        while state.status:
            refusal = "the file ends"
            if actions:
                try:
                    parse_action(state, actions[0])
                    actions.popleft()
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
                raise Refused(refusal)
    late = [a for a in actions if a.split()[1:2] == ["sm"]]
    if len(late) != len(actions) or len(late) > 1:
        raise Refused(f"the hand is over at {actions[0]!r}")
    return Replayed(state, extra, len(late))
