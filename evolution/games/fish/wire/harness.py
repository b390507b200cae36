# -*- test-case-name: tests.games.fish.test_conformance, tests.cli.test_evolution_harness -*-
"""The course's five Fish test harnesses (conformance/fish/README.md), one JSON value in, one out.

Offers ``HARNESSES`` (name -> function of the decoded input), ``run_harness(name,
text)`` (decode one JSON value, check it against ``schemas/fish/harness/<name>.json``,
answer the harness's JSON value; a ``WireError`` for input that is not JSON,
breaks its schema, or is outside the harness's domain).

- ``xboard``: how many tiles a penguin on ``position`` reaches in one move;
- ``xstate``: the first player's first penguin moves to the first tile it
  reaches (N, NE, SE, S, SW, NW, nearest first): the state after, or ``false``;
- ``xtree``: after the first player's move ``from -> to``, the next player's
  move onto the first neighbour of ``to`` (N..NW) it can reach, the
  smallest by the tie-breaker, or ``false``;
- ``xstrategy``: the first player's maximin action at ``Depth``, or ``false``;
- ``xref``: a whole game of maximin players placing on the first free tile;
  the names of the winners, sorted by code point.
"""

from __future__ import annotations

from typing import Any, Callable

from evolution.games.fish.rules.board import Direction, generate_board, step
from evolution.games.fish.rules.local import play_local_game
from evolution.games.fish.rules.state import GameState, Move
from evolution.games.fish.strategies.maximin import MaximinPlayer, maximin_move
from evolution.games.fish.wire import codec
from evolution.games.fish.wire.schemas import SCHEMAS
from evolution.jsonwire.harness_runner import run_harness_of
from evolution.jsonwire.wire_errors import WireError

Json = Any


def xboard(value: Json) -> Json:
    board = codec.board_from_json(value["board"], "xboard.board")
    return len(board.reachable(codec.position_from_json(value["position"], "xboard.position")))


def xstate(value: Json) -> Json:
    state = codec.state_from_json(value, "xstate")
    places = state.active.places
    if not places:
        return False
    targets = state.board.reachable(places[0], state.penguins())
    return codec.state_to_json(state.moved(Move(places[0], targets[0]))) if targets else False


def xtree(value: Json) -> Json:
    state = codec.state_from_json(value["state"], "xtree.state")
    source = codec.position_from_json(value["from"], "xtree.from")
    move = Move(source, codec.position_from_json(value["to"], "xtree.to"))
    problem = state.move_problem(move)
    if problem is not None:
        raise WireError("xtree", f"{move} is not a legal move of {state.active.color}: {problem}")
    return _move_next_to(state.moved(move), move.target)


def _move_next_to(state: GameState, target: Any) -> Json:
    """The first player's move onto the first neighbour of ``target`` it can reach, by the tie-breaker."""
    moves = state.legal_moves()
    for direction in Direction:
        neighbour = step(target, direction)
        onto = [move for move in moves if move.target == neighbour]
        if onto:
            return codec.action_to_json(min(onto))
    return False


def xstrategy(value: Json) -> Json:
    depth, state_json = value
    move = maximin_move(codec.state_from_json(state_json, "xstrategy.state"), depth)
    return False if move is None else codec.action_to_json(move)


def xref(value: Json) -> Json:
    board = generate_board(value["row"], value["column"], fish=value["fish"])
    names = [name for name, _ in value["players"]]
    result = play_local_game([MaximinPlayer(depth) for _, depth in value["players"]], board)
    return sorted(names[entry.id - 1] for entry in result.ranking if entry.rank == 1)


HARNESSES: dict[str, Callable[[Json], Json]] = {
    "xboard": xboard,
    "xstate": xstate,
    "xtree": xtree,
    "xstrategy": xstrategy,
    "xref": xref,
}


def run_harness(name: str, text: str) -> Json:
    """The harness's answer to ``text``; raises ``WireError`` on bad input."""
    return run_harness_of(HARNESSES, SCHEMAS, name, text)
