"""The builder strategy: always legal, and better than the reference strategy.

Legality is checked against the dealer's own rules on any hand and boards
(hypothesis) and any feeding state; strength by seeded local games of 3 to 8
players, builders and silly players in alternating seats.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from evolution.games.evolution.rules.actions import check_action
from evolution.games.evolution.rules.cards import Deck
from evolution.games.evolution.rules.feeding import FatTissueChoice
from evolution.games.evolution.rules.local import play_local_game
from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.games.evolution.strategies import BY_NAME
from evolution.games.evolution.strategies.builder import (
    BuilderPlayer,
    builder_action,
    builder_feeding_choice,
    feeding_options,
)
from tests.support.strategies import boards, cards, feeding_states


@settings(max_examples=300, deadline=None)
@given(st.lists(cards, unique=True, min_size=1, max_size=14).map(tuple), boards())
def test_every_action_it_plans_passes_the_dealers_checks(hand, board_list):
    check_action(builder_action(hand, board_list), board_list, hand)


@settings(max_examples=300, deadline=None)
@given(feeding_states)
def test_its_feeding_choice_is_always_one_of_the_options_and_legal(state):
    options = feeding_options(state)
    if not options:
        return
    choice = builder_feeding_choice(state)
    choice.check(state.boards, state.others)
    if isinstance(choice, FatTissueChoice):  # the tokens are capped at the watering hole
        assert any(o.species == choice.species and choice.tokens <= o.tokens for o in options
                   if isinstance(o, FatTissueChoice))
    else:
        assert choice in options


def test_it_beats_the_reference_strategy_and_is_never_removed():
    wins, scores, seats = Counter(), Counter(), Counter()
    for seed in range(120):
        count = 3 + seed % 6
        kinds = ["builder" if (seed + seat) % 2 else "silly" for seat in range(count)]
        result = play_local_game([BY_NAME[kind]() for kind in kinds], Deck.shuffled(seed))
        assert result.removals == ()
        best = max(entry.score for entry in result.ranking)
        for entry in result.ranking:
            kind = kinds[entry.id - 1]
            seats[kind] += 1
            scores[kind] += entry.score
            wins[kind] += entry.score == best
    def rate(counter, kind):
        return counter[kind] / seats[kind]

    assert rate(wins, "builder") > 2 * rate(wins, "silly")  # per seat: at least twice as often first
    assert rate(scores, "builder") > rate(scores, "silly")


def test_the_names_the_client_takes():
    assert BY_NAME["builder"] is BuilderPlayer and BY_NAME["silly"] is SillyPlayer
