"""Every message the host writes to a Fish player, in both dialects, is valid by the schema client authors read.

The calls of whole local games (greedy players, boards of 2 to 4 players,
holes included) are written as each dialect writes them
(``evolution.games.fish.wire.dialects``) and checked against
``schemas/fish/`` (course) and ``schemas/fish/seed004/``.
"""

from __future__ import annotations

import json

import pytest

from evolution.games.fish.rules.board import Position, generate_board
from evolution.games.fish.rules.local import play_local_game
from evolution.games.fish.strategies.greedy import GreedyPlayer
from evolution.games.fish.wire.dialects import (
    COURSE,
    DISQUALIFY,
    SEED004,
    end_request,
    game_result_request,
    start_request,
)
from evolution.games.fish.wire.schemas import SCHEMAS

SCHEMA_OF = {  # a request's kind -> its schema
    "start": "start", "playing-as": "playing-as", "playing-with": "playing-with", "setup": "setup",
    "take-turn": "take-turn", "end": "end",
    "Color": "seed004/color", "Placement": "seed004/placement", "Action": "seed004/action",
    "gameResult": "seed004/game-result", "Disqualify": "seed004/disqualify",
}


class Recording(GreedyPlayer):
    """A greedy player that writes each call it is asked as both dialects would."""

    def __init__(self, sent: list) -> None:
        super().__init__()
        self.sent = sent

    def playing_as(self, color):
        self.sent += [COURSE.playing_as(color), SEED004.playing_as(color)]
        return super().playing_as(color)

    def playing_with(self, colors):
        self.sent += [COURSE.playing_with(colors)]
        assert SEED004.playing_with(colors) is None  # seed 004 has no such message
        return super().playing_with(colors)

    def setup(self, state):
        self.sent += [COURSE.setup(state), SEED004.setup(state)]
        return super().setup(state)

    def take_turn(self, state, actions):
        self.sent += [COURSE.take_turn(state, actions), SEED004.take_turn(state, actions)]
        return super().take_turn(state, actions)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_request_of_a_whole_game_is_valid_by_its_schema(players):
    sent: list = [start_request(), end_request(True), end_request(False), game_result_request(True)]
    board = generate_board(5, 5, seed=players).without(Position(1, 1)) if players < 4 else generate_board(6, 6, seed=9)
    play_local_game([Recording(sent) for _ in range(players)], board)
    kinds = {request.kind for request in sent}
    assert kinds >= {"start", "playing-as", "playing-with", "setup", "take-turn", "end", "Color", "Placement",
                     "Action", "gameResult"}, kinds
    for request in sent:
        value = json.loads(request.text)
        assert SCHEMAS.is_valid(SCHEMA_OF[request.kind], value), (request.kind, request.text[:200])
    assert SCHEMAS.is_valid(SCHEMA_OF["Disqualify"], DISQUALIFY)
