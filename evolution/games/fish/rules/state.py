"""The state of a game of Fish: the board and the players in turn order (rules.md 2-6, 8).

Offers:

- ``Color`` (red, white, brown, black: the order the referee hands them out);
- ``PlayerState(color, score, places)``: ``places`` most recent first;
- ``Move(source, target)`` and ``SKIP``, the string the reference records
  for a player it skipped; an ``Action`` is one of the two;
- ``GameState(board, players)``, players in turn order, the one to act
  first, with:

  - ``legal_moves()``: the active player's moves in the reference's order
    (its last penguin's moves first; each penguin N, NE, SE, S, SW, NW,
    nearest first); ``can_move(i)``, ``is_over()`` (nobody can move, or
    nobody is left), ``must_skip()`` (the active player is stuck, another
    is not);
  - ``placed(position)``, ``moved(move)``, ``skipped()``: the state after
    the active player acted, the turn passed on (the actor goes last). A
    move turns the tile left into a hole, adds its fish to the mover's
    score and conses the new place to the front of ``places`` (rules.md 2);
  - ``without(color)``: a player removed, its penguins with it, the tiles
    staying; ``rotated_to(color)``: the same state with that player first;
  - ``placement_problem(position)`` and ``move_problem(move)``: ``None``
    for a legal choice, else why not, in words a bot author understands.

Data definition (the reference's JSON, rules.md 8)::

    State  = {"players": [Player, ...], "board": Board}
    Player = {"color": Color, "score": Natural, "places": [Position, ...]}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Iterator, Literal, NamedTuple

from evolution.games.fish.rules.board import Board, Position, trace


class Color(StrEnum):
    RED = "red"
    WHITE = "white"
    BROWN = "brown"
    BLACK = "black"


COLORS: tuple[Color, ...] = tuple(Color)
"""The colours in the order the referee assigns them to seats."""


class Move(NamedTuple):
    """A penguin of the active player slides from ``source`` to ``target``."""

    source: Position
    target: Position

    def __str__(self) -> str:
        return f"[{self.source}, {self.target}]"


SKIP: Literal["skip"] = "skip"
"""What the reference records for a player it skipped (it sends the JSON string ``"skip"``)."""

Action = Move | Literal["skip"]


@dataclass(frozen=True)
class PlayerState:
    """What everybody knows of one player: its colour, its fish, where its penguins stand (most recent first)."""

    color: Color
    score: int = 0
    places: tuple[Position, ...] = ()


@dataclass(frozen=True)
class GameState:
    """The board and the players still in, in turn order: ``players[0]`` acts next."""

    board: Board
    players: tuple[PlayerState, ...]
    _occupied: frozenset[int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        board = self.board
        occupied = frozenset(board.index(p) for player in self.players for p in player.places if board.on_board(p))
        object.__setattr__(self, "_occupied", occupied)

    # -- questions --------------------------------------------------------------

    @property
    def active(self) -> PlayerState:
        return self.players[0]

    def penguins(self) -> Iterator[Position]:
        """Where every penguin stands, player by player."""
        for player in self.players:
            yield from player.places

    def is_occupied(self, position: Position) -> bool:
        return self.board.on_board(position) and self.board.index(position) in self._occupied

    def _lines_of(self, index: int) -> Iterator[tuple[Position, tuple[int, ...]]]:
        """Each penguin of ``players[index]`` (the last placed or moved first) with each line from it."""
        board = self.board
        rays = board.geometry.rays
        for source in reversed(self.players[index].places):
            if board.on_board(source):
                for ray in rays[board.index(source)]:
                    yield source, ray

    def moves_of(self, index: int) -> list[Move]:
        """The moves of ``players[index]``, in the reference's order: last penguin first."""
        tiles, occupied, position = self.board.tiles, self._occupied, self.board.position
        return [Move(source, position(i)) for source, ray in self._lines_of(index) for i in trace(ray, tiles, occupied)]

    def legal_moves(self) -> list[Move]:
        """The active player's moves (empty when it is stuck or nobody is left)."""
        return self.moves_of(0) if self.players else []

    def can_move(self, index: int) -> bool:
        """True when ``players[index]`` has a penguin with a free neighbouring tile."""
        tiles, occupied = self.board.tiles, self._occupied
        return any(ray and tiles[ray[0]] and ray[0] not in occupied for _, ray in self._lines_of(index))

    def is_over(self) -> bool:
        """No player can move (or no player is left): the game has ended (rules.md 5)."""
        return not any(self.can_move(i) for i in range(len(self.players)))

    def must_skip(self) -> bool:
        """The active player cannot move but another one can: the referee skips it."""
        return bool(self.players) and not self.can_move(0) and not self.is_over()

    def player(self, color: Color) -> PlayerState | None:
        return next((player for player in self.players if player.color == color), None)

    # -- problems ---------------------------------------------------------------

    def placement_problem(self, position: Position) -> str | None:
        """Why the active player may not place a penguin on ``position``; ``None`` when it may (rules.md 4)."""
        if not self.board.on_board(position):
            return f"{position} is not on the board"
        if not self.board.is_tile(position):
            return f"{position} is a hole"
        if self.is_occupied(position):
            return f"a penguin already stands on {position}"
        return None

    def move_problem(self, move: Move) -> str | None:
        """Why the active player may not make ``move``; ``None`` when it may (rules.md 2)."""
        if move in self.legal_moves():
            return None
        source, target = move
        if source not in self.active.places:
            return f"no penguin of {self.active.color} stands on {source}"
        if source == target:
            return f"a move leaves the tile: the penguin already stands on {target}"
        landing = self.placement_problem(target)  # a penguin lands only where it could be placed
        if landing is not None:
            return landing
        rays = self.board.geometry.rays[self.board.index(source)]
        if all(self.board.index(target) not in ray for ray in rays):
            return f"{target} is not in a straight line from {source}"
        return f"a hole or a penguin blocks the way from {source} to {target}"

    # -- transitions ------------------------------------------------------------

    def placed(self, position: Position) -> GameState:
        """The active player placed a penguin on ``position``; the turn passes on."""
        mover = self.active
        placed = PlayerState(mover.color, mover.score, (position, *mover.places))
        return GameState(self.board, (*self.players[1:], placed))

    def moved(self, move: Move) -> GameState:
        """The active player made ``move`` (assumed legal); the turn passes on."""
        mover = self.active
        source, target = move
        places = list(mover.places)
        places.remove(source)
        moved = PlayerState(mover.color, mover.score + self.board.fish_at(source), (target, *places))
        return GameState(self.board.without(source), (*self.players[1:], moved))

    def skipped(self) -> GameState:
        """The active player was skipped: the turn passes on."""
        return GameState(self.board, (*self.players[1:], self.players[0])) if self.players else self

    def without(self, color: Color) -> GameState:
        """The player of ``color`` removed with its penguins; its tiles stay (rules.md 5, 7)."""
        return GameState(self.board, tuple(player for player in self.players if player.color != color))

    def rotated_to(self, color: Color) -> GameState:
        """The same state with the player of ``color`` first, the others after it in turn order."""
        colors = [player.color for player in self.players]
        i = colors.index(color)
        return GameState(self.board, self.players[i:] + self.players[:i])
