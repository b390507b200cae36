"""Fish's codec: the reference's JSON both ways, and every rejection naming the field and why."""

from __future__ import annotations

import json

import pytest

from evolution.games.fish.rules.board import Board, Position
from evolution.games.fish.rules.state import SKIP, Color, GameState, Move, PlayerState
from evolution.games.fish.wire import codec
from evolution.jsonwire.wire_errors import WireError

P = Position

STATE = {
    "board": [[1, 2, 3], [0, 5, 4]],
    "players": [
        {"color": "white", "places": [[1, 1], [0, 0]], "score": 3},
        {"color": "red", "places": [], "score": 0},
    ],
}


def test_a_state_decodes_to_rules_values_and_encodes_back_in_the_references_key_order():
    state = codec.state_from_json(STATE, "state")
    assert state == GameState(
        Board.from_rows([[1, 2, 3], [0, 5, 4]]),
        (PlayerState(Color.WHITE, 3, (P(1, 1), P(0, 0))), PlayerState(Color.RED, 0, ())),
    )
    assert json.dumps(codec.state_to_json(state)) == json.dumps(STATE)


def test_a_ragged_board_is_written_back_padded():
    board = codec.board_from_json([[1], [2, 3, 4], []], "board")
    assert codec.board_to_json(board) == [[1, 0, 0], [2, 3, 4], [0, 0, 0]]


def test_actions_are_pairs_of_positions_or_the_skip_string():
    move = Move(P(0, 1), P(2, 1))
    assert codec.action_to_json(move) == [[0, 1], [2, 1]]
    assert codec.action_from_json([[0, 1], [2, 1]], "a") == move
    assert codec.action_to_json(SKIP) == "skip" and codec.action_from_json("skip", "a") == SKIP


def test_the_references_calls():
    state = codec.state_from_json(STATE, "state")
    assert codec.playing_as_call(Color.RED) == ["playing-as", ["red"]]
    assert codec.playing_with_call((Color.WHITE, Color.BROWN)) == ["playing-with", [["white", "brown"]]]
    assert codec.setup_call(state) == ["setup", [STATE]]
    assert codec.take_turn_call(state, (SKIP, Move(P(0, 0), P(1, 0)))) == [
        "take-turn", [STATE, ["skip", [[0, 0], [1, 0]]]]
    ]


def players(*places, colors=("red", "white")):
    return [{"color": c, "score": 0, "places": p} for c, p in zip(colors, places)]


REJECTED = [
    ({"players": players([[9, 9]]), "board": [[1, 1]]}, "state.players[0].places[0]: [9, 9] is not on the board"),
    ({"players": players([], [[0, 1]]), "board": [[1, 0]]},
     "state.players[1].places[0]: [0, 1] is a hole: a penguin stands on a tile with fish"),
    ({"players": players([[0, 0]], [[0, 0]]), "board": [[1]]},
     "state.players[1].places[0]: [0, 0] already holds a penguin (players[0].places[0])"),
    ({"players": players([], [], colors=("red", "red")), "board": [[1]]},
     'state.players[1].color: "red" is already the colour of players[0]'),
    ({"players": players([], colors=("blue",)), "board": [[1]]},
     'state.players[0].color: "blue" is not a colour (red, white, brown, black)'),
    ({"players": [{"color": "red", "score": -1, "places": []}], "board": [[1]]},
     "state.players[0].score: -1 is not a natural number"),
    ({"players": [{"color": "red", "score": 1.0, "places": []}], "board": [[1]]},
     "state.players[0].score: 1.0 is not a natural number"),
    ({"players": players([[0, True]]), "board": [[1]]}, "state.players[0].places[0][1]: true is not a natural number"),
    ({"players": players([[0]]), "board": [[1]]}, "state.players[0].places[0]: [0] is not a position [row, column]"),
    ({"players": players([]), "board": [[1, 6]]}, "state.board[0][1]: 6 is not a number of fish 0..5"),
    ({"players": players([]), "board": [1]}, "state.board[0]: 1 is not a row"),
    ({"players": players([]), "board": {}}, "state.board: {} is not a board (an array of rows)"),
    ({"players": players([]), "board": [[1]], "turn": 0}, 'state: has the field "turn", which is none of players, board'),
    ({"players": players([])}, 'state: lacks the field "board"'),
    ({"players": [{"color": "red", "places": []}], "board": [[1]]}, 'state.players[0]: lacks the field "score"'),
    ({"players": players([], [], [], [], [], colors=("red", "white", "brown", "black", "red")), "board": [[1]]},
     "state.players: has 5 players, at most 4 (one per colour)"),
    ([], "state: [] is not an object"),
]


@pytest.mark.parametrize("value, message", REJECTED, ids=[message.split(":")[0] + str(i) for i, (_, message) in enumerate(REJECTED)])
def test_a_bad_state_is_rejected_naming_the_field_and_why(value, message):
    with pytest.raises(WireError) as caught:
        codec.state_from_json(value, "state")
    assert str(caught.value) == message


def test_moves_and_positions_are_rejected_with_their_paths():
    with pytest.raises(WireError, match=r"^take-turn\[1\]\[0\]: -1 is not a natural number$"):
        codec.move_from_json([[0, 0], [-1, 0]], "take-turn")
    with pytest.raises(WireError, match=r'^take-turn: "pass" is not an action \[from, to\]$'):
        codec.action_from_json("pass", "take-turn")
    with pytest.raises(WireError, match=r"^setup: \[1, 2, 3\] is not a position"):
        codec.position_from_json([1, 2, 3], "setup")
