# -*- test-case-name: tests.games.fish.rules.test_referee -*-
"""Playing a game of Fish in this thread, with players that answer at once.

Offers ``play_local_game(players, board, observer=None)``: the referee's
coroutine driven by ``run_locally`` (no event loop), answering the
``GameResult``; and ``run_locally`` itself (``evolution.coroutines``), for
one coroutine of the referee.
"""

from __future__ import annotations

from typing import Sequence

from evolution.games.fish.rules.board import Board
from evolution.games.fish.rules.player import FishPlayer
from evolution.games.fish.rules.referee import FishReferee, Observer
from evolution.outcomes import GameResult
from evolution.coroutines import run_locally

__all__ = ["play_local_game", "run_locally"]


def play_local_game(players: Sequence[FishPlayer], board: Board, observer: Observer | None = None) -> GameResult:
    """Play a whole game of local players on ``board``; seats 1.. in the order given."""
    return run_locally(FishReferee(players, board, observer).play())
