# -*- test-case-name: tests.games.fish.rules.test_referee, tests.games.fish.strategies.test_strategies -*-
"""The player interface of Fish: the only way the referee talks to players (protocol.md 3).

Offers the ``FishPlayer`` protocol and ``PlayerFailure`` (``evolution.outcomes``),
what a player (or its proxy) raises when it cannot answer. Every method may
answer with a plain value or with an awaitable (a Twisted ``Deferred`` for a
remote player); the referee awaits only awaitables, so a game of local
players runs to its end without an event loop.

    playing_as(color)             the player's colour; the answer is ignored
    playing_with(colors)          the other players' colours, in seat order;
                                  the answer is ignored
    setup(state)                  place one penguin: the state shows the
                                  placing player first; answers a Position
    take_turn(state, actions)     move one penguin: the state shows the mover
                                  first; ``actions`` are the actions since its
                                  last turn (rules.md 9: a Move, or ``SKIP``
                                  where a player was skipped); answers a Move.
                                  Never asked of a player that cannot move.
"""

from __future__ import annotations

from typing import Awaitable, Protocol, Sequence, TypeVar

from evolution.games.fish.rules.board import Position
from evolution.games.fish.rules.state import Action, Color, GameState, Move
from evolution.outcomes import PlayerFailure

T = TypeVar("T")
MaybeAwaitable = T | Awaitable[T]


class FishPlayer(Protocol):
    """An external player: a local strategy, or a proxy for a remote one."""

    def playing_as(self, color: Color) -> MaybeAwaitable[object]: ...

    def playing_with(self, colors: Sequence[Color]) -> MaybeAwaitable[object]: ...

    def setup(self, state: GameState) -> MaybeAwaitable[Position]: ...

    def take_turn(self, state: GameState, actions: Sequence[Action]) -> MaybeAwaitable[Move]: ...


__all__ = ["FishPlayer", "MaybeAwaitable", "PlayerFailure"]
