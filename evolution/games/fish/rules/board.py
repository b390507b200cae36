"""The board of Fish: rows of hexagonal tiles, each a hole or 1..5 fish (rules.md 1-2).

Offers:

- ``Position(row, col)``, origin top-left;
- ``Direction`` (N, NE, SE, S, SW, NW, in the reference's canonical order)
  and ``step(position, direction)``, with the offsets of rules.md 2: odd
  rows sit half a tile to the right, so the step depends on the parity of
  the row it starts from, and north is two rows up in the same column;
- ``Board``: ``Board.from_rows`` pads ragged rows with holes;
  ``fish_at`` (0 for a hole and off the board), ``is_tile``,
  ``without(position)`` (the tile left becomes a hole), ``reachable``
  (straight lines in the six directions, nearest first, stopping at a hole,
  the edge or a penguin), ``tiles_in_order`` (row by row, left to right);
- ``generate_board(rows, cols, seed, fish)``: a ``rows x cols`` board
  without holes, ``fish`` on every tile or, without it, 1..5 fish drawn
  with ``random.Random(seed)`` row by row (rules.md 1);
- ``Geometry``: per board shape, the ray of tile indices in each direction
  from each tile, computed once; the state and the strategies trace moves
  on flat indices with it (``row * cols + col``).

Data definition (the reference's JSON, rules.md 1)::

    Board    = [[Fish, ...], ...]   rows; a missing cell is a hole
    Fish     = 0 (hole) | 1..5
    Position = [row, column]
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from typing import Iterable, Iterator, NamedTuple, Sequence

MAX_FISH = 5
HOLE = 0


class Position(NamedTuple):
    """A tile's place: ``[row, column]``, origin top-left."""

    row: int
    col: int

    def __str__(self) -> str:
        return f"[{self.row}, {self.col}]"


class Direction(IntEnum):
    """The six directions, in the order the reference enumerates moves."""

    N = 0
    NE = 1
    SE = 2
    S = 3
    SW = 4
    NW = 5


_EVEN_ROW_STEPS = ((-2, 0), (-1, 0), (1, 0), (2, 0), (1, -1), (-1, -1))
_ODD_ROW_STEPS = ((-2, 0), (-1, 1), (1, 1), (2, 0), (1, 0), (-1, 0))


def step(position: Position, direction: Direction) -> Position:
    """The neighbour of ``position`` in ``direction`` (it may lie off the board)."""
    drow, dcol = (_ODD_ROW_STEPS if position.row % 2 else _EVEN_ROW_STEPS)[direction]
    return Position(position.row + drow, position.col + dcol)


class Geometry:
    """The rays of one board shape: ``rays[index][direction]``, the indices a straight line passes, nearest first."""

    __slots__ = ("rows", "cols", "rays")

    def __init__(self, rows: int, cols: int) -> None:
        self.rows = rows
        self.cols = cols
        self.rays = tuple(
            tuple(self._ray(Position(*divmod(index, cols)), direction) for direction in Direction)
            for index in range(rows * cols)
        )

    def _ray(self, start: Position, direction: Direction) -> tuple[int, ...]:
        ray = []
        here = step(start, direction)
        while 0 <= here.row < self.rows and 0 <= here.col < self.cols:
            ray.append(here.row * self.cols + here.col)
            here = step(here, direction)
        return tuple(ray)


@lru_cache(maxsize=64)
def geometry(rows: int, cols: int) -> Geometry:
    """The (shared, immutable) geometry of a ``rows x cols`` board."""
    return Geometry(rows, cols)


def trace(ray: Sequence[int], tiles: Sequence[int], occupied: Iterable[int] | set[int]) -> Iterator[int]:
    """The indices of ``ray`` a penguin can slide to: up to the first hole or penguin."""
    for index in ray:
        if not tiles[index] or index in occupied:
            return
        yield index


@dataclass(frozen=True)
class Board:
    """A rectangle of tiles, row-major; ``tiles[row * cols + col]`` is the fish on it (0: a hole)."""

    rows: int
    cols: int
    tiles: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.tiles) != self.rows * self.cols:
            size = self.rows * self.cols
            raise ValueError(f"a {self.rows} x {self.cols} board has {size} tiles, not {len(self.tiles)}")

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[int]]) -> Board:
        """A board from rows of fish counts; shorter rows are padded with holes to the longest."""
        width = max((len(row) for row in rows), default=0)
        tiles = tuple(fish for row in rows for fish in (*row, *(HOLE,) * (width - len(row))))
        return cls(len(rows), width, tiles)

    def to_rows(self) -> list[list[int]]:
        """The rows of fish counts, every row as long as the board is wide."""
        return [list(self.tiles[r * self.cols : (r + 1) * self.cols]) for r in range(self.rows)]

    @property
    def geometry(self) -> Geometry:
        return geometry(self.rows, self.cols)

    def on_board(self, position: Position) -> bool:
        return 0 <= position.row < self.rows and 0 <= position.col < self.cols

    def index(self, position: Position) -> int:
        """The flat index of a position on the board."""
        return position.row * self.cols + position.col

    def position(self, index: int) -> Position:
        return Position(*divmod(index, self.cols))

    def fish_at(self, position: Position) -> int:
        """The fish on the tile at ``position``; 0 for a hole or a position off the board."""
        return self.tiles[self.index(position)] if self.on_board(position) else HOLE

    def is_tile(self, position: Position) -> bool:
        """True for a tile with fish (not a hole, not off the board)."""
        return self.fish_at(position) > 0

    def without(self, position: Position) -> Board:
        """This board with the tile at ``position`` turned into a hole."""
        index = self.index(position)
        return Board(self.rows, self.cols, self.tiles[:index] + (HOLE,) + self.tiles[index + 1 :])

    def reachable(self, start: Position, occupied: Iterable[Position] = ()) -> list[Position]:
        """Every tile a penguin on ``start`` can slide to: N, NE, SE, S, SW, NW, each nearest first.

        Lines stop at a hole, the edge, or a tile in ``occupied``. From a
        position off the board there is nowhere to go.
        """
        if not self.on_board(start):
            return []
        blocked = {self.index(p) for p in occupied if self.on_board(p)}
        rays = self.geometry.rays[self.index(start)]
        return [self.position(i) for ray in rays for i in trace(ray, self.tiles, blocked)]

    def tiles_in_order(self) -> Iterator[tuple[Position, int]]:
        """Every tile with fish, row by row, left to right, with its fish."""
        for index, fish in enumerate(self.tiles):
            if fish:
                yield self.position(index), fish


def generate_board(rows: int, cols: int, seed: int | None = None, fish: int | None = None) -> Board:
    """A ``rows x cols`` board without holes (rules.md 1).

    With ``fish``, every tile holds that many; without, each tile (row by
    row) gets 1..5 fish from ``random.Random(seed)``.
    """
    if rows < 0 or cols < 0:
        raise ValueError(f"a board has a natural number of rows and columns, not {rows} x {cols}")
    if fish is not None:
        if not 1 <= fish <= MAX_FISH:
            raise ValueError(f"a tile holds 1..{MAX_FISH} fish, not {fish}")
        return Board(rows, cols, (fish,) * (rows * cols))
    rng = random.Random(seed)
    return Board(rows, cols, tuple(rng.randint(1, MAX_FISH) for _ in range(rows * cols)))
