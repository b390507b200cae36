"""The read_* pipelines: what the host and the codec produce validates, what a bot must not send is refused.

- hypothesis over rules values: every encoder's output validates against its
  schema and reads back to the same value;
- real games (Deck.shuffled(seed), every message recorded through the dealer's
  player interface, some games with a player that fails): every message
  validates, every reply passes the host's whole pipeline;
- the rules-level checks a schema cannot express (indexes, each card once,
  growth limits, feeding options, food <= population, fat food <= body), each
  with its path and reason; the schema always speaks first.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evolution.games.evolution.rules.actions import Action4, Growth, NewBoard, TraitReplacement
from evolution.games.evolution.rules.cards import Card
from evolution.games.evolution.rules.feeding import CarnivoreChoice, FatTissueChoice, VegetarianChoice
from evolution.games.evolution.rules.player import FeedingState
from evolution.games.evolution.rules.player_state import PlayerView
from evolution.games.evolution.rules.species import Species
from evolution.games.evolution.rules.traits import Trait
from evolution.games.evolution.wire import codec
from evolution.games.evolution.wire.messages import (
    message_kind,
    read_action4,
    read_choose,
    read_feed_next,
    read_feeding_choice,
    read_score,
    read_signup,
    read_signup_reply,
    read_start,
)
from evolution.games.evolution.wire.schemas import SCHEMAS
from evolution.jsonwire.wire_errors import WireError
from tests.support import strategies as S

HOST_MESSAGES = ("start", "choose", "feed-next", "score")


def as_sent(boards):
    """Boards as a client reads them back: fat food survives only on a fat-tissue card."""
    return tuple(s._replace(fat_food=s.fat_food if Trait.FAT_TISSUE in s.traits else 0) for s in boards)


# -- encoders over rules values ----------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 40), S.player_views)
def test_start_validates_and_reads_back(watering_hole, view):
    value = codec.start_to_json(watering_hole, view)
    assert SCHEMAS.is_valid("start", value) and message_kind(value) == "start"
    assert read_start(value) == (watering_hole, view._replace(boards=as_sent(view.boards)))


@settings(max_examples=60, deadline=None)
@given(S.chooses())
def test_choose_validates_and_reads_back(lobs):
    before, after = lobs
    value = codec.choose_to_json(before, after)
    assert SCHEMAS.is_valid("choose", value) and message_kind(value) == "choose"
    assert read_choose(value) == (
        tuple(as_sent(boards) for boards in before),
        tuple(as_sent(boards) for boards in after),
    )


@settings(max_examples=60, deadline=None)
@given(S.feeding_states)
def test_feed_next_validates_and_reads_back(state):
    value = codec.feed_next_to_json(state)
    assert SCHEMAS.is_valid("feed-next", value) and message_kind(value) == "feed-next"
    assert read_feed_next(value) == state._replace(
        boards=as_sent(state.boards), others=tuple(as_sent(boards) for boards in state.others)
    )


@settings(max_examples=80, deadline=None)
@given(st.one_of(S.silly_actions(), S.legal_actions()))
def test_action4_validates_and_passes_the_whole_pipeline(view_and_action):
    view, action = view_and_action
    value = codec.action4_to_json(action)
    assert SCHEMAS.is_valid("action4", value)
    assert read_action4(value, view) == action


@settings(max_examples=60, deadline=None)
@given(S.feeding_choices)
def test_feeding_choice_validates_and_decodes(choice):
    value = codec.feeding_choice_to_json(choice)
    assert SCHEMAS.is_valid("feeding-choice", value)
    assert codec.feeding_choice_from_json(value) == choice


@settings(max_examples=40, deadline=None)
@given(S.rankings())
def test_score_validates_and_reads_back(ranking):
    value = codec.score_to_json(ranking)
    assert SCHEMAS.is_valid("score", value) and message_kind(value) == "score"
    assert read_score(value) == [(entry.id, entry.score) for entry in ranking]


# -- real games ---------------------------------------------------------------------------


def check_record(record: S.Record) -> None:
    SCHEMAS.check(record.kind, record.value)
    if record.kind in HOST_MESSAGES:
        assert message_kind(record.value) == record.kind
    if record.kind == "start":
        read_start(record.value)
    elif record.kind == "choose":
        read_choose(record.value)
    elif record.kind == "feed-next":
        read_feed_next(record.value)
    elif record.kind == "score":
        read_score(record.value)
    elif record.kind == "action4":
        assert read_action4(record.value, record.context) == codec.action4_from_json(record.value)
    elif record.kind == "feeding-choice":
        read_feeding_choice(record.value, record.context)


@settings(max_examples=40, deadline=None)
@given(S.recorded_games)
def test_every_message_of_a_real_game_validates(log):
    for record in log:
        check_record(record)


def test_real_games_cover_every_message_the_host_sends():
    seen: Counter[str] = Counter()
    for seed in range(12):
        for players in (3, 5, 8):
            log = S.record_game(seed, players, 7 if seed % 3 == 0 else None)
            for record in log:
                check_record(record)
            seen.update(record.kind for record in log)
    assert set(seen) == {"start", "choose", "action4", "feed-next", "feeding-choice", "score"}
    assert seen["feed-next"] > 20


def test_signup_and_its_reply():
    assert read_signup("good guy") == "good guy"
    assert read_signup(["sign-up", "good guy"]) == "good guy"
    assert read_signup_reply("ok") == "ok"
    assert read_signup_reply(["ok", "good guy#2"]) == ["ok", "good guy#2"]
    assert read_signup_reply("game full") == "game full"
    assert read_signup_reply("ack") == "ack", "other hosts answer ack; schemas/README.md says accept both"
    with pytest.raises(WireError) as raised:
        read_signup(["good guy"])
    assert str(raised.value) == ('signup: ["good guy"] is none of: a string (the name), ["sign-up", name], '
                                 '["sign-up", name, {"key": secret}]')


# -- Action4: the rules-level checks -------------------------------------------------------

HAND = (
    Card(-1, Trait.HORNS),
    Card(2, Trait.AMBUSH),
    Card(3, Trait.HORNS),
    Card(1, Trait.CARNIVORE),
    Card(0, Trait.FAT_TISSUE),
)
BOARDS = (
    Species(body=7, population=6, traits=(Trait.HORNS,)),
    Species(traits=(Trait.AMBUSH, Trait.CLIMBING)),
)
ME = PlayerView(0, BOARDS, HAND)

ILLEGAL_ACTIONS = [
    ([5, [], [], [], []], "action4.food-card", "card 5 is not in the hand of 5 cards"),
    ([0, [[0, 0]], [], [], []], "action4.grow-population[0]", "card 0 is used twice"),
    ([0, [[2, 1]], [], [], []], "action4.grow-population[0]", "board 2 does not exist (2 boards + 0 new)"),
    ([0, [], [[3, 1]], [[2]], []], "action4.grow-body[0]", "board 3 does not exist (2 boards + 1 new)"),
    ([0, [], [], [[1]], [[2, 0, 3]]], "action4.replace-traits[0]", "board 2 has no trait at position 0 (it has 0)"),
    ([0, [], [], [], [[1, 2, 3]]], "action4.replace-traits[0]", "board 1 has no trait at position 2 (it has 2)"),
    ([0, [], [], [[1, 2]], [[0, 0, 2]]], "action4.replace-traits[0]", "card 2 is used twice"),
    ([1, [], [], [[3, 0, 2]], []], "action4.new-boards[0]", "the new board would have a trait twice"),
    ([1, [[0, 0], [0, 2]], [], [], []], "action4.grow-population[1]", "board 0 would grow beyond 7"),
    ([1, [], [[0, 0]], [], []], "action4.grow-body[0]", "board 0 would grow beyond 7"),
    ([0, [], [], [], [[1, 1, 1]]], "action4.replace-traits[0]", "board 1 would have the trait ambush twice"),
    ([1, [], [], [], [[1, 0, 2], [1, 1, 0]]], "action4.replace-traits[1]", "board 1 would have the trait horns twice"),
    # the schema speaks first: this reply also names a card past the hand
    ([9, [[0, -1]], [], [], []], "action4.grow-population[0].card", "-1 is less than 0"),
]


@pytest.mark.parametrize("value, path, reason", ILLEGAL_ACTIONS, ids=[p for _, p, _ in ILLEGAL_ACTIONS])
def test_illegal_action4_is_refused_with_path_and_reason(value, path, reason):
    with pytest.raises(WireError) as raised:
        read_action4(value, ME)
    assert (raised.value.path, raised.value.reason) == (path, reason)


def test_a_player_with_no_cards_cannot_answer_choose():
    with pytest.raises(WireError) as raised:
        read_action4([0, [], [], [], []], PlayerView(0, BOARDS, ()))
    assert str(raised.value) == "action4.food-card: card 0 is not in the hand of 0 cards"


def test_legal_action4_reads_to_the_rules_value():
    action = read_action4([0, [[2, 4]], [], [[1, 2]], [[1, 0, 3]]], ME)
    assert action == Action4(
        0,
        grow_population=(Growth(2, 4),),
        new_boards=(NewBoard(1, (2,)),),
        replace_traits=(TraitReplacement(1, 0, 3),),
    )


# -- feeding choices: the rules-level checks --------------------------------------------------

STATE = FeedingState(
    bag=0,
    boards=(
        Species(food=0, population=2),
        Species(food=0, body=3, population=2, traits=(Trait.CARNIVORE,)),
        Species(food=1, population=1),
        Species(food=1, body=3, population=1, traits=(Trait.FAT_TISSUE,), fat_food=1),
    ),
    hand=(),
    watering_hole=5,
    others=((Species(body=1),), (Species(traits=(Trait.CLIMBING,)), Species(traits=(Trait.HARD_SHELL,)))),
)

ILLEGAL_CHOICES = [
    (4, "feeding-choice", "species 4 does not exist (the player has 4 boards)"),
    (1, "feeding-choice", "species 1 is a carnivore, not a vegetarian"),
    (2, "feeding-choice", "species 2 is not hungry"),
    ([9, 1], "feeding-choice", "species 9 does not exist (the player has 4 boards)"),
    ([0, 1], "feeding-choice", "species 0 has no fat-tissue trait"),
    ([3, 3], "feeding-choice", "species 3 can store 1..2 tokens, not 3"),
    ([4, 0, 0], "feeding-choice", "attacker 4 does not exist (the player has 4 boards)"),
    ([1, 2, 0], "feeding-choice", "player 2 does not exist (2 other players)"),
    ([1, 1, 2], "feeding-choice", "player 1 has no species 2 (it has 2)"),
    ([0, 0, 0], "feeding-choice", "attacker 0 is not a carnivore"),
    ([1, 1, 0], "feeding-choice", "attacker 1 may not attack species 0 of player 1"),
    (False, "feeding-choice",
     "false is not accepted: declined to feed, but the host asks only when there are two or more options"),
    ([1, 1, -2], "feeding-choice.target", "-2 is less than 0"),
]


@pytest.mark.parametrize("value, path, reason", ILLEGAL_CHOICES, ids=[str(v) for v, _, _ in ILLEGAL_CHOICES])
def test_illegal_feeding_choice_is_refused_with_path_and_reason(value, path, reason):
    with pytest.raises(WireError) as raised:
        read_feeding_choice(value, STATE)
    assert (raised.value.path, raised.value.reason) == (path, reason)


def test_legal_feeding_choices_read_to_rules_values():
    assert read_feeding_choice(0, STATE) == VegetarianChoice(0)
    assert read_feeding_choice([3, 2], STATE) == FatTissueChoice(3, 2)
    assert read_feeding_choice([1, 0, 0], STATE) == CarnivoreChoice(1, 0, 0)


# -- species: what a schema cannot say ------------------------------------------------------


def sp(food=0, body=0, population=1, traits=(), fat_food=None):
    fields = [["food", food], ["body", body], ["population", population], ["traits", list(traits)]]
    return fields + ([["fat-food", fat_food]] if fat_food is not None else [])


@pytest.mark.parametrize(
    "read, value, message",
    [
        (read_feed_next, [0, [sp(food=3, population=2)], [], 1, []],
         "feed-next.boards[0].food: 3 is more than the population 2"),
        (read_feed_next, [0, [sp()], [], 1, [[], [sp(body=2, traits=["fat-tissue"], fat_food=3)]]],
         "feed-next.others[1][0].fat-food: 3 is more than the body size 2"),
        (read_start, [0, 0, [sp(), sp(food=2, population=1)], []],
         "start.boards[1].food: 2 is more than the population 1"),
        (read_choose, [[], [[sp(food=7, population=6)]]], "choose.after[0][0].food: 7 is more than the population 6"),
    ],
)
def test_species_checks_beyond_the_schema(read, value, message):
    with pytest.raises(WireError) as raised:
        read(value)
    assert str(raised.value) == message


# -- telling host messages apart ------------------------------------------------------------


@pytest.mark.parametrize(
    "value, kind",
    [
        ("ok", "signup-reply"),
        ("game full", "signup-reply"),
        ([0, 0, [sp()], [[1, "horns"]]], "start"),
        ([[], [[sp()]]], "choose"),
        ([[[sp()]], [[sp()], [sp()]]], "choose"),
        ([0, [sp()], [], 3, []], "feed-next"),
        ([[1, 12], [3, 7], [2, 7]], "score"),
        ([[2, 0]], "score"),
        (5, "unknown"),
        ([], "unknown"),
        ([1, 2, 3], "unknown"),
        (None, "unknown"),
    ],
)
def test_message_kind(value, kind):
    assert message_kind(value) == kind
