"""Fish's game state (rules.md 2-6): legal moves and their order, blocking, placement, moves and scores, skips, the end, removal."""

from __future__ import annotations

import pytest

from evolution.games.fish.rules.board import Board, Position
from evolution.games.fish.rules.state import SKIP, Color, GameState, Move, PlayerState

P = Position
RED, WHITE, BROWN = Color.RED, Color.WHITE, Color.BROWN


def state(rows, *players) -> GameState:
    return GameState(Board.from_rows(rows), tuple(PlayerState(color, score, tuple(P(*p) for p in places))
                                                  for color, score, places in players))


def test_the_colours_in_seat_order_and_skip_as_the_reference_sends_it():
    assert [c.value for c in Color] == ["red", "white", "brown", "black"]
    assert SKIP == "skip"


# -- legal moves ----------------------------------------------------------------------


def test_the_last_penguins_moves_come_first_each_direction_by_direction():
    s = state([[1, 1], [1, 1], [1, 1]], (RED, 0, [(0, 0), (2, 1)]))
    assert s.legal_moves() == [
        Move(P(2, 1), P(0, 1)),  # the last penguin first: N
        Move(P(2, 1), P(1, 1)),  # NE (even row: -1, 0)
        Move(P(2, 1), P(1, 0)),  # NW (even row: -1, -1)
        Move(P(0, 0), P(1, 0)),  # then the first: SE
        Move(P(0, 0), P(2, 0)),  # S
    ]


def test_penguins_of_every_player_block_and_only_the_active_players_move():
    s = state([[1], [1], [1], [1], [1]], (RED, 0, [(0, 0)]), (WHITE, 0, [(2, 0)]))
    assert s.legal_moves() == [Move(P(0, 0), P(1, 0))]  # S stops at white's penguin
    own = state([[1], [1], [1], [1], [1]], (RED, 0, [(0, 0), (2, 0)]))
    assert Move(P(0, 0), P(4, 0)) not in own.legal_moves()  # its own penguin blocks too


def test_a_move_is_legal_only_along_a_straight_line_of_free_tiles():
    s = state([[1, 1, 1], [1, 0, 1], [1, 1, 1], [1, 1, 1]], (RED, 0, [(0, 0)]), (WHITE, 0, [(2, 1)]))
    cases = {
        Move(P(0, 0), P(2, 0)): None,
        Move(P(0, 0), P(0, 0)): "a move leaves the tile: the penguin already stands on [0, 0]",
        Move(P(2, 1), P(3, 1)): "no penguin of red stands on [2, 1]",
        Move(P(0, 0), P(5, 0)): "[5, 0] is not on the board",
        Move(P(0, 0), P(1, 1)): "[1, 1] is a hole",
        Move(P(0, 0), P(0, 2)): "[0, 2] is not in a straight line from [0, 0]",
        Move(P(0, 0), P(2, 1)): "a penguin already stands on [2, 1]",
        Move(P(0, 0), P(3, 1)): "a hole or a penguin blocks the way from [0, 0] to [3, 1]",  # SE: [1, 0], [2, 1], [3, 1]
    }
    for move, problem in cases.items():
        assert s.move_problem(move) == problem, move


# -- placement ----------------------------------------------------------------------------


def test_a_penguin_goes_on_any_free_tile_with_fish_not_only_one_fish():
    s = state([[5, 0], [1, 1]], (RED, 0, [(1, 0)]), (WHITE, 0, []))
    assert s.placement_problem(P(0, 0)) is None
    assert s.placement_problem(P(1, 1)) is None
    assert s.placement_problem(P(0, 1)) == "[0, 1] is a hole"
    assert s.placement_problem(P(1, 0)) == "a penguin already stands on [1, 0]"
    assert s.placement_problem(P(2, 0)) == "[2, 0] is not on the board"


def test_placing_conses_the_place_and_passes_the_turn():
    s = state([[1, 1, 1]], (RED, 0, [(0, 0)]), (WHITE, 0, []))
    after = s.placed(P(0, 2))
    assert [p.color for p in after.players] == [WHITE, RED]
    assert after.players[1].places == (P(0, 2), P(0, 0))


# -- moves ----------------------------------------------------------------------------------


def test_a_move_scores_the_tile_left_which_becomes_a_hole():
    s = state([[3, 1], [2, 4]], (RED, 7, [(0, 0)]), (WHITE, 0, [(1, 1)]))
    after = s.moved(Move(P(0, 0), P(1, 0)))
    assert after.board.to_rows() == [[0, 1], [2, 4]]
    assert after.players == (PlayerState(WHITE, 0, (P(1, 1),)), PlayerState(RED, 10, (P(1, 0),)))


def test_the_moved_penguins_new_place_goes_to_the_front_of_places():
    s = state([[1, 1, 1], [1, 1, 1]], (RED, 0, [(0, 0), (0, 2), (1, 0)]))
    after = s.moved(Move(P(0, 2), P(1, 1)))
    assert after.active.places == (P(1, 1), P(0, 0), P(1, 0))


def test_the_fish_under_a_penguin_count_only_when_it_leaves():
    s = state([[5], [1]], (RED, 0, [(0, 0)]))
    after = s.moved(Move(P(0, 0), P(1, 0)))
    assert after.active.score == 5 and after.board.fish_at(P(1, 0)) == 1


# -- who can move, skips, the end ---------------------------------------------------------------


def test_a_stuck_player_must_be_skipped_while_another_can_move():
    s = state([[1, 0, 1], [0, 0, 1]], (RED, 0, [(0, 0)]), (WHITE, 0, [(0, 2)]))
    assert not s.can_move(0) and s.can_move(1)
    assert s.must_skip() and not s.is_over()
    assert s.legal_moves() == []
    assert [p.color for p in s.skipped().players] == [WHITE, RED]


def test_the_game_is_over_when_nobody_can_move_or_nobody_is_left():
    stuck = state([[1, 0, 1]], (RED, 0, [(0, 0)]), (WHITE, 0, [(0, 2)]))
    assert stuck.is_over() and not stuck.must_skip()
    assert GameState(Board.from_rows([[1]]), ()).is_over()


def test_removing_a_player_takes_its_penguins_and_leaves_its_tiles():
    s = state([[1], [1], [1]], (RED, 0, [(0, 0)]), (WHITE, 0, [(2, 0)]))
    assert s.legal_moves() == [Move(P(0, 0), P(1, 0))]
    after = s.without(WHITE)
    assert [p.color for p in after.players] == [RED]
    assert after.board == s.board
    assert after.legal_moves() == [Move(P(0, 0), P(1, 0)), Move(P(0, 0), P(2, 0))]  # white's tile is free now


def test_rotating_to_a_player_keeps_the_turn_order():
    s = state([[1]], (RED, 0, []), (WHITE, 0, []), (BROWN, 0, []))
    assert [p.color for p in s.rotated_to(BROWN).players] == [BROWN, RED, WHITE]
    with pytest.raises(ValueError):
        s.without(BROWN).rotated_to(BROWN)
