# -*- test-case-name: tests.games.fish.strategies.test_strategies, tests.games.fish.test_reference_transcripts -*-
"""The reference's greedy player, as the recorded reference clients play (spec/fish transcripts).

Offers ``greedy_placement(state)``, ``greedy_move(state)`` and ``GreedyPlayer``.

- placement: the free tile with the most fish; among several, the first in
  row-major order (top row first, each row left to right);
- move: the move whose destination holds the most fish; among several, the
  smallest by (from-row, from-column, to-row, to-column), the course's
  tie-breaker (``Move`` values compare in exactly that order).

How this was established: every ``setup`` and ``take-turn`` the two
recorded tournaments sent (58 placements, 181 moves) was answered by the
recorded client exactly so (``tests/games/fish/test_reference_transcripts.py`` checks each).
The records tell the rules apart: 52 placements had several tiles with the
most fish, 30 of which a column-major scan would have answered differently;
109 moves had several best destinations, where taking the first move of the
reference's enumeration would have differed 67 times, and comparing the
destination before the origin 24 times.
"""

from __future__ import annotations

from evolution.games.fish.rules.board import Position
from evolution.games.fish.rules.state import GameState, Move
from evolution.games.fish.strategies.house import HousePlayer


def greedy_placement(state: GameState) -> Position:
    """The first free tile (row-major) among those with the most fish."""
    best: tuple[int, Position] | None = None
    for position, fish in state.board.tiles_in_order():
        if (best is None or fish > best[0]) and not state.is_occupied(position):
            best = (fish, position)
    if best is None:
        raise ValueError("no free tile left to place a penguin on")
    return best[1]


def greedy_move(state: GameState) -> Move:
    """The move to the tile with the most fish; ties by the course's tie-breaker."""
    moves = state.legal_moves()
    if not moves:
        raise ValueError(f"{state.active.color} cannot move")
    fish_at = state.board.fish_at
    return min(moves, key=lambda move: (-fish_at(move.target), move))


class GreedyPlayer(HousePlayer):
    """A local player that places and moves greedily."""

    def __init__(self) -> None:
        super().__init__(greedy_placement, greedy_move)
