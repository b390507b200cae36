"""In-process Fish: median ms per whole 4-player game on a 6x6 board, and per maximin depth-2 move."""

from __future__ import annotations

import statistics
import time
from typing import Callable

from evolution.games.fish.rules.board import generate_board
from evolution.games.fish.rules.local import play_local_game
from evolution.games.fish.rules.state import GameState
from evolution.games.fish.strategies.greedy import GreedyPlayer
from evolution.games.fish.strategies.maximin import MaximinPlayer, maximin_move

GAMES = 100


def main() -> None:
    for label, make in (("greedy", GreedyPlayer), ("maximin depth 2", lambda: MaximinPlayer(2))):
        game_ms = _games(make)
        print(f"4 {label} players, {GAMES} games on random 6x6 boards: median {statistics.median(game_ms):.2f} ms "
              f"per game, p90 {statistics.quantiles(game_ms, n=10)[-1]:.2f} ms")
    move_ms = _maximin_moves()
    print(f"maximin depth 2, 4 players, 6x6: median {statistics.median(move_ms):.3f} ms per move, "
          f"p90 {statistics.quantiles(move_ms, n=10)[-1]:.3f} ms, max {max(move_ms):.3f} ms ({len(move_ms)} moves)")


def _games(make: Callable[[], object]) -> list[float]:
    samples = []
    for seed in range(GAMES):
        board = generate_board(6, 6, seed)
        players = [make() for _ in range(4)]
        started = time.perf_counter()
        play_local_game(players, board)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def _maximin_moves() -> list[float]:
    """Milliseconds of every depth-2 maximin move the players of whole 4-player games make."""
    samples: list[float] = []

    def watch(event: str, referee) -> None:
        if event == "moved" or event == "skipped":
            state: GameState = referee.state
            if state.can_move(0):
                started = time.perf_counter()
                maximin_move(state, 2)
                samples.append((time.perf_counter() - started) * 1000)

    for seed in range(GAMES // 4):
        play_local_game([MaximinPlayer(2) for _ in range(4)], generate_board(6, 6, seed), observer=watch)
    return samples
