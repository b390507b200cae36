"""JSON values <-> Fish's rules values, for the data definitions of rules.md 8 and protocol.md 3.

Offers ``*_to_json`` encoders and ``*_from_json(value, path)`` decoders for
Board, Position, Color, Action (a move, or ``"skip"`` in a list of recent
actions), Player and State, and the reference's calls (``playing_as_call``,
``playing_with_call``, ``setup_call``, ``take_turn_call``).

A decoder checks everything itself, so it is safe on any JSON value (the
schemas of ``schemas/fish/`` are a first gate, not a precondition): every
rejection is a ``WireError`` naming the field's path and why, e.g.
``state.players[1].places[0]: [9, 9] is not on the board``. Integers are
strict: ``true`` and ``3.0`` are not naturals.

Encoders write what the reference writes: objects with their keys in the
reference's order (``board`` before ``players``; ``color``, ``places``,
``score``), boards padded to a rectangle, ``places`` most recent first.
"""

from __future__ import annotations

from typing import Any, Sequence

from evolution.games.fish.rules.board import MAX_FISH, Board, Position
from evolution.games.fish.rules.state import COLORS, SKIP, Action, Color, GameState, Move, PlayerState
from evolution.jsonwire.schema_reasons import show
from evolution.jsonwire.wire_errors import WireError

Json = Any

MAX_PLAYERS = len(COLORS)

# -- encoding ----------------------------------------------------------------


def board_to_json(board: Board) -> Json:
    return board.to_rows()


def position_to_json(position: Position) -> Json:
    return [position.row, position.col]


def action_to_json(action: Action) -> Json:
    """A move as ``[from, to]``; a skip as the string ``"skip"`` (rules.md 9.2)."""
    if action == SKIP:
        return SKIP
    return [position_to_json(action.source), position_to_json(action.target)]


def player_to_json(player: PlayerState) -> Json:
    return {
        "color": player.color.value,
        "places": [position_to_json(place) for place in player.places],
        "score": player.score,
    }


def state_to_json(state: GameState) -> Json:
    return {"board": board_to_json(state.board), "players": [player_to_json(p) for p in state.players]}


def playing_as_call(color: Color) -> Json:
    return ["playing-as", [color.value]]


def playing_with_call(colors: Sequence[Color]) -> Json:
    return ["playing-with", [[color.value for color in colors]]]


def setup_call(state: GameState) -> Json:
    return ["setup", [state_to_json(state)]]


def take_turn_call(state: GameState, actions: Sequence[Action]) -> Json:
    return ["take-turn", [state_to_json(state), [action_to_json(action) for action in actions]]]


# -- decoding ----------------------------------------------------------------


def _natural(value: Json, path: str) -> int:
    if type(value) is not int or value < 0:
        raise WireError(path, f"{show(value)} is not a natural number")
    return value


def _array(value: Json, path: str, what: str = "an array") -> list[Json]:
    if type(value) is not list:
        raise WireError(path, f"{show(value)} is not {what}")
    return value


def _object(value: Json, path: str, keys: tuple[str, ...]) -> dict[str, Json]:
    if type(value) is not dict:
        raise WireError(path, f"{show(value)} is not an object")
    for key in keys:
        if key not in value:
            raise WireError(path, f'lacks the field "{key}"')
    for key in value:
        if key not in keys:
            raise WireError(path, f'has the field "{key}", which is none of {", ".join(keys)}')
    return value


def fish_from_json(value: Json, path: str) -> int:
    if type(value) is not int or not 0 <= value <= MAX_FISH:
        raise WireError(path, f"{show(value)} is not a number of fish 0..{MAX_FISH}")
    return value


def board_from_json(value: Json, path: str) -> Board:
    """Rows of fish counts (0: a hole); shorter rows are padded with holes."""
    rows = _array(value, path, "a board (an array of rows)")
    return Board.from_rows(
        [
            [fish_from_json(fish, f"{path}[{r}][{c}]") for c, fish in enumerate(_array(row, f"{path}[{r}]", "a row"))]
            for r, row in enumerate(rows)
        ]
    )


def position_from_json(value: Json, path: str) -> Position:
    if type(value) is not list or len(value) != 2:
        raise WireError(path, f"{show(value)} is not a position [row, column]")
    return Position(_natural(value[0], f"{path}[0]"), _natural(value[1], f"{path}[1]"))


def color_from_json(value: Json, path: str) -> Color:
    if type(value) is not str or value not in Color.__members__.values():
        raise WireError(path, f"{show(value)} is not a colour ({', '.join(c.value for c in COLORS)})")
    return Color(value)


def move_from_json(value: Json, path: str) -> Move:
    if type(value) is not list or len(value) != 2:
        raise WireError(path, f"{show(value)} is not an action [from, to]")
    return Move(position_from_json(value[0], f"{path}[0]"), position_from_json(value[1], f"{path}[1]"))


def action_from_json(value: Json, path: str) -> Action:
    """A move, or ``"skip"`` (an entry of the actions since a player's last turn)."""
    return SKIP if value == SKIP else move_from_json(value, path)


def player_from_json(value: Json, path: str) -> PlayerState:
    fields = _object(value, path, ("color", "score", "places"))
    places = _array(fields["places"], f"{path}.places")
    return PlayerState(
        color_from_json(fields["color"], f"{path}.color"),
        _natural(fields["score"], f"{path}.score"),
        tuple(position_from_json(place, f"{path}.places[{i}]") for i, place in enumerate(places)),
    )


def state_from_json(value: Json, path: str) -> GameState:
    """A State whose penguins stand on distinct tiles with fish, one player per colour."""
    fields = _object(value, path, ("players", "board"))
    board = board_from_json(fields["board"], f"{path}.board")
    players_json = _array(fields["players"], f"{path}.players")
    if len(players_json) > MAX_PLAYERS:
        raise WireError(f"{path}.players", f"has {len(players_json)} players, at most {MAX_PLAYERS} (one per colour)")
    players = tuple(player_from_json(player, f"{path}.players[{i}]") for i, player in enumerate(players_json))
    _check_colors(players, f"{path}.players")
    _check_places(board, players, f"{path}.players")
    return GameState(board, players)


def _check_colors(players: Sequence[PlayerState], path: str) -> None:
    seen: dict[Color, int] = {}
    for i, player in enumerate(players):
        if player.color in seen:
            first = seen[player.color]
            raise WireError(f"{path}[{i}].color", f'"{player.color}" is already the colour of players[{first}]')
        seen[player.color] = i


def _check_places(board: Board, players: Sequence[PlayerState], path: str) -> None:
    seen: dict[Position, str] = {}
    for i, player in enumerate(players):
        for j, place in enumerate(player.places):
            where = f"{path}[{i}].places[{j}]"
            if not board.on_board(place):
                raise WireError(where, f"{place} is not on the board")
            if not board.is_tile(place):
                raise WireError(where, f"{place} is a hole: a penguin stands on a tile with fish")
            if place in seen:
                raise WireError(where, f"{place} already holds a penguin ({seen[place]})")
            seen[place] = f"players[{i}].places[{j}]"
