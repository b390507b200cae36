# -*- test-case-name: tests.games.fish.strategies.test_strategies -*-
"""The course's maximin strategy (xstrategy, milestone 6) and the xref placement rule (milestone 8).

Offers ``maximin_move(state, depth)``, ``first_free_tile(state)`` and
``MaximinPlayer(depth)``.

``maximin_move``: the first player's move that maximises its own score after
it has made ``depth`` more moves of its own, assuming every other player
always picks the move that minimises that score; a player that cannot move
is skipped; if nobody can move before that, the score at the end counts.
Among moves of equal value, the smallest by (from-row, from-column, to-row,
to-column). ``None`` when the first player cannot move.

How it stays fast, without changing any answer:

- the search runs on one mutable copy of the board (flat tiles, penguins as
  tile indices), making and unmaking moves;
- a move gains exactly the fish of the tile it leaves, so the player's last
  move needs no search: its value is the most fish under a penguin that can
  still move;
- tiles never come back (a tile left becomes a hole), so a player that
  cannot move never moves again: its score is final;
- before the player's last move, a penguin with more free neighbours than
  the other players have moves to come cannot be blocked: when that bound
  meets the most it can gain, the other players' moves need no search;
- alpha-beta pruning, other players' blocking moves examined first; the
  root examines moves in tie-breaker order and
  asks of each only whether it beats the best so far (a tie keeps the
  earlier move), skipping moves that cannot, by a bound.
"""

from __future__ import annotations

from math import inf
from typing import Iterator

from evolution.games.fish.rules.board import Position
from evolution.games.fish.rules.state import GameState, Move
from evolution.games.fish.strategies.house import HousePlayer

Step = tuple[int, int, int]
"""(penguin, from tile, to tile): a move in the search, tiles as flat indices."""


class _Search:
    """The game from the first player's view, on a mutable copy of the state."""

    def __init__(self, state: GameState) -> None:
        board = state.board
        self.tiles = list(board.tiles)
        self.rays = board.geometry.rays
        self.penguins = [[board.index(p) for p in player.places] for player in state.players]
        self.taken = bytearray(len(self.tiles))
        for places in self.penguins:
            for index in places:
                self.taken[index] = 1
        self.players = len(state.players)

    def steps(self, player: int) -> Iterator[Step]:
        tiles, taken = self.tiles, self.taken
        for penguin, source in enumerate(self.penguins[player]):
            for ray in self.rays[source]:
                for target in ray:
                    if not tiles[target] or taken[target]:
                        break
                    yield penguin, source, target

    def free_neighbours(self, source: int) -> list[int]:
        """The tiles next to ``source`` without a hole or a penguin: a penguin there can move iff there are any."""
        tiles, taken = self.tiles, self.taken
        return [ray[0] for ray in self.rays[source] if ray and tiles[ray[0]] and not taken[ray[0]]]

    def last_gain_bounds(self, moves_before: int) -> tuple[int, int]:
        """Bounds on what the first player gains with one more move when ``moves_before`` other moves come first.

        A move occupies one tile (the tile it leaves held a penguin already),
        so a penguin with more free neighbours than that stays free to move;
        with no moves before, the bounds meet.
        """
        low = high = 0
        for source in self.penguins[0]:
            free = len(self.free_neighbours(source))
            if free:
                high = max(high, self.tiles[source])
                if free > moves_before:
                    low = max(low, self.tiles[source])
        return low, high

    def neighbours_of_first(self) -> set[int]:
        """The free tiles next to the first player's penguins: where another player's move can block it."""
        return {tile for source in self.penguins[0] for tile in self.free_neighbours(source)}

    def make(self, player: int, step: Step) -> int:
        penguin, source, target = step
        fish = self.tiles[source]
        self.tiles[source] = 0
        self.taken[source] = 0
        self.taken[target] = 1
        self.penguins[player][penguin] = target
        return fish

    def unmake(self, player: int, step: Step, fish: int) -> None:
        penguin, source, target = step
        self.tiles[source] = fish
        self.taken[target] = 0
        self.taken[source] = 1
        self.penguins[player][penguin] = source

    def value(self, player: int, moves_left: int, gained: int, alpha: float, beta: float) -> float:
        """The first player's gain when ``player`` is to act and the first player has ``moves_left`` moves to make."""
        if moves_left == 0:
            return gained
        if player == 0:
            return self._best(moves_left, gained, alpha, beta)
        return self._worst(player, moves_left, gained, alpha, beta)

    def _best(self, moves_left: int, gained: int, alpha: float, beta: float) -> float:
        if moves_left == 1:
            return gained + self.last_gain_bounds(0)[1]
        steps = sorted(self.steps(0), key=lambda step: -self.tiles[step[1]])
        if not steps:
            return gained
        best = -inf
        after = 1 % self.players
        for step in steps:
            fish = self.make(0, step)
            value = self.value(after, moves_left - 1, gained + fish, alpha, beta)
            self.unmake(0, step, fish)
            if value > best:
                best = value
                alpha = max(alpha, value)
                if best >= beta:
                    break
        return best

    def _worst(self, player: int, moves_left: int, gained: int, alpha: float, beta: float) -> float:
        if moves_left == 1:
            low, high = self.last_gain_bounds(self.players - player)
            if low == high or gained + high <= alpha:
                return gained + high
            if gained + low >= beta:
                return gained + low
        after = (player + 1) % self.players
        blocking = self.neighbours_of_first()
        steps = sorted(self.steps(player), key=lambda step: step[2] not in blocking)
        if not steps:
            return self.value(after, moves_left, gained, alpha, beta)
        worst = inf
        for step in steps:
            fish = self.make(player, step)
            value = self.value(after, moves_left, gained, alpha, beta)
            self.unmake(player, step, fish)
            if value < worst:
                worst = value
                beta = min(beta, value)
                if worst <= alpha:
                    break
        return worst


def maximin_move(state: GameState, depth: int) -> Move | None:
    """The first player's maximin move looking ``depth`` of its own moves ahead; ``None`` if it cannot move."""
    if depth < 1:
        raise ValueError(f"the depth is at least 1, not {depth}")
    if not state.players:
        return None
    search = _Search(state)
    steps = sorted(search.steps(0), key=lambda step: (step[1], step[2]))  # tie-breaker order: row-major indices
    richest = max(search.tiles, default=0)
    best_value, best_step = -inf, None
    for step in steps:
        fish = search.tiles[step[1]]
        if fish + (depth - 1) * richest <= best_value:
            continue
        search.make(0, step)
        value = search.value(1 % search.players, depth - 1, fish, best_value, inf)
        search.unmake(0, step, fish)
        if value > best_value:
            best_value, best_step = value, step
    if best_step is None:
        return None
    board = state.board
    return Move(board.position(best_step[1]), board.position(best_step[2]))


def first_free_tile(state: GameState) -> Position:
    """The first tile with fish and without a penguin, scanning rows top to bottom, each left to right."""
    for position, _ in state.board.tiles_in_order():
        if not state.is_occupied(position):
            return position
    raise ValueError("no free tile left to place a penguin on")


class MaximinPlayer(HousePlayer):
    """A local player: places on the first free tile, moves by maximin with its own depth."""

    def __init__(self, depth: int = 2) -> None:
        if depth < 1:
            raise ValueError(f"the depth is at least 1, not {depth}")
        self.depth = depth
        super().__init__(first_free_tile, self._maximin)

    def _maximin(self, state: GameState) -> Move:
        move = maximin_move(state, self.depth)
        if move is None:
            raise ValueError(f"{state.active.color} cannot move")
        return move
