"""Checking and explaining one message takes work bounded by its schema, whatever the message holds.

- the bounds come from the rules (the deck's 122 cards), the schemas state
  them, and a legal message at the bound passes;
- pathological messages (4,000 or 100,000 items, items that cannot be sorted,
  deep nesting, long strings) are rejected with the right path and reason,
  and what the explainer is given (the cut value) never holds more elements
  than the schema's bound (``View.size``), counted structurally, not timed;
- uniqueness is found by hashing, never by comparing pairs;
- a schema with an unbounded array, or a position it leaves open, is refused
  when the schemas load.
"""

from __future__ import annotations

from typing import Any

import jsonschema._keywords
import pytest

from evolution.games.evolution.rules.cards import ALL_CARDS
from evolution.games.evolution.wire.bounds import MAX_BOARDS, MAX_ENTRIES, MAX_HAND, MAX_PLAYERS
from evolution.games.evolution.wire.schemas import SCHEMAS
from evolution.jsonwire.schema_bounds import Opaque, UnboundedSchema, View
from evolution.jsonwire.wire_errors import WireError

SPECIES = [["food", 0], ["body", 0], ["population", 1], ["traits", []]]


def pairs(count: int) -> list[list[int]]:
    return [[i, i + 1] for i in range(count)]


def deep(levels: int, inner: Any = 0) -> Any:
    for _ in range(levels):
        inner = [inner]
    return inner


def elements(value: Any) -> int:
    """Arrays and the values they hold, each counted once (an ``Opaque`` is one element)."""
    return 1 + sum(elements(item) for item in value) if isinstance(value, list) else 1


# -- the bounds --------------------------------------------------------------------------


def test_the_bounds_come_from_the_rules():
    assert MAX_HAND == len(ALL_CARDS) == 122
    assert MAX_PLAYERS == 8
    assert MAX_ENTRIES == MAX_HAND - 1
    assert MAX_BOARDS == MAX_HAND + 1


def test_the_schemas_state_the_bounds():
    defs = SCHEMAS.documents["defs"]["$defs"]
    assert defs["Cards"]["maxItems"] == MAX_HAND
    assert defs["Boards"]["maxItems"] == MAX_BOARDS
    assert [position.get("maxItems") for position in defs["Action4"]["prefixItems"]] == [None] + [MAX_ENTRIES] * 4
    step4 = SCHEMAS.documents["harness/xstep4"]["$defs"]["Action4"]["prefixItems"]
    assert [position.get("maxItems") for position in step4] == [None] + [MAX_ENTRIES] * 4
    before, after = SCHEMAS.documents["choose"]["prefixItems"]
    others = SCHEMAS.documents["feed-next"]["prefixItems"][4]
    assert before["maxItems"] == others["maxItems"] == defs["LOP"]["maxItems"] == MAX_PLAYERS - 1
    assert after["maxItems"] == defs["LOB"]["maxItems"] == SCHEMAS.documents["score"]["maxItems"] == MAX_PLAYERS


def test_a_legal_message_at_the_bound_passes_and_one_more_does_not():
    whole_deck = [[card.food, card.trait.value] for card in ALL_CARDS]
    SCHEMAS.check("start", [0, 0, [SPECIES] * MAX_BOARDS, whole_deck])
    SCHEMAS.check("action4", [0, pairs(MAX_ENTRIES), pairs(MAX_ENTRIES), [], []])
    SCHEMAS.check("harness/xstep", [[[["id", 1], ["species", []], ["bag", 0]]], 0, whole_deck])
    with pytest.raises(WireError) as raised:
        SCHEMAS.check("harness/xstep", [[[["id", 1], ["species", []], ["bag", 0]]], 0, whole_deck + [[0, "horns"]]])
    assert str(raised.value) == "xstep.deck: has 123 elements, expected 0..122"
    with pytest.raises(WireError) as raised:
        SCHEMAS.check("start", [0, 0, [SPECIES], whole_deck + [[0, "horns"]]])
    assert str(raised.value) == 'start.hand: holds [0, "horns"] twice (elements 83 and 122)'
    with pytest.raises(WireError) as raised:
        SCHEMAS.check("action4", [0, [], [], [], [[0, 0, i] for i in range(MAX_ENTRIES + 1)]])
    assert str(raised.value) == "action4.replace-traits: has 122 elements, expected 0..121"


def test_the_explainer_of_a_reply_looks_at_a_few_thousand_elements_at_most():
    """The replies the host reads: 1 + the food card + four lists of 122 cut entries (GP, GB: 4; BT: 6; RT: 5) + 1."""
    assert SCHEMAS.view("action4").size == 1 + 1 + 2 * (1 + 122 * 4) + (1 + 122 * 6) + (1 + 122 * 5) + 1 == 2325
    assert SCHEMAS.view("feeding-choice").size == 5
    # a name, ["sign-up", name] or ["sign-up", name, {"key": secret}]: the array, its three elements, and the key
    # object's one field and its closing (an object's view counts itself, its fields and whether it is closed)
    assert SCHEMAS.view("signup").size == 7


# -- pathological messages ---------------------------------------------------------------

