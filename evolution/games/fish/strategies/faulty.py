# -*- test-case-name: tests.games.fish.rules.test_referee, tests.games.fish.net.test_adversaries -*-
"""Players that fail, for tests of the referee: each plays greedily until its fault comes up.

Offers ``HolePlacer`` (places a penguin on a hole, or off the board where
there is none), ``IllegalMover`` (moves a penguin onto the tile it stands
on), ``Raiser(method)`` (raises in ``method``: ``playing_as``,
``playing_with``, ``setup`` or ``take_turn``) and ``Answering(method,
answer)`` (answers ``answer``, malformed or not, to ``method``).
"""

from __future__ import annotations

from typing import Any, Sequence

from evolution.games.fish.rules.board import Position
from evolution.games.fish.rules.state import Action, GameState, Move
from evolution.games.fish.strategies.greedy import GreedyPlayer


class HolePlacer(GreedyPlayer):
    """Places its first penguin on the first hole (off the board if there is none)."""

    def setup(self, state: GameState) -> Position:
        board = state.board
        holes = (board.position(i) for i, fish in enumerate(board.tiles) if not fish)
        return next(holes, Position(board.rows, 0))


class IllegalMover(GreedyPlayer):
    """Answers its first turn with a move onto the tile its penguin stands on."""

    def take_turn(self, state: GameState, actions: Sequence[Action]) -> Move:
        place = state.active.places[0]
        return Move(place, place)


class _OneFault(GreedyPlayer):
    """A greedy player whose ``method`` is replaced by its ``fault``."""

    def __init__(self, method: str) -> None:
        super().__init__()
        self.method = method

    def __getattribute__(self, name: str) -> Any:
        if name == object.__getattribute__(self, "method"):
            return object.__getattribute__(self, "fault")
        return object.__getattribute__(self, name)

    def fault(self, *args: Any) -> Any:
        raise NotImplementedError


class Raiser(_OneFault):
    """Raises ``RuntimeError`` when ``method`` is called."""

    def fault(self, *args: Any) -> Any:
        raise RuntimeError(f"{self.method} is broken")


class Answering(_OneFault):
    """Answers ``answer`` to ``method``, and plays greedily otherwise."""

    def __init__(self, method: str, answer: Any) -> None:
        super().__init__(method)
        self.answer = answer

    def fault(self, *args: Any) -> Any:
        return self.answer
