"""The schemas of schemas/ as a product: well-formed, exact, and the first gate for every message.

- the files: names, $id, $ref scheme, valid JSON Schema, titles on every position;
- a corpus of malformed messages, each rejected with the expected path and reason
  (by the fast path, jsonschema-rs, and by jsonschema itself, so a schema that
  accepted everything fails here);
- accepted edge cases; strict integers, whatever the value holds;
- the fast path agrees with jsonschema on mutated messages (hypothesis);
- every message of the reference transcript validates.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from evolution.games.evolution.wire import codec
from evolution.games.evolution.wire.messages import message_kind
from evolution.games.evolution.wire.schemas import SCHEMAS
from evolution.jsonwire.schema_reasons import json_key
from evolution.jsonwire.schema_set import schema_dir, show
from evolution.jsonwire.wire_errors import WireError
from tests.support import strategies as S
from tests.support.paths import SPEC

WIRE = ["signup", "signup-reply", "start", "choose", "feed-next", "action4", "feeding-choice", "score", "removed",
        "seed002/start", "seed002/choose", "seed002/feed-next"]
HARNESS = ["harness/xattack", "harness/xfeed", "harness/xsilly", "harness/xstep", "harness/xstep4"]
TRAITS = (
    '"carnivore", "ambush", "burrowing", "climbing", "cooperation", "fat-tissue", "fertile", "foraging", '
    '"hard-shell", "herding", "horns", "long-neck", "pack-hunting", "scavenger", "symbiosis", "warning-call"'
)
DECLINE = "false is not accepted: declined to feed, but the host asks only when there are two or more options"


# -- building blocks ------------------------------------------------------------


def sp(food=0, body=0, population=1, traits=(), fat_food=None, extra=()):
    fields = [["food", food], ["body", body], ["population", population], ["traits", list(traits)]]
    if fat_food is not None:
        fields.append(["fat-food", fat_food])
    return fields + list(extra)


def start(wh=0, bag=0, boards=None, hand=None):
    return [wh, bag, [sp()] if boards is None else boards, [[1, "horns"]] if hand is None else hand]


def feed(bag=0, boards=None, hand=None, wh=1, others=None):
    return [bag, [sp()] if boards is None else boards, [] if hand is None else hand, wh,
            [[sp()]] if others is None else others]


def action(food=0, gp=(), gb=(), bt=(), rt=()):
    return [food, list(gp), list(gb), list(bt), list(rt)]


def deep(levels: int, inner=0):
    for _ in range(levels):
        inner = [inner]
    return inner


DEEP = deep(5000)
DEEP_SHOWN = re.compile(r"^\[\[\[\[.*\.\.\..*\]\]\]\] is (not (an integer|a string|a trait .*)|none of: .*)$")

ME = [["id", 1], ["species", [sp()]], ["bag", 0]]

# (schema, value, path, reason): reason is the exact text, or a pattern for the deep cases.
MALFORMED = [
    # the removed message and the seed-002 dialect
    ("removed", ["removed"], "removed", "has 1 element, expected 2"),
    ("removed", ["removed", 3], "removed", "3 is not a string"),
    ("removed", ["gone", "x"], "removed", 'expected "removed", got "gone"'),
    ("seed002/start", ["begin", ME], "start", 'expected "start", got "begin"'),
    ("seed002/start", ["start", [["id", 0], ["species", [sp()]], ["bag", 0]]], "start.id", "0 is less than 1"),
    ("seed002/start", ["start", ME, 1], "start", "has 3 elements, expected 2"),
    ("seed002/choose", ["choose", [[], []]], "choose.after", "has 0 elements, expected 1..8"),
    ("seed002/choose", ["choose", [5, [[sp()]]]], "choose.before", "5 is not an array"),
    ("seed002/choose", ["chose", [[], [[sp()]]]], "choose", 'expected "choose", got "chose"'),
    ("seed002/feed-next", ["feed", 0, [], ME], "feed-next.watering-hole", "0 is less than 1"),
    ("seed002/feed-next", ["feed", 1, [[sp()]]], "feed-next", "has 3 elements, expected 4"),
    ("seed002/feed-next", ["feed", 1, [[sp()]], [["id", 1], ["species", [sp()]], ["bag", -1]]],
     "feed-next.player.bag", "-1 is less than 0"),
    # wrong types
    ("signup", 3, "signup", "3 is none of: a string (the name), [\"sign-up\", name], [\"sign-up\", name, {\"key\": secret}]"),
    ("signup", None, "signup", "null is none of: a string (the name), [\"sign-up\", name], [\"sign-up\", name, {\"key\": secret}]"),
    ("signup", ["sign-up", "a", "b"], "signup.the bot's secret", '"b" is not an object'),
    ("signup", ["sign-up", "a", "b", "c"], "signup", '["sign-up", "a", "b", "c"] is none of: a string (the name), '
     '["sign-up", name], ["sign-up", name, {"key": secret}]'),
    ("signup-reply", "okay", "signup-reply", '"okay" is none of: "ok", "ack" or "game full", ["ok" or "ack", name]'),
    ("signup-reply", "Ack", "signup-reply", '"Ack" is none of: "ok", "ack" or "game full", ["ok" or "ack", name]'),
    ("signup-reply", ["ok"], "signup-reply", '["ok"] is none of: "ok", "ack" or "game full", ["ok" or "ack", name]'),
    ("signup-reply", ["game full", "x"], "signup-reply.reply", '"game full" is not a reply (one of "ok", "ack")'),
    ("start", {"bag": 0}, "start", '{"bag": 0} is not an array'),
    ("start", start(wh="0"), "start.watering-hole", '"0" is not an integer'),
    ("feed-next", feed(bag=True), "feed-next.bag", "true is not an integer"),
    ("feed-next", feed(wh=3.0), "feed-next.watering-hole",
     "3.0 is not an integer (write integers without a fraction or exponent)"),
    ("feed-next", feed(boards=[[["food", "0"], ["body", 0], ["population", 1], ["traits", []]]]),
     "feed-next.boards[0].food", '"0" is not an integer'),
    ("feed-next", feed(boards=[sp()[:3] + [["traits", "horns"]]]), "feed-next.boards[0].traits",
     '"horns" is not an array'),
    ("feed-next", feed(others=[sp()]), "feed-next.others[0][0]", "has 2 elements, expected 4..5"),
    ("choose", [5, []], "choose.before", "5 is not an array"),
    ("action4", action(food="0"), "action4.food-card", '"0" is not an integer'),
    ("action4", [0, {}, [], [], []], "action4.grow-population", "{} is not an array"),
    ("action4", action(food=False), "action4.food-card", "false is not an integer"),
    ("feeding-choice", "1", "feeding-choice", '"1" is none of: vegetarian, fat-tissue, carnivore'),
    ("feeding-choice", None, "feeding-choice", "null is none of: vegetarian, fat-tissue, carnivore"),
    ("feeding-choice", 1.0, "feeding-choice",
     "1.0 is none of: vegetarian, fat-tissue, carnivore (write integers without a fraction or exponent)"),
    ("feeding-choice", True, "feeding-choice", "true is none of: vegetarian, fat-tissue, carnivore"),
    ("feeding-choice", False, "feeding-choice", DECLINE),
    ("score", [[1, 2.5]], "score[0].score", "2.5 is not an integer"),
    # out-of-range numbers
    ("feed-next", feed(boards=[sp(population=9)]), "feed-next.boards[0].population", "9 is not in 1..7"),
    ("feed-next", feed(boards=[sp(population=0)]), "feed-next.boards[0].population", "0 is not in 1..7"),
    ("start", start(boards=[sp(body=8)]), "start.boards[0].body", "8 is not in 0..7"),
    ("start", start(boards=[sp(food=-1)]), "start.boards[0].food", "-1 is not in 0..7"),
    ("start", start(wh=-1), "start.watering-hole", "-1 is less than 0"),
    ("start", start(bag=-3), "start.bag", "-3 is less than 0"),
    ("feed-next", feed(wh=0), "feed-next.watering-hole", "0 is less than 1"),
    ("feed-next", feed(boards=[sp(body=3, traits=["fat-tissue"], fat_food=8)]),
     "feed-next.boards[0].fat-food", "8 is not in 0..7"),
    ("action4", action(gp=[[1, -1]]), "action4.grow-population[0].card", "-1 is less than 0"),
    ("action4", action(gb=[[-2, 1]]), "action4.grow-body[0].board", "-2 is less than 0"),
    ("action4", action(bt=[[1, -1]]), "action4.new-boards[0][1]", "-1 is less than 0"),
    ("action4", action(rt=[[0, 3, 1]]), "action4.replace-traits[0].position", "3 is not in 0..2"),
    ("feeding-choice", [0, 0], "feeding-choice.tokens", "0 is not in 1..7"),
    ("feeding-choice", [0, 8], "feeding-choice.tokens", "8 is not in 1..7"),
    ("feeding-choice", [0, 7, 0], "feeding-choice.player", "7 is not in 0..6"),
    ("feeding-choice", [0, 0, -1], "feeding-choice.target", "-1 is less than 0"),
    ("feeding-choice", -1, "feeding-choice", "-1 is less than 0"),
    ("score", [[0, 3]], "score[0].id", "0 is not in 1..8"),
    ("score", [[9, 3]], "score[0].id", "9 is not in 1..8"),
    ("score", [[1, -3]], "score[0].score", "-3 is less than 0"),
    # unknown traits
    ("feed-next", feed(boards=[sp(traits=["wings"])]), "feed-next.boards[0].traits[0]",
     f'"wings" is not a trait (one of {TRAITS})'),
    ("start", start(hand=[[1, "Carnivore"]]), "start.hand[0].trait", f'"Carnivore" is not a trait (one of {TRAITS})'),
    ("choose", [[], [[sp(traits=["fat_tissue"])]]], "choose.after[0][0].traits[0]",
     f'"fat_tissue" is not a trait (one of {TRAITS})'),
    # duplicate and too many traits
    ("feed-next", feed(boards=[sp(traits=["horns", "horns"])]), "feed-next.boards[0].traits",
     'holds "horns" twice (elements 0 and 1)'),
    ("start", start(boards=[sp(), sp(traits=["ambush", "horns", "ambush"])]), "start.boards[1].traits",
     'holds "ambush" twice (elements 0 and 2)'),
    ("feed-next", feed(boards=[sp(traits=["horns", "ambush", "climbing", "fertile"])]),
     "feed-next.boards[0].traits", "has 4 elements, expected 0..3"),
    # invalid cards and hands
    ("start", start(hand=[[4, "horns"]]), "start.hand[0].food-value", "4 is not in -3..3"),
    ("start", start(hand=[[-4, "fat-tissue"]]), "start.hand[0].food-value", "-4 is not in -3..3"),
    ("start", start(hand=[[9, "carnivore"]]), "start.hand[0].food-value", "9 is not in -8..8"),
    ("feed-next", feed(hand=[[0, "ambush"], [-9, "carnivore"]]), "feed-next.hand[1].food-value", "-9 is not in -8..8"),
    ("start", start(hand=[["horns", 1]]), "start.hand[0].food-value", '"horns" is not an integer'),
    ("start", start(hand=[[1]]), "start.hand[0]", "has 1 element, expected 2"),
    ("start", start(hand=[[1, "horns"], [2, "horns"], [1, "horns"]]), "start.hand",
     'holds [1, "horns"] twice (elements 0 and 2)'),
    # fat-food only with the shape the spec allows
    ("feed-next", feed(boards=[sp(body=2, traits=["horns"], fat_food=1)]), "feed-next.boards[0].traits",
     '["horns"] has no "fat-tissue": a species with a fat-food field has the fat-tissue trait'),
    ("feed-next", feed(others=[[sp(body=2, fat_food=0)]]), "feed-next.others[0][0].traits",
     '[] has no "fat-tissue": a species with a fat-food field has the fat-tissue trait'),
    ("start", start(boards=[[["food", 0], ["body", 0], ["population", 1], ["fat-food", 0]]]),
     "start.boards[0].traits", 'expected "traits", got "fat-food"'),
    ("start", start(boards=[sp(body=2, traits=["fat-tissue"], extra=[["fat-food", 1, 2]])]),
     "start.boards[0].fat-food", "has 3 elements, expected 2"),
    ("start", start(boards=[[["body", 0], ["food", 0], ["population", 1], ["traits", []]]]),
     "start.boards[0].food", 'expected "food", got "body"'),
    # wrong tuple lengths
    ("action4", [0, [], [], []], "action4", "has 4 elements, expected 5"),
    ("action4", action(gp=[[1]]), "action4.grow-population[0]", "has 1 element, expected 2"),
    ("action4", action(gb=[[1, 2, 3]]), "action4.grow-body[0]", "has 3 elements, expected 2"),
    ("action4", action(bt=[[]]), "action4.new-boards[0]", "has 0 elements, expected 1..4"),
    ("action4", action(bt=[[1, 2, 3, 4, 5]]), "action4.new-boards[0]", "has 5 elements, expected 1..4"),
    ("action4", action(rt=[[0, 1]]), "action4.replace-traits[0]", "has 2 elements, expected 3"),
    ("start", [0, 0, [sp()]], "start", "has 3 elements, expected 4"),
    ("feed-next", feed()[:4], "feed-next", "has 4 elements, expected 5"),
    ("choose", [[], [[sp()]], []], "choose", "has 3 elements, expected 2"),
    ("feeding-choice", [1], "feeding-choice", "[1] is none of: vegetarian, fat-tissue, carnivore"),
    ("feeding-choice", [0, 1, 2, 3], "feeding-choice", "[0, 1, 2, 3] is none of: vegetarian, fat-tissue, carnivore"),
    ("feed-next", feed(boards=[[["food"], ["body", 0], ["population", 1], ["traits", []]]]),
     "feed-next.boards[0].food", "has 1 element, expected 2"),
    ("score", [[1]], "score[0]", "has 1 element, expected 2"),
    ("score", [], "score", "has 0 elements, expected 1..8"),
    # extra fields and elements
    ("action4", action() + [[]], "action4", "has 6 elements, expected 5"),
    ("feed-next", feed(boards=[sp(body=1, traits=["fat-tissue"], fat_food=1, extra=[["x", 1]])]),
     "feed-next.boards[0]", "has 6 elements, expected 4..5"),
    ("feed-next", feed() + [0], "feed-next", "has 6 elements, expected 5"),
    ("score", [[1, 2, 3]], "score[0]", "has 3 elements, expected 2"),
    ("score", [[i, 0] for i in range(1, 10)], "score", "has 9 elements, expected 1..8"),
    ("feed-next", feed(others=[[sp()]] * 8), "feed-next.others", "has 8 elements, expected 0..7"),
    # the same card or entry twice (what a schema can see of it)
    ("action4", action(bt=[[1, 1]]), "action4.new-boards[0]", "holds 1 twice (elements 0 and 1)"),
    ("action4", action(gp=[[1, 2], [1, 2]]), "action4.grow-population", "holds [1, 2] twice (elements 0 and 1)"),
    # boards every player has
    ("start", start(boards=[]), "start.boards", "has 0 elements, expected at least 1"),
    ("feed-next", feed(boards=[]), "feed-next.boards", "has 0 elements, expected at least 1"),
    ("choose", [[[]], [[sp()]]], "choose.before[0]", "has 0 elements, expected at least 1"),
    ("choose", [[[sp()]], []], "choose.after", "has 0 elements, expected 1..8"),
    # deep nesting
    ("action4", action(food=DEEP), "action4.food-card", DEEP_SHOWN),
    ("feed-next", feed(boards=[sp(traits=[DEEP])]), "feed-next.boards[0].traits[0]", DEEP_SHOWN),
    ("signup", DEEP, "signup", DEEP_SHOWN),
    ("feeding-choice", [0, DEEP], "feeding-choice.tokens", DEEP_SHOWN),
    # harness inputs
    ("harness/xstep", [[], 0, []], "xstep.players", "has 0 elements, expected 1..8"),
    ("harness/xattack", [sp(), sp(population=8), False, False], "xattack.attacker.population", "8 is not in 0..7"),
    ("harness/xfeed", [[["id", 0], ["species", []], ["bag", 0]], 1, []], "xfeed.player.id", "0 is less than 1"),
    ("harness/xsilly", [[["id", 1], ["species", []], ["bag", 0], ["cards", [[5, "horns"]]]], [], []],
     "xsilly.player.cards[0].food-value", "5 is not in -3..3"),
    ("harness/xstep4", [[[], 0, []], [[0, [["size", 0, 1]], [], [], []]]], "xstep4.configuration.players",
     "has 0 elements, expected 1..8"),
]


def _id(case) -> str:
    name, value, path, _ = case
    return f"{path}={show(value, 40)}"


@pytest.mark.parametrize("name, value, path, reason", MALFORMED, ids=[_id(c) for c in MALFORMED])
def test_malformed_message_is_rejected_with_path_and_reason(name, value, path, reason):
    assert not SCHEMAS.is_valid(name, value)
    reference = SCHEMAS.validator(name)  # jsonschema itself, on the value cut where no schema looks
    assert not reference.is_valid(SCHEMAS.cut(name, value)), "the schema itself (not only the fast path) must reject it"
    with pytest.raises(WireError) as raised:
        SCHEMAS.check(name, value)
    assert raised.value.path == path
    if isinstance(reason, re.Pattern):
        assert reason.match(raised.value.reason), raised.value.reason
    else:
        assert raised.value.reason == reason
    assert str(raised.value) == f"{path}: {raised.value.reason}"


def test_every_schema_has_malformed_cases():
    covered = {name for name, *_ in MALFORMED}
    assert set(WIRE) | set(HARNESS) <= covered
    for name in WIRE:
        assert sum(1 for case in MALFORMED if case[0] == name) >= 3, name


def test_errors_lists_every_violation():
    value = feed(bag=-1, boards=[sp(population=0, traits=["wings"])], wh=0)
    assert list(SCHEMAS.errors("feed-next", value)) == [
        "feed-next.bag: -1 is less than 0",
        "feed-next.boards[0].population: 0 is not in 1..7",
        f'feed-next.boards[0].traits[0]: "wings" is not a trait (one of {TRAITS})',
        "feed-next.watering-hole: 0 is less than 1",
    ]
    assert list(SCHEMAS.errors("feed-next", feed())) == []


# -- accepted edge cases -------------------------------------------------------------

VALID = [
    ("signup", ""),
    ("signup", "good guy"),
    ("signup", ["sign-up", "good guy"]),
    ("signup-reply", "ok"),
    ("signup-reply", "game full"),
    ("signup-reply", "ack"),
    ("signup-reply", ["ok", "good guy#2"]),
    ("signup-reply", ["ack", "good guy"]),
    ("start", start(hand=[])),
    ("start", start(hand=[[-8, "carnivore"], [8, "carnivore"], [-3, "warning-call"], [3, "ambush"]])),
    ("start", start(boards=[sp(food=7, body=7, population=7, traits=["fat-tissue", "horns", "carnivore"], fat_food=7)])),
    ("feed-next", feed(boards=[sp(body=2, traits=["fat-tissue"], fat_food=0)], others=[])),
    ("feed-next", feed(others=[[], [sp()]] + [[sp()]] * 5)),
    ("choose", [[], [[sp()]]]),
    ("choose", [[[sp()]] * 7, [[sp()]]]),
    ("action4", action()),
    ("action4", action(gp=[[0, 1], [0, 2]], gb=[[1, 3]], bt=[[4, 5, 6, 7]], rt=[[0, 2, 8]])),
    ("feeding-choice", 0),
    ("feeding-choice", [0, 7]),
    ("feeding-choice", [3, 6, 9]),
    ("score", [[i, 10 - i] for i in range(1, 9)]),
]


@pytest.mark.parametrize("name, value", VALID, ids=[f"{n}:{json.dumps(v)[:40]}" for n, v in VALID])
def test_edge_case_is_accepted(name, value):
    assert SCHEMAS.is_valid(name, value)
    assert SCHEMAS.validator(name).is_valid(value)
    SCHEMAS.check(name, value)


def test_integers_are_strict_though_a_generic_validator_takes_3_0():
    generic = Draft202012Validator(SCHEMAS.documents["feed-next"], registry=SCHEMAS.registry)
    assert generic.is_valid(feed(wh=3.0)), "the README warns that generic validators accept 3.0"
    assert not SCHEMAS.is_valid("feed-next", feed(wh=3.0))
    assert not SCHEMAS.is_valid("feeding-choice", True)
    assert not SCHEMAS.is_valid("action4", action(food=True))


@pytest.mark.parametrize(
    "name, value",
    [
        ("feeding-choice", 2.0),
        ("feeding-choice", [0, 1.0]),
        ("action4", action(gp=[[0, 1], [1, 2.0]])),
        ("action4", action(bt=[[1, 2, 3, 1e1]])),
        ("start", start(hand=[[1, "horns"], [2.0, "horns"]])),
        ("choose", [[], [[sp(), sp(traits=["horns"], population=7.0)]]]),
        ("feed-next", feed(others=[[sp()], [sp(), sp(body=1.0)]])),
        ("score", [[1, 3], [2, -0.0 + 2]]),
    ],
)
def test_an_integral_float_at_any_depth_is_refused(name, value):
    """The fast path's own validator takes these; the host refuses them, like jsonschema with strict integers."""
    assert not SCHEMAS.is_valid(name, value)
    assert not SCHEMAS.validator(name).is_valid(value)
    with pytest.raises(WireError, match="write integers without a fraction or exponent"):
        SCHEMAS.check(name, value)


