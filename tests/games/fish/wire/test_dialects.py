"""Fish's messages on the wire, both dialects: what the host writes, how every incoming message is read.

The host's requests must be exactly the course's JSON (checked against the
recorded course tournaments) or seed 004's; every message either side reads
passes its schema and the codec, and a rejection names the field and why;
``evolution-schema --game fish`` checks a message, and a reply against the
request it answers, as the host does.
"""

from __future__ import annotations

import json

import pytest

from evolution.cli.evolution_schema import main as schema_main
from evolution.games.fish.rules.board import Board, Position
from evolution.games.fish.rules.state import SKIP, Color, GameState, Move, PlayerState
from evolution.games.fish.wire.dialects import (
    COURSE,
    DISQUALIFY,
    SEED004,
    end_request,
    game_result_request,
    start_request,
)
from evolution.games.fish.wire.messages import (
    read_ack,
    read_action,
    read_call,
    read_name,
    read_position,
    read_seed004,
    read_void,
)
from evolution.games.fish.wire.schemas import SCHEMAS
from evolution.jsonwire.wire_errors import WireError
from tests.support.paths import SPEC

BOARD = Board.from_rows([[1, 2, 3], [4, 5, 1], [2, 2, 2]])
STATE = GameState(BOARD, (PlayerState(Color.RED, 0, (Position(0, 0),)), PlayerState(Color.WHITE, 3, ())))


def recorded_messages(direction: str) -> list:
    values = []
    for name in ("transcript-5-players.jsonl", "transcript-10-players.jsonl"):
        for line in (SPEC / "fish" / name).read_text().splitlines():
            entry = json.loads(line)
            if entry.get("dir") == direction:
                values.append(entry["msg"])
    return values


# -- what the host writes ----------------------------------------------------------------------


def test_the_course_requests_are_the_course_s_json():
    assert json.loads(start_request().text) == ["start", [True]]
    assert json.loads(COURSE.playing_as(Color.BROWN).text) == ["playing-as", ["brown"]]
    assert json.loads(COURSE.playing_with((Color.RED, Color.WHITE)).text) == ["playing-with", [["red", "white"]]]
    setup = COURSE.setup(STATE)
    assert (setup.kind, json.loads(setup.text)) == ("setup", ["setup", [{
        "board": [[1, 2, 3], [4, 5, 1], [2, 2, 2]],
        "players": [{"color": "red", "places": [[0, 0]], "score": 0}, {"color": "white", "places": [], "score": 3}],
    }]])
    turn = COURSE.take_turn(STATE, (Move(Position(1, 1), Position(2, 1)), SKIP))
    assert json.loads(turn.text)[1][1] == [[[1, 1], [2, 1]], "skip"]
    assert json.loads(end_request(False).text) == ["end", [False]]
    assert " " not in setup.text  # compact, as the reference writes


def test_every_call_the_course_server_sent_in_the_recordings_passes_our_schemas_and_reads_back():
    calls = recorded_messages("s2c")
    assert len(calls) > 300
    for call in calls:
        method, arguments = read_call(call)
        assert method == call[0]
    turns = [call for call in calls if call[0] == "take-turn"]
    assert any("skip" in call[1][1] for call in turns)  # the reference's "skip" entries


def test_every_reply_the_course_clients_sent_in_the_recordings_reads():
    replies = recorded_messages("c2s")
    names = [reply for reply in replies if isinstance(reply, str) and reply != "void"]
    assert [read_name(name) for name in names] == names
    positions = actions = 0
    for reply in replies:
        if reply == "void":
            read_void(reply)
        elif isinstance(reply, list) and isinstance(reply[0], int):
            assert isinstance(read_position(reply), Position)
            positions += 1
        elif isinstance(reply, list):
            assert isinstance(read_action(reply), Move)
            actions += 1
        else:
            assert reply in names, f"a reply of no kind we read: {reply!r}"
    assert positions >= 50 and actions >= 150  # the recordings' 58 placements and 181 moves (greedy.py)


def test_seed_004_requests_are_the_seed_s_objects():
    assert json.loads(SEED004.playing_as(Color.WHITE).text) == {"Communication": "Color", "Color": "white"}
    assert SEED004.playing_with((Color.RED,)) is None
    placement = json.loads(SEED004.setup(STATE).text)
    assert (list(placement), placement["Communication"]) == (["Communication", "State"], "Placement")
    assert json.loads(SEED004.take_turn(STATE, (SKIP,)).text)["Communication"] == "Action"
    assert json.loads(game_result_request(True).text) == {"Communication": "gameResult", "Result": True}
    assert SCHEMAS.is_valid("seed004/disqualify", DISQUALIFY)


