"""The host's messages built from cached texts are, character for character, the codec's values encoded.

``evolution.games.evolution.wire.texts`` and the dialects join pieces of JSON text encoded
once; a bot (and the message log, and a replay) must see exactly what
encoding the codec's nested lists gives.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evolution.games.evolution.rules.player_state import PlayerState
from evolution.games.evolution.wire import codec, texts
from evolution.games.evolution.wire.dialects import SEED000, SEED002
from evolution.jsonwire.framing import encode_text
from tests.support import strategies as S


def player_plus(id: int, bag: int, boards: tuple, hand: tuple) -> list:
    return codec.player_to_json(PlayerState(id, list(boards), list(hand), bag))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 30), S.player_views, st.integers(1, 8))
def test_start_in_both_dialects(watering_hole, me, seat):
    assert SEED000.start(watering_hole, me, seat) == encode_text(codec.start_to_json(watering_hole, me))
    assert SEED002.start(watering_hole, me, seat) == encode_text(
        ["start", player_plus(seat, me.bag, me.boards, me.hand)]
    )


@settings(max_examples=200, deadline=None)
@given(S.chooses())
def test_choose_in_both_dialects(question):
    before, after = question
    assert SEED000.choose(before, after) == encode_text(codec.choose_to_json(before, after))
    assert SEED002.choose(before, after) == encode_text(["choose", codec.choose_to_json(before, after)])


@settings(max_examples=200, deadline=None)
@given(S.feeding_states, st.integers(1, 8))
def test_feed_next_in_both_dialects(state, seat):
    assert SEED000.feed_next(state, seat) == encode_text(codec.feed_next_to_json(state))
    assert SEED002.feed_next(state, seat) == encode_text(
        ["feed", state.watering_hole, codec.lob_to_json(state.others),
         player_plus(seat, state.bag, state.boards, state.hand)]
    )


@given(S.species())
def test_a_cached_species_is_the_same_text_the_second_time_and_after_the_cache_is_emptied(species):
    first = texts.species_text(species)
    assert texts.species_text(species) == first == encode_text(codec.species_to_json(species))
    texts._species.clear()
    assert texts.species_text(species) == first


@settings(max_examples=20, deadline=None)
@given(st.lists(S.species(), min_size=5, max_size=20, unique=True))
def test_the_species_cache_never_holds_more_than_its_limit(boards):
    original = texts.CACHE_LIMIT
    texts.CACHE_LIMIT = 3
    try:
        for species in boards + boards:
            assert texts.species_text(species) == encode_text(codec.species_to_json(species))
            assert len(texts._species) <= 3
    finally:
        texts.CACHE_LIMIT = original