@pytest.mark.parametrize("odd", [(0,), b"0", {0: 1}, 1 + 0j])
def test_values_no_json_parser_makes_are_never_valid(odd):
    assert not SCHEMAS.is_valid("feeding-choice", odd)
    assert not SCHEMAS.is_valid("feed-next", feed(others=[[sp(traits=["horns"])], odd]))


# -- the files ----------------------------------------------------------------------


def _nodes(node, where=""):
    yield where, node
    if isinstance(node, dict):
        for key, child in node.items():
            yield from _nodes(child, f"{where}/{key}")
    elif isinstance(node, list):
        for i, child in enumerate(node):
            yield from _nodes(child, f"{where}/{i}")


def test_one_file_per_message_with_id_and_draft_2020_12():
    names = SCHEMAS.names()
    assert set(WIRE) | set(HARNESS) | {"defs"} == set(names)
    for name in names:
        document = SCHEMAS.documents[name]
        assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert document["$id"] == "urn:evolution:" + name.replace("/", ":")
        assert document["title"] and document["description"]
        Draft202012Validator.check_schema(document)
    assert (schema_dir() / "README.md").is_file()


def test_refs_are_absolute_and_resolve():
    resolver = SCHEMAS.registry.resolver()
    for name, document in SCHEMAS.documents.items():
        for where, node in _nodes(document):
            if isinstance(node, dict) and "$ref" in node:
                assert node["$ref"].startswith("urn:evolution:"), f"{name}{where}"
                resolver.lookup(node["$ref"])


