"""Fish's board (rules.md 1-2): positions, the six directions with the odd-row offsets, ragged rows, reachable tiles, generation."""

from __future__ import annotations

import random

import pytest

from evolution.games.fish.rules.board import Board, Direction, Position, generate_board, geometry, step

P = Position


def full(rows: int, cols: int, fish: int = 1) -> Board:
    return Board.from_rows([[fish] * cols for _ in range(rows)])


# -- directions -------------------------------------------------------------------


@pytest.mark.parametrize(
    "direction, even, odd",
    [
        (Direction.N, (-2, 0), (-2, 0)),
        (Direction.NE, (-1, 0), (-1, 1)),
        (Direction.SE, (1, 0), (1, 1)),
        (Direction.S, (2, 0), (2, 0)),
        (Direction.SW, (1, -1), (1, 0)),
        (Direction.NW, (-1, -1), (-1, 0)),
    ],
)
def test_each_direction_steps_by_the_offsets_of_the_source_rows_parity(direction, even, odd):
    assert step(P(4, 3), direction) == P(4 + even[0], 3 + even[1])
    assert step(P(5, 3), direction) == P(5 + odd[0], 3 + odd[1])


def test_the_canonical_order_is_n_ne_se_s_sw_nw():
    assert [d.name for d in Direction] == ["N", "NE", "SE", "S", "SW", "NW"]


def test_north_is_two_rows_up_in_the_same_column():
    assert full(5, 3).reachable(P(4, 1))[:2] == [P(2, 1), P(0, 1)]


def test_a_diagonal_line_alternates_offsets_as_it_crosses_rows():
    """SE from [0,0]: [1,0] (even row: +1, 0), then [2,1] (odd row: +1, +1), then [3,1]."""
    ray = geometry(4, 3).rays[0][Direction.SE]
    board = full(4, 3)
    assert [board.position(i) for i in ray] == [P(1, 0), P(2, 1), P(3, 1)]


# -- reachable tiles ----------------------------------------------------------------


def test_reachable_tiles_come_direction_by_direction_nearest_first():
    assert full(5, 3).reachable(P(2, 1)) == [
        P(0, 1),  # N
        P(1, 1), P(0, 2),  # NE
        P(3, 1), P(4, 2),  # SE
        P(4, 1),  # S
        P(3, 0), P(4, 0),  # SW
        P(1, 0), P(0, 0),  # NW
    ]


def test_the_readme_example_reaches_three_tiles():
    board = Board.from_rows([[1, 2, 3], [4, 0, 5], [1, 1, 0]])
    assert board.reachable(P(0, 0)) == [P(1, 0), P(2, 1), P(2, 0)]  # SE twice, then S


def test_a_hole_stops_a_line_and_the_tiles_beyond_it_are_not_reached():
    board = Board.from_rows([[1], [1], [0], [1], [1]])
    assert board.reachable(P(0, 0)) == [P(1, 0)]  # SE; S stops at the hole [2, 0], so [4, 0] is out of reach
    assert board.reachable(P(4, 0)) == [P(3, 0)]  # NE


def test_a_penguin_of_any_player_stops_a_line():
    board = full(7, 1)
    assert board.reachable(P(0, 0)) == [P(1, 0), P(2, 0), P(4, 0), P(6, 0)]  # SE, then S
    assert board.reachable(P(0, 0), occupied=[P(4, 0)]) == [P(1, 0), P(2, 0)]
    assert board.reachable(P(0, 0), occupied=[P(1, 0), P(2, 0)]) == []


def test_lines_stop_at_the_edge_and_nothing_is_reached_from_off_the_board():
    board = full(1, 1)
    assert board.reachable(P(0, 0)) == []
    assert full(3, 3).reachable(P(9, 9)) == []


# -- rows, holes, fish ----------------------------------------------------------------


def test_ragged_rows_are_padded_with_holes_to_the_longest_row():
    board = Board.from_rows([[1, 2, 3], [4], []])
    assert (board.rows, board.cols) == (3, 3)
    assert board.to_rows() == [[1, 2, 3], [4, 0, 0], [0, 0, 0]]
    assert board.fish_at(P(1, 1)) == 0 and not board.is_tile(P(1, 1))


def test_a_missing_tile_blocks_like_a_hole():
    ragged = Board.from_rows([[1, 1], [1], [1, 1]])
    assert full(3, 2).reachable(P(0, 1)) == [P(1, 1), P(2, 1), P(1, 0), P(2, 0)]
    assert ragged.reachable(P(0, 1)) == [P(2, 1), P(1, 0), P(2, 0)]  # SE meets the missing [1, 1]


def test_off_the_board_holds_no_fish():
    board = full(2, 2, 3)
    assert [board.fish_at(p) for p in (P(0, 0), P(-1, 0), P(0, 2), P(2, 0))] == [3, 0, 0, 0]


def test_a_tile_left_becomes_a_hole_in_place():
    board = Board.from_rows([[1, 2], [3, 4]])
    assert board.without(P(0, 1)).to_rows() == [[1, 0], [3, 4]]
    assert board.to_rows() == [[1, 2], [3, 4]]  # boards are values


def test_tiles_in_order_is_row_major_and_skips_holes():
    board = Board.from_rows([[0, 2], [3, 0]])
    assert list(board.tiles_in_order()) == [(P(0, 1), 2), (P(1, 0), 3)]


def test_a_board_must_have_as_many_tiles_as_its_shape():
    with pytest.raises(ValueError, match="has 6 tiles"):
        Board(2, 3, (1, 1))


# -- generation -------------------------------------------------------------------------


def test_a_generated_board_draws_1_to_5_fish_per_tile_row_by_row_from_the_seed():
    board = generate_board(6, 6, seed=7)
    rng = random.Random(7)
    assert board.to_rows() == [[rng.randint(1, 5) for _ in range(6)] for _ in range(6)]
    assert generate_board(6, 6, seed=7) == board
    assert generate_board(6, 6, seed=8) != board


def test_a_generated_board_with_a_fixed_count_has_it_on_every_tile_and_no_holes():
    board = generate_board(3, 4, fish=2)
    assert board.to_rows() == [[2] * 4] * 3


@pytest.mark.parametrize("fish", [0, 6])
def test_a_fixed_count_is_1_to_5(fish):
    with pytest.raises(ValueError, match="1..5"):
        generate_board(2, 2, fish=fish)
