# -*- test-case-name: tests.games.fish.strategies.test_strategies -*-
"""A house player: the player interface around a placement rule and a move rule.

Offers ``HousePlayer(place, move)``: ``setup`` answers ``place(state)``,
``take_turn`` answers ``move(state)``; it remembers the colour it plays and
the colours it plays with, and needs no actions since its last turn (the
state says all a house rule looks at).
"""

from __future__ import annotations

from typing import Callable, Sequence

from evolution.games.fish.rules.board import Position
from evolution.games.fish.rules.state import Action, Color, GameState, Move


class HousePlayer:
    """A local player that places and moves by two rules of the state."""

    color: Color | None = None
    others: tuple[Color, ...] = ()

    def __init__(self, place: Callable[[GameState], Position], move: Callable[[GameState], Move]) -> None:
        self.place = place
        self.move = move

    def playing_as(self, color: Color) -> None:
        self.color = color

    def playing_with(self, colors: Sequence[Color]) -> None:
        self.others = tuple(colors)

    def setup(self, state: GameState) -> Position:
        return self.place(state)

    def take_turn(self, state: GameState, actions: Sequence[Action]) -> Move:
        return self.move(state)