ANNOTATIONS = {"title", "description", "$comment"}


def _target(node):
    resolver = SCHEMAS.registry.resolver()
    while isinstance(node, dict) and "$ref" in node:
        node = resolver.lookup(node["$ref"]).contents
        yield node


def test_a_ref_has_no_sibling_keyword_its_target_also_has():
    """jsonschema's error paths leave $ref out; a keyword on both sides would make a path ambiguous.

    Only ``type`` may repeat, with the same value: Ajv's strict mode wants it beside
    ``minItems`` or ``uniqueItems``, and the two identical errors are reported once.
    """
    for name, document in SCHEMAS.documents.items():
        for where, node in _nodes(document):
            if isinstance(node, dict) and "$ref" in node:
                siblings = set(node) - ANNOTATIONS - {"$ref", "$schema", "$id"}
                for target in _target(node):
                    shared = siblings & set(target)
                    assert shared <= {"type"}, f"{name}{where}: {shared}"
                    assert all(node[key] == target[key] for key in shared), f"{name}{where}: different types"


def test_every_position_of_a_message_has_a_title():
    """Paths name positions by their titles; an untitled position would read as [i].

    The trait cards of a BT are the exception: they are named by their index.
    """
    for name in WIRE + ["defs"]:
        for where, node in _nodes(SCHEMAS.documents[name]):
            if "/if" in where:
                continue  # a condition, not a position
            if isinstance(node, dict) and "prefixItems" in node and not _is_field(node):
                for i, item in enumerate(node["prefixItems"]):
                    if where.startswith("/$defs/BT/") and i > 0:
                        continue
                    if item is not True:
                        assert "title" in item, f"{name}{where}/prefixItems/{i}"


