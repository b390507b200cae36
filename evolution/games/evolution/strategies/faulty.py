# -*- test-case-name: tests.net.test_adversaries, tests.games.evolution.rules.test_dealer -*-
"""Bots that fail on purpose, for demonstrations and tests of what the host does with them.

Offers ``CheaterPlayer`` (plays like the reference strategy, but in its
second turn answers ``choose`` with an Action4 that uses its food card twice:
removed for an illegal move) and ``SleeperPlayer`` (plays like the reference
strategy until its first ``feed_next``, which it never answers: removed when
its time runs out).
"""

from __future__ import annotations

from twisted.internet.defer import Deferred

from evolution.games.evolution.rules.actions import Action4, Growth
from evolution.games.evolution.rules.player import LOB, FeedingState
from evolution.games.evolution.rules.silly import SillyPlayer


class CheaterPlayer(SillyPlayer):
    """Uses a card twice in its second turn."""

    def __init__(self) -> None:
        super().__init__()
        self.turns = 0

    def choose(self, before: LOB, after: LOB) -> Action4:
        self.turns += 1
        honest = super().choose(before, after)
        if self.turns < 2:
            return honest
        return Action4(honest.food_card, (Growth(0, honest.food_card),))


class SleeperPlayer(SillyPlayer):
    """Never answers its first feed-next question."""

    def feed_next(self, state: FeedingState) -> Deferred:
        return Deferred()
