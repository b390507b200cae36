"""The silly strategy's fat-tissue choice, as the course's reference makes it (rules.md 12.2).

Among the fat-tissue species with room left, the reference picks by the full
need (body minus fat food), the "larger" species breaking ties, and only then
limits the answer to the watering hole: ``[s, min(need, watering hole)]``.
These cases came out of comparing our answers with the reference on random
valid xfeed inputs; the course's own xfeed cases pass either way.
"""

from __future__ import annotations

import json

import pytest

from evolution.games.evolution.wire.harness import run_harness


def board(food: int, body: int, population: int, traits: list[str], fat_food: int = 0) -> list:
    fields = [["food", food], ["body", body], ["population", population], ["traits", traits]]
    return fields + [["fat-food", fat_food]] if fat_food else fields


def xfeed(boards: list, watering_hole: int) -> object:
    player = [["id", 1], ["species", boards], ["bag", 0]]
    return run_harness("xfeed", json.dumps([player, watering_hole, []]))


CASES = {
    # The smallest case: needs 1 and 2 tie at 1 when capped first; the full needs do not.
    "larger full need wins over larger population": (
        [board(0, 1, 2, ["fat-tissue"]), board(0, 2, 1, ["fat-tissue"])], 1, [1, 1]),
    "the same with the boards swapped": (
        [board(0, 2, 1, ["fat-tissue"]), board(0, 1, 2, ["fat-tissue"])], 1, [0, 1]),
    "fat food already stored counts against the need": (
        [board(0, 5, 1, ["fat-tissue"], fat_food=4), board(0, 3, 1, ["fat-tissue"])], 2, [1, 2]),
    "the answer is limited by the watering hole, not the choice": (
        [board(0, 6, 1, ["fat-tissue"]), board(0, 4, 3, ["fat-tissue"])], 3, [0, 3]),
    "equal full needs: the larger species (population) wins": (
        [board(0, 3, 1, ["fat-tissue"]), board(0, 3, 4, ["fat-tissue"])], 1, [1, 1]),
    "a watering hole large enough gives the full need": (
        [board(0, 2, 1, ["fat-tissue"]), board(0, 4, 1, ["fat-tissue"], fat_food=1)], 9, [1, 3]),
}


@pytest.mark.parametrize("boards, watering_hole, expected", CASES.values(), ids=CASES.keys())
def test_fat_tissue_choice_picks_by_full_need_then_limits_to_the_watering_hole(boards, watering_hole, expected):
    assert xfeed(boards, watering_hole) == expected