LONG = "x" * 1_000_000
UNSORTABLE = [[i, "a"] if i % 2 else ["a", i] for i in range(100)]
PATHOLOGICAL = [
    ("4,000 pairs and a string", "action4", [0, pairs(4000) + ["x"], [], [], []],
     "action4.grow-population: has 4001 elements, expected 0..121"),
    ("100,000 strings", "action4", [0, [], ["x"] * 100_000, [], []],
     "action4.grow-body: has 100000 elements, expected 0..121"),
    ("4,000 items no order sorts", "action4", [0, [[i, "a"] if i % 2 else [i, [i]] for i in range(4000)], [], [], []],
     "action4.grow-population: has 4000 elements, expected 0..121"),
    ("a duplicate among items no order sorts", "action4", [0, [], [], UNSORTABLE + [["a", 0]], []],
     'action4.new-boards: holds ["a", 0] twice (elements 0 and 100)'),
    ("5,000 levels of nesting", "action4", [deep(5000), [], [], [], []],
     "action4.food-card: [[[[[[[[[[[[[[...]]]]]]]]]]]]]] is not an integer"),
    ("deep nesting everywhere", "action4", [0, [[deep(60), deep(60)]] * 121, [], [], []],
     "action4.grow-population[0].board: [[[[[[[[[[[[[[...]]]]]]]]]]]]]] is not an integer"),
    ("a 1 MB trait", "start", [0, 0, [SPECIES], [[0, LONG]]],
     'start.hand[0].trait: "' + "x" * 56 + '... is not a trait (one of "carnivore", "ambush", "burrowing",'
     ' "climbing", "cooperation", "fat-tissue", "fertile", "foraging", "hard-shell", "herding", "horns",'
     ' "long-neck", "pack-hunting", "scavenger", "symbiosis", "warning-call")'),
    ("a 1 MB string in 100,000 places", "feeding-choice", [0, [LONG] * 100_000],
     'feeding-choice.tokens: ["' + "x" * 55 + "... is not an integer"),
    ("100,000 boards", "feed-next", [0, [SPECIES] * 100_000, [], 1, []],
     "feed-next.boards: has 100000 elements, expected 0..123"),
    ("an object where a board is due", "choose", [[], [[{"food": 0}]]],
     'choose.after[0][0]: {"food": 0} is not an array'),
]


@pytest.mark.parametrize("name, value, expected", [case[1:] for case in PATHOLOGICAL], ids=[c[0] for c in PATHOLOGICAL])
def test_a_pathological_message_is_rejected_with_its_reason(name, value, expected):
    assert not SCHEMAS.is_valid(name, value)
    with pytest.raises(WireError) as raised:
        SCHEMAS.check(name, value)
    assert str(raised.value) == expected
    assert str(SCHEMAS.explain(name, value)[0]) == expected, "the first of all violations is the one check names"


@pytest.mark.parametrize("name, value", [case[1:3] for case in PATHOLOGICAL], ids=[c[0] for c in PATHOLOGICAL])
def test_the_explainer_is_given_no_more_than_the_schema_bounds(name, value):
    cut = SCHEMAS.cut(name, value)
    assert elements(cut) <= SCHEMAS.view(name).size
    assert elements(cut) <= 3000 or name in ("feed-next", "choose")


def test_a_cut_value_keeps_strings_and_numbers_as_they_are_and_never_looks_into_a_deep_value():
    value = [0, [[0, LONG]], [], [[deep(100_000)]], []]
    cut = SCHEMAS.cut("action4", value)
    assert cut[1][0][1] is LONG
    assert isinstance(cut[3][0][0], Opaque) and cut[3][0][0].original is value[3][0][0]


def test_uniqueness_is_found_by_hashing_never_by_comparing_pairs(monkeypatch):
    def pairwise(container: Any) -> bool:
        raise AssertionError("jsonschema's pairwise uniqueness check was used")

    monkeypatch.setattr(jsonschema._keywords, "uniq", pairwise)
    errors = SCHEMAS.explain("action4", [0, [], [], UNSORTABLE + UNSORTABLE[:1], []])
    assert str(errors[0]) == 'action4.new-boards: holds ["a", 0] twice (elements 0 and 100)'


# -- schemas the explainer refuses ------------------------------------------------------------


def lookup(uri: str) -> Any:
    raise AssertionError(f"no $ref expected: {uri}")


@pytest.mark.parametrize(
    "schema, complaint",
    [
        ({"type": "array", "items": {"type": "integer"}}, "arrays of any length are valid here"),
        ({"type": "array", "prefixItems": [{"type": "integer"}], "maxItems": 3}, "no keyword says what they hold"),
        (
            {"anyOf": [{"type": "array", "maxItems": 2, "items": {"type": "integer"}}, {"items": {"const": 1}}]},
            "arrays of any length are valid here",
        ),
    ],
)
def test_a_schema_whose_arrays_have_no_bound_is_refused(schema, complaint):
    with pytest.raises(UnboundedSchema, match=complaint):
        View.of(schema, lookup)


def test_a_schema_that_refers_to_itself_is_refused():
    tree = {"type": "array", "maxItems": 2, "items": {"$ref": "urn:tree"}}
    with pytest.raises(UnboundedSchema, match="refer to itself"):
        View.of(tree, lambda uri: tree)


def test_alternatives_each_bounded_are_bounded():
    either = {"oneOf": [{"type": "integer"}, {"type": "array", "prefixItems": [{"type": "integer"}], "items": False}]}
    assert View.of(either, lookup).keep == 2
