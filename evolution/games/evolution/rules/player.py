# -*- test-case-name: tests.games.evolution.rules.test_feeding -*-
"""The player interface of seeds 001/003: the only way the dealer talks to players.

Offers the ``Player`` protocol (``start``, ``choose``, ``feed_next``), the values
the dealer hands to players (``PlayerView``, ``FeedingState``) and
``PlayerFailure``, what a player (or its proxy) raises when it cannot answer.

Every method may answer with a plain value or with an awaitable (a Twisted
``Deferred``, for a remote player). The dealer awaits only awaitables, so a game
of local players runs to completion without any event loop.

    start(watering_hole, me)      step 1: the watering hole and the player's own
                                  bag, boards and hand; the answer is ignored
    choose(before, after)         steps 2-3: the boards of the players before it
                                  and (itself first) after it; answers an Action4
    feed_next(state)              step 4, only with two or more options; answers
                                  a FeedingChoice
"""

from __future__ import annotations

from typing import Awaitable, NamedTuple, Protocol, TypeVar

from evolution.outcomes import PlayerFailure
from evolution.games.evolution.rules.actions import Action4
from evolution.games.evolution.rules.cards import Card
from evolution.games.evolution.rules.feeding import FeedingChoice
from evolution.games.evolution.rules.player_state import PlayerView
from evolution.games.evolution.rules.species import Boards

T = TypeVar("T")
MaybeAwaitable = T | Awaitable[T]

LOB = tuple[Boards, ...]
"""The boards of several players, one Boards each."""


class FeedingState(NamedTuple):
    """What ``feed_next`` shows: own bag, boards, hand; the watering hole; the others' boards.

    ``others`` lists the other players in turn order, starting with the one
    after the asked player; a CarnivoreChoice's player index points into it.
    """

    bag: int
    boards: Boards
    hand: tuple[Card, ...]
    watering_hole: int
    others: LOB


class Player(Protocol):
    """An external player: a local strategy, or a proxy for a remote one."""

    def start(self, watering_hole: int, me: PlayerView) -> MaybeAwaitable[object]: ...

    def choose(self, before: LOB, after: LOB) -> MaybeAwaitable[Action4]: ...

    def feed_next(self, state: FeedingState) -> MaybeAwaitable[FeedingChoice]: ...


__all__ = ["FeedingState", "LOB", "Player", "PlayerFailure", "PlayerView"]
