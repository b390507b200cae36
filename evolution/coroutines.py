"""Running a referee's coroutine without an event loop.

Offers ``run_locally(coroutine)``: drives a coroutine (any game's
``Referee.play``, a tournament manager's ``run``...) whose players all answer
with plain values, and returns its value. Every referee awaits a player's
answer only when it is awaitable, so a game of local players never has to
wait and needs no reactor.
"""

from __future__ import annotations

from typing import Coroutine, TypeVar

T = TypeVar("T")


def run_locally(coroutine: Coroutine[object, object, T]) -> T:
    """Run a coroutine that never has to wait; return its value."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError("a player answered with a pending awaitable; run this game under a reactor")
