"""Fish's house players: maximin agrees with an exhaustive search, greedy and the xref placement pick as documented,
and whole local games of 2, 3 and 4 greedy and maximin players run without an event loop."""

from __future__ import annotations

import random

import pytest

from evolution.games.fish.rules.board import Board, Position, generate_board
from evolution.games.fish.rules.local import play_local_game, run_locally
from evolution.games.fish.rules.referee import FishReferee
from evolution.games.fish.rules.state import COLORS, Color, GameState, Move, PlayerState
from evolution.games.fish.strategies.greedy import GreedyPlayer, greedy_move, greedy_placement
from evolution.games.fish.strategies.maximin import MaximinPlayer, first_free_tile, maximin_move

P = Position


def exhaustive_maximin(state: GameState, depth: int) -> Move | None:
    """The xstrategy definition searched in full, with no shortcut: stuck players (the first one too) are skipped."""
    me = state.active.color
    known: dict[tuple[GameState, int], int] = {}  # the same position reached by other paths: computed once

    def value(s: GameState, moves_left: int) -> int:
        if (s, moves_left) not in known:
            known[s, moves_left] = search(s, moves_left)
        return known[s, moves_left]

    def search(s: GameState, moves_left: int) -> int:
        if moves_left == 0 or s.is_over():
            return s.player(me).score
        moves = s.legal_moves()
        if not moves:
            return value(s.skipped(), moves_left)
        if s.active.color == me:
            return max(value(s.moved(m), moves_left - 1) for m in moves)
        return min(value(s.moved(m), moves_left) for m in moves)

    moves = state.legal_moves()
    return min(moves, key=lambda m: (-value(state.moved(m), depth - 1), m)) if moves else None


def random_state(rng: random.Random, tiles: int) -> GameState:
    """1..4 players with 1 or 2 penguins on a board of about ``tiles`` tiles, some of them holes."""
    rows = rng.randint(2, 5)
    cols = max(1, tiles // rows)
    board = Board.from_rows([[rng.choice([0, 1, 1, 2, 3, 4, 5]) for _ in range(cols)] for _ in range(rows)])
    free = [p for p, _ in board.tiles_in_order()]
    rng.shuffle(free)
    players = []
    for color in COLORS[: rng.randint(1, 4)]:
        count = min(rng.randint(1, 2), len(free))
        players.append(PlayerState(color, rng.randint(0, 9), tuple(free.pop() for _ in range(count))))
    return GameState(board, tuple(players))


@pytest.mark.parametrize("depth, tiles", [(1, 20), (2, 12), (3, 8)])
def test_maximin_agrees_with_an_exhaustive_search(depth, tiles):
    rng = random.Random(depth)
    checked = 0
    for _ in range(300):
        state = random_state(rng, tiles)
        assert maximin_move(state, depth) == exhaustive_maximin(state, depth), state
        checked += state.can_move(0)
    assert checked > 150


def test_maximin_answers_none_for_a_stuck_player_and_refuses_depth_zero():
    stuck = GameState(Board.from_rows([[1, 0, 1]]), (PlayerState(Color.RED, 0, (P(0, 0),)),))
    assert maximin_move(stuck, 2) is None
    with pytest.raises(ValueError):
        maximin_move(stuck, 0)


def test_depth_one_takes_the_most_fish_from_the_tile_left_with_the_full_tie_breaker():
    board = Board.from_rows([[5, 1, 1], [1, 1, 5], [1, 1, 1]])
    state = GameState(board, (PlayerState(Color.RED, 0, (P(1, 2), P(0, 0))), PlayerState(Color.WHITE, 0, ())))
    # both penguins leave 5 fish: the one on the smaller row goes; its smallest destination wins
    assert maximin_move(state, 1) == min(m for m in state.legal_moves() if m.source == P(0, 0))


def test_depth_two_moves_where_the_next_move_gains_most():
    """Red leaves 1 fish whatever it does; depth 1 takes the smallest move, depth 2 the 4 that white cannot wall in."""
    board = Board.from_rows([[4, 0, 3], [2, 4, 1], [4, 1, 1]])
    state = GameState(board, (PlayerState(Color.RED, 0, (P(2, 2),)), PlayerState(Color.WHITE, 4, (P(1, 0), P(2, 1)))))
    assert maximin_move(state, 1) == Move(P(2, 2), P(0, 2))
    assert maximin_move(state, 2) == Move(P(2, 2), P(1, 1))


def test_greedy_places_on_the_first_tile_with_the_most_fish_in_row_major_order():
    board = Board.from_rows([[1, 4, 2], [4, 1, 4], [3, 1, 1]])
    state = GameState(board, (PlayerState(Color.RED), PlayerState(Color.WHITE, 0, (P(0, 1),))))
    assert greedy_placement(state) == P(1, 0)  # [0, 1] is taken; [1, 0] comes before [1, 2]


def test_greedy_moves_to_the_most_fish_breaking_ties_by_from_then_to():
    board = Board.from_rows([[1, 1, 1], [3, 1, 3], [1, 1, 1], [1, 1, 1]])
    state = GameState(board, (PlayerState(Color.RED, 0, (P(2, 1), P(0, 1))),))
    best = [m for m in state.legal_moves() if board.fish_at(m.target) == 3]
    assert len(best) > 1 and greedy_move(state) == min(best)
    assert greedy_move(state).source == P(0, 1)


def test_the_xref_placement_takes_the_first_free_tile_scanning_rows():
    board = Board.from_rows([[0, 2], [1, 5]])
    state = GameState(board, (PlayerState(Color.RED), PlayerState(Color.WHITE, 0, (P(0, 1),))))
    assert first_free_tile(state) == P(1, 0)
    with pytest.raises(ValueError, match="no free tile"):
        first_free_tile(GameState(Board.from_rows([[0, 1]]), (PlayerState(Color.RED, 0, (P(0, 1),)),)))


@pytest.mark.parametrize("players", [
    [GreedyPlayer(), MaximinPlayer(2)],
    [MaximinPlayer(1), GreedyPlayer(), MaximinPlayer(2)],
    [GreedyPlayer(), MaximinPlayer(2), GreedyPlayer(), MaximinPlayer(1)],
], ids=["2 players", "3 players", "4 players"])
def test_a_whole_local_game_runs_without_an_event_loop(players):
    board = generate_board(6, 6, seed=len(players))
    referee = FishReferee(players, board)
    result = run_locally(referee.play())
    assert result.removals == ()
    assert sorted(entry.id for entry in result.ranking) == list(range(1, len(players) + 1))
    assert referee.state.is_over() and result.turns > 0
    collected = sum(board.tiles) - sum(referee.state.board.tiles)
    assert sum(entry.score for entry in result.ranking) == collected
    assert play_local_game(players, board) == result  # deterministic
