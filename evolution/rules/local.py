"""Running the dealer's coroutines without an event loop.

Offers ``run_locally(coroutine)``: drives a dealer coroutine (``Dealer.play``,
``Dealer.feeding``, ...) whose players all answer with plain values, and
``play_local_game(players, deck)`` for a whole game.
"""

from __future__ import annotations

from typing import Coroutine, Sequence, TypeVar

from evolution.rules.cards import Deck
from evolution.rules.dealer import Dealer
from evolution.rules.player import Player
from evolution.rules.results import GameResult

T = TypeVar("T")


def run_locally(coroutine: Coroutine[object, object, T]) -> T:
    """Run a coroutine that never has to wait; return its value."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError("a player answered with a pending awaitable; run this game under a reactor")


def play_local_game(players: Sequence[Player], deck: Deck | None = None) -> GameResult:
    """Play a whole game of local players in this thread."""
    return run_locally(Dealer.new_game(players, deck).play())
