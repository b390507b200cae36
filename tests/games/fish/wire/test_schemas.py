"""Fish's JSON Schemas (schemas/fish/): well-formed, bounded, a set apart from Evolution's, and the first gate of
every harness, rejecting with the field's path and the reason."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from evolution.games.evolution.wire.schemas import SCHEMAS as EVOLUTION_SCHEMAS
from evolution.games.fish.wire.harness import HARNESSES, SCHEMAS, run_harness
from evolution.jsonwire.schema_bounds import Opaque, UnboundedSchema, View
from evolution.jsonwire.schema_set import SchemaSet, schema_dir
from evolution.jsonwire.wire_errors import WireError
from tests.schemas.test_schemas import _nodes
from tests.support.paths import CONFORMANCE

COURSE = ["name", "start", "playing-as", "playing-with", "setup", "take-turn", "end", "void", "position", "action"]
SEED004 = [f"seed004/{name}" for name in ("color", "placement", "action", "disqualify", "game-result", "ack")]
NAMES = ["defs"] + [f"harness/{name}" for name in sorted(HARNESSES)] + COURSE + SEED004


def test_one_file_per_harness_per_message_of_each_dialect_and_one_of_definitions():
    assert SCHEMAS.names() == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_each_file_is_draft_2020_12_with_its_urn_a_title_and_a_description(name):
    document = SCHEMAS.documents[name]
    expected = ("https://json-schema.org/draft/2020-12/schema", "urn:fish:" + name.replace("/", ":"))
    assert (document["$schema"], document["$id"]) == expected
    assert document["title"] and document["description"]
    Draft202012Validator.check_schema(document)


def test_each_definition_has_a_title_and_a_description():
    definitions = SCHEMAS.documents["defs"]["$defs"]
    assert {"Board", "Position", "Action", "Color", "Player", "State"} <= set(definitions)
    for name, definition in definitions.items():
        assert definition.get("title") and definition.get("description"), name


def test_refs_are_absolute_fish_urns_that_resolve():
    refs = [node["$ref"] for document in SCHEMAS.documents.values() for _, node in _nodes(document)
            if isinstance(node, dict) and "$ref" in node]
    assert refs and all(ref.startswith("urn:fish:") for ref in refs)
    resolver = SCHEMAS.registry.resolver()
    assert all(resolver.lookup(ref).contents for ref in set(refs))


def test_evolutions_schema_set_leaves_the_fish_folder_out():
    assert not [name for name in EVOLUTION_SCHEMAS.names() if name.startswith("fish/")]
    assert "fish/defs" in SchemaSet(schema_dir(), "urn:fish:").names()  # which a set by Fish's namespace holds


def test_every_array_is_bounded_and_the_bounds_are_as_documented():
    definitions = SCHEMAS.documents["defs"]["$defs"]
    assert definitions["Board"]["maxItems"] == definitions["Row"]["maxItems"] == 100
    assert definitions["State"]["properties"]["players"]["maxItems"] == 4
    assert definitions["Player"]["properties"]["places"]["maxItems"] == 6
    players = SCHEMAS.documents["harness/xref"]["properties"]["players"]
    assert (players["minItems"], players["maxItems"]) == (2, 4)
    for name in NAMES[1:]:
        assert SCHEMAS.view(name).size < 11_000, name  # an explanation looks at no more, whatever the input


def _skip_without_conformance() -> None:
    """Skip where the shared folder's conformance cases are absent; where they are, Fish's must be there."""
    if not CONFORMANCE.is_dir():
        pytest.skip(f"no conformance cases: {CONFORMANCE} is absent (set EVOLUTION_SHARED to the shared folder)")


def test_every_conformance_input_is_valid():
    _skip_without_conformance()
    checked = 0
    for name in HARNESSES:
        for path in sorted((CONFORMANCE / "fish" / name).glob("*-in.json")):
            assert SCHEMAS.is_valid(f"harness/{name}", json.loads(path.read_text())), path
            checked += 1
    assert checked == 432, "the five Fish harnesses have 432 cases (conformance/fish/README.md)"


STATE = {"players": [{"color": "red", "score": 0, "places": [[0, 0]]}], "board": [[1, 1], [1, 1]]}


def but(value: Any, *path_and_new: Any) -> Any:
    """A deep copy of ``value`` with the element at ``path`` replaced (or deleted, for ``...``)."""
    copy = json.loads(json.dumps(value))
    *path, new = path_and_new
    node = copy
    for key in path[:-1]:
        node = node[key]
    if new is ...:
        del node[path[-1]]
    else:
        node[path[-1]] = new
    return copy


REJECTED = [
    ("xboard", {"position": [0, 0]}, 'xboard: lacks the field "board"'),
    ("xboard", {"position": [0, -1], "board": [[1]]}, "xboard.position.column: -1 is less than 0"),
    ("xboard", {"position": [0, 0], "board": [[1, 6]]}, "xboard.board[0][1]: 6 is not in 0..5"),
    ("xboard", {"position": [0, 0], "board": [[1]], "extra": 1}, 'xboard: has the field "extra", which is none of position, board'),
    ("xstate", [1], "xstate: [1] is not an object"),
    ("xstate", but(STATE, "players", 0, "places", 0, 1, 2.0), "xstate.players[0].places[0].column: 2.0 is not an integer (write integers without a fraction or exponent)"),
    ("xstate", but(STATE, "players", 0, "color", "Red"), 'xstate.players[0].color: "Red" is not a colour (one of "red", "white", "brown", "black")'),
    ("xstate", but(STATE, "players", 0, "score", ...), 'xstate.players[0]: lacks the field "score"'),
    ("xstate", but(STATE, "players", []), "xstate.players: has 0 elements, expected 1..4"),
    ("xtree", {"state": STATE, "from": [0, 0], "to": [1, 0, 0]}, "xtree.to: has 3 elements, expected 2"),
    ("xstrategy", [0, STATE], "xstrategy.depth: 0 is less than 1"),
    ("xstrategy", [1, STATE, 2], "xstrategy: has 3 elements, expected 2"),
    ("xref", {"row": 2, "column": 2, "fish": 6, "players": [["a", 1], ["b", 1]]}, "xref.fish: 6 is not in 1..5"),
    ("xref", {"row": 2, "column": 2, "fish": 1, "players": [["a", 1]]}, "xref.players: has 1 element, expected 2..4"),
    ("xref", {"row": 2, "column": 2, "fish": 1, "players": [["a", 1], ["b", 0]]}, "xref.players[1].depth: 0 is less than 1"),
]


@pytest.mark.parametrize("name, value, message", REJECTED, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(REJECTED)])
def test_the_schema_rejects_with_the_fields_path_and_why(name, value, message):
    with pytest.raises(WireError) as caught:
        run_harness(name, json.dumps(value))
    assert str(caught.value) == message


def test_what_no_schema_can_say_is_said_by_the_codec_and_the_rules():
    with pytest.raises(WireError, match=r"^xstate.players\[0\].places\[0\]: \[0, 5\] is not on the board$"):
        run_harness("xstate", json.dumps(but(STATE, "players", 0, "places", 0, [0, 5])))
    with pytest.raises(WireError, match=r"^xtree: \[\[0, 0\], \[1, 1\]\] is not a legal move of red: .* not in a straight line"):
        run_harness("xtree", json.dumps({"state": STATE, "from": [0, 0], "to": [1, 1]}))
    with pytest.raises(WireError, match="not JSON"):
        run_harness("xboard", "{")


def test_a_huge_input_is_explained_from_a_bounded_cut():
    value = {"players": STATE["players"] * 100_000, "board": [[1] * 10] * 100_000}
    cut = SCHEMAS.cut("harness/xstate", value)
    assert len(cut["players"]) == 5 and len(cut["board"]) == 101
    with pytest.raises(WireError, match=r"^xstate.players: has 100000 elements, expected 1..4$"):
        SCHEMAS.check("harness/xstate", value)


def _mutant(value: Any, rng: random.Random) -> Any:
    """``value`` with one position, at any depth, replaced, removed or turned into a float."""
    if isinstance(value, (list, dict)) and value and rng.random() < 0.85:
        copy = list(value) if isinstance(value, list) else dict(value)
        key = rng.randrange(len(copy)) if isinstance(copy, list) else rng.choice(sorted(copy))
        if rng.random() < 0.15:
            del copy[key]
        else:
            copy[key] = _mutant(copy[key], rng)
        return copy
    return rng.choice([float(value) if type(value) is int else 1.5, -1, 9, "red", True, None, [], {}, [0, 0]])


def test_the_fast_check_and_jsonschema_agree_on_mutated_inputs():
    _skip_without_conformance()
    rng = random.Random(4)
    checked = 0
    for name in HARNESSES:
        for path in sorted((CONFORMANCE / "fish" / name).glob("*-in.json"))[:10]:
            original = json.loads(path.read_text())
            for _ in range(20):
                value = _mutant(original, rng)
                valid = SCHEMAS.validator(f"harness/{name}").is_valid(value)
                assert SCHEMAS.is_valid(f"harness/{name}", value) == valid, value
                assert (SCHEMAS.explain(f"harness/{name}", value) == []) == valid, value
                checked += not valid
    assert checked > 300


# -- the explainer's objects (Fish's State is the first object on any wire of ours) --------------------


def _view(schema: dict) -> View:
    return View.of(schema, lambda uri: pytest.fail(f"no refs here: {uri}"))


def test_an_object_keeps_the_properties_it_names_and_one_unknown_key_when_closed():
    closed = _view({"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False})
    assert closed.cut({"a": 1, "b": [1, 2], "c": 3}).keys() == {"a", "b"}
    assert isinstance(closed.cut({"b": [1, 2]})["b"], Opaque)
    open_ = _view({"type": "object", "properties": {"a": {"type": "integer"}}})
    assert open_.cut({"a": 1, "b": 2}) == {"a": 1}
    assert (closed.size, open_.size) == (3, 2)


@pytest.mark.parametrize("schema, reason", [
    ({"properties": {"a": {"type": "integer"}}}, "arrays are valid too"),
    ({"type": "object", "properties": {}, "patternProperties": {"x": {}}}, "patternProperties is not supported"),
    ({"type": "object", "properties": {}, "additionalProperties": {"type": "integer"}}, "additionalProperties"),
])
def test_an_object_the_cut_could_misjudge_is_refused(schema, reason):
    with pytest.raises(UnboundedSchema, match=reason):
        _view(schema)