# -- what each side reads ---------------------------------------------------------------------------


@pytest.mark.parametrize("name, reason", [
    ("", 'name: "" has 0 characters; a name has 1 to 12'),
    ("Bartholomewxx", 'name: "Bartholomewxx" has 13 characters; a name has 1 to 12'),
    ("bot 1", 'name: "bot 1" holds more than ASCII letters (A-Z, a-z)'),
    ("Zoë", 'name: "Zoë" holds more than ASCII letters (A-Z, a-z)'),
    (["sign-up", "Pz"], 'name: ["sign-up", "Pz"] is not a string'),
])
def test_a_name_the_course_server_refuses_is_refused_with_the_reason(name, reason):
    with pytest.raises(WireError) as caught:
        read_name(name)
    assert str(caught.value) == reason


@pytest.mark.parametrize("read, value, reason", [
    (read_void, "Void", 'void: expected "void", got "Void"'),
    (read_ack, [True, True], "ack: has 2 elements, expected 1"),
    (read_ack, True, "ack: true is not an array"),
    (read_position, [1, -1], "position.column: -1 is less than 0"),
    (read_position, [1, 2.0], "position.column: 2.0 is not an integer (write integers without a fraction or exponent)"),
    (read_action, [[0, 0]], "action: has 1 element, expected 2"),
    (read_action, [[0, 0], [1]], "action.to: has 1 element, expected 2"),
])
def test_a_bad_reply_is_refused_naming_the_field_and_why(read, value, reason):
    with pytest.raises(WireError) as caught:
        read(value)
    assert str(caught.value) == reason


def test_a_client_reads_each_course_call_as_rules_values():
    assert read_call(["playing-with", [["white", "black"]]]) == ("playing-with", ((Color.WHITE, Color.BLACK),))
    method, (state, actions) = read_call(json.loads(COURSE.take_turn(STATE, (SKIP,)).text))
    assert (method, state, actions) == ("take-turn", STATE, (SKIP,))
    with pytest.raises(WireError, match=r'^call: \["move"\] is not a call of the course protocol'):
        read_call(["move"])
    with pytest.raises(WireError, match=r"^take-turn.state.players\[0\].places\[0\]: \[9, 9\] is not on the board$"):
        read_call(["take-turn", [{"board": [[1]], "players": [{"color": "red", "score": 0, "places": [[9, 9]]}]}, []]])
    with pytest.raises(WireError, match=r"^take-turn.actions: has 4 elements, expected 0..3$"):
        lone = {"board": [[1]], "players": [{"color": "red", "score": 0, "places": []}]}
        read_call(["take-turn", [lone, ["skip"] * 4]])


def test_a_client_reads_each_seed_004_message():
    assert read_seed004({"Communication": "Color", "Color": "White"}) == ("Color", Color.WHITE)
    placement = json.loads(SEED004.setup(STATE).text)
    assert read_seed004(placement) == ("Placement", STATE)
    assert read_seed004({"Communication": "gameResult", "Result": False}) == ("gameResult", False)
    with pytest.raises(WireError, match=r"^message: .* is not a seed 004 message"):
        read_seed004({"Communication": "Hello"})
    with pytest.raises(WireError, match=r'^color: has the field "Colour", which is none of Communication, Color$'):
        read_seed004({"Communication": "Color", "Color": "red", "Colour": "red"})


# -- evolution-schema --game fish ---------------------------------------------------------------------------


def test_evolution_schema_checks_a_reply_against_the_request_it_answers(tmp_path, capsys):
    setup = tmp_path / "setup.json"
    setup.write_text(COURSE.setup(STATE).text)
    taken, free = tmp_path / "taken.json", tmp_path / "free.json"
    taken.write_text("[0, 0]")
    free.write_text("[2, 2]")
    assert schema_main(["--game", "fish", "check", "position", str(taken), "--context", str(setup)]) == 1
    assert capsys.readouterr().out.strip() == "position: a penguin already stands on [0, 0]"
    assert schema_main(["--game", "fish", "check", "position", str(free), "--context", str(setup)]) == 0
    turn = tmp_path / "turn.json"
    turn.write_text(COURSE.take_turn(STATE, ()).text)
    move = tmp_path / "move.json"
    move.write_text("[[0, 0], [0, 1]]")
    assert schema_main(["--game", "fish", "check", "action", str(move), "--context", str(turn)]) == 1
    assert "not in a straight line" in capsys.readouterr().out
