# -*- test-case-name: tests.tournament.test_formats, tests.games.fish.test_tournaments -*-
"""Running a referee's coroutine without an event loop, and asking its players.

Offers ``run_locally(coroutine)``: drives a coroutine (any game's
``Referee.play``, a tournament manager's ``run``...) whose players all answer
with plain values, and returns its value. Every referee awaits a player's
answer only when it is awaitable, so a game of local players never has to
wait and needs no reactor.

Every referee asks its players through the same two steps:

- ``call(receiver, method, *args, describe=...)``: ``receiver.method(*args)``,
  its answer (a plain value or an awaitable), or a ``Failed`` if the call
  raised;
- ``settle(pending, describe=...)`` (a coroutine): ``pending`` itself, or
  what it gives when it is awaitable; a ``Failed`` if awaiting it raised.

``value_of(pending)`` (a coroutine) is the step beneath ``settle``, for
callers whose failures are not a player's (a tournament manager awaiting a
game's report): ``pending``, awaited only if it is awaitable.

A referee may make several calls before it settles any (Evolution's parallel
``choose``). ``Failed(reason)`` says why, in words the player's author
understands: ``describe(error)``, by default ``failure_reason`` (the
exception's text, else its class's name). A player's failure never stops the
game: the referee removes the player.
"""

from __future__ import annotations

from typing import Any, Callable, Coroutine, TypeVar

T = TypeVar("T")


def run_locally(coroutine: Coroutine[object, object, T]) -> T:
    """Run a coroutine that never has to wait; return its value."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError("a player answered with a pending awaitable; run this game under a reactor")


class Failed:
    """A player's call that raised, or whose awaitable failed: why, in words its author understands."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


def failure_reason(error: BaseException) -> str:
    """An exception's text, or its class's name when it has none."""
    return str(error) or type(error).__name__


def call(receiver: Any, method: str, *args: Any, describe: Callable[[Exception], str] = failure_reason) -> Any:
    """``receiver.method(*args)``: a plain value or an awaitable; a ``Failed`` if the call raised."""
    try:
        return getattr(receiver, method)(*args)
    except Exception as error:  # a player's failure must never stop the game
        return Failed(describe(error))


async def settle(pending: Any, describe: Callable[[Exception], str] = failure_reason) -> Any:
    """``pending``, awaited only if it is awaitable; a ``Failed`` if awaiting it raised."""
    try:
        return await value_of(pending)
    except Exception as error:  # a player's failure must never stop the game
        return Failed(describe(error))


async def value_of(pending: Any) -> Any:
    """``pending``, awaited only if it is awaitable."""
    if hasattr(pending, "__await__"):
        return await pending
    return pending