def _is_field(node) -> bool:
    first = node["prefixItems"][0]
    return len(node["prefixItems"]) == 2 and isinstance(first, dict) and "const" in first


def test_schema_names_the_exact_set_of_cards():
    """The Card schema accepts exactly the 122 cards of the game."""
    from evolution.games.evolution.rules.cards import ALL_CARDS
    from evolution.games.evolution.rules.traits import Trait

    accepted = {
        (food, trait.value)
        for trait in Trait
        for food in range(-12, 13)
        if SCHEMAS.is_valid("start", start(hand=[[food, trait.value]]))
    }
    assert accepted == {(card.food, card.trait.value) for card in ALL_CARDS}
    assert len(accepted) == 122


# -- the fast path against jsonschema ----------------------------------------------------


def _valid_messages():
    return st.one_of(
        st.tuples(st.just("start"), st.builds(codec.start_to_json, st.integers(0, 30), S.player_views)),
        st.tuples(st.just("choose"), S.chooses().map(lambda c: codec.choose_to_json(*c))),
        st.tuples(st.just("feed-next"), S.feeding_states.map(codec.feed_next_to_json)),
        st.tuples(st.just("action4"), S.legal_actions().map(lambda va: codec.action4_to_json(va[1]))),
        st.tuples(st.just("feeding-choice"), S.feeding_choices.map(codec.feeding_choice_to_json)),
        st.tuples(st.just("score"), S.rankings().map(codec.score_to_json)),
        st.tuples(st.sampled_from(["signup", "signup-reply"]), st.sampled_from(["ok", "game full", "x"])),
    )


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_fast_path_agrees_with_jsonschema(data):
    name, value = data.draw(_valid_messages())
    mutant = data.draw(S.mutations(value))
    for candidate in (value, mutant):
        expected = SCHEMAS.validator(name).is_valid(candidate)
        assert SCHEMAS.is_valid(name, candidate) == expected, (name, candidate)
        if not expected:
            assert SCHEMAS.explain(name, candidate), "a rejection always has a reason"


