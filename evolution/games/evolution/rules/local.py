# -*- test-case-name: tests.games.evolution.rules.test_dealer -*-
"""Whole games of Evolution with local players, in this thread, with no event loop.

Offers ``play_local_game(players, deck)`` and ``run_locally`` (from
``evolution.coroutines``), which drives a dealer coroutine (``Dealer.play``,
``Dealer.feeding``, ...) whose players all answer with plain values.
"""

from __future__ import annotations

from typing import Sequence

from evolution.coroutines import run_locally
from evolution.games.evolution.rules.cards import Deck
from evolution.games.evolution.rules.dealer import Dealer
from evolution.games.evolution.rules.player import Player
from evolution.games.evolution.rules.results import GameResult

__all__ = ["play_local_game", "run_locally"]


def play_local_game(players: Sequence[Player], deck: Deck | None = None) -> GameResult:
    """Play a whole game of local players in this thread."""
    return run_locally(Dealer.new_game(players, deck).play())