def test_duplicates_are_found_with_json_equality():
    """1 and 1.0 are the same JSON value; true is not 1."""
    assert [str(e) for e in SCHEMAS.explain("action4", action(gp=[[0, 1], [0, 1.0]]))] == [
        "action4.grow-population: holds [0, 1.0] twice (elements 0 and 1)",
        "action4.grow-population[1].card: 1.0 is not an integer (write integers without a fraction or exponent)",
    ]
    assert [str(e) for e in SCHEMAS.explain("action4", action(gp=[[True, 1], [1, 1]]))] == [
        "action4.grow-population[0].board: true is not an integer"
    ]
    assert json_key({"a": [1, None]}) == json_key({"a": [1.0, None]}) != json_key({"a": [True, None]})


def test_deeply_nested_values_never_raise_recursion_error():
    for levels in (100, 10_000):
        value = deep(levels)
        for name in WIRE:
            assert not SCHEMAS.is_valid(name, value)
            with pytest.raises(WireError):
                SCHEMAS.check(name, value)


# -- the reference transcript --------------------------------------------------------

TRANSCRIPT = SPEC / "reference-transcript-3-players.txt"
LINE = re.compile(r"^(S>C(\d)|C(\d)>S)\s+(.*)$")


def transcript():
    """(direction, client, value) for every line of the reference transcript."""
    if not TRANSCRIPT.is_file():
        pytest.skip(f"no reference transcript: {TRANSCRIPT} is absent (set EVOLUTION_SHARED to the shared folder)")
    lines = []
    for text in TRANSCRIPT.read_text().splitlines():
        match = LINE.match(text)
        assert match, text
        to_client = match.group(2)
        lines.append(("S>C" if to_client else "C>S", to_client or match.group(3), json.loads(match.group(4))))
    return lines


def test_transcript_messages_all_validate():
    last: dict[str, str] = {}
    kinds: dict[str, int] = {}
    for direction, client, value in transcript():
        if direction == "S>C":
            kind = message_kind(value)
        else:
            kind = {None: "signup", "choose": "action4", "feed-next": "feeding-choice"}[last.get(client)]
        SCHEMAS.check(kind, value)
        assert SCHEMAS.validator(kind).is_valid(value)
        kinds[kind] = kinds.get(kind, 0) + 1
        if direction == "S>C":
            last[client] = kind
    assert kinds["signup"] == kinds["signup-reply"] == 3
    assert kinds["start"] == kinds["choose"] == kinds["action4"] == 18
    assert kinds["feed-next"] == kinds["feeding-choice"] > 10


def test_readme_examples_validate_and_every_message_is_described():
    readme = (schema_dir() / "README.md").read_text()
    blocks = [json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", readme, re.S)]
    kinds = ["start", "choose", "action4", "feed-next"]
    assert len(blocks) == len(kinds)
    for kind, value in zip(kinds, blocks):
        SCHEMAS.check(kind, value)
    for name in WIRE:
        assert f"`{name}.json`" in readme
    assert "3.0" in readme and "45678" in readme and "evolution-schema check" in readme
