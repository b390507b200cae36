# -*- test-case-name: tests.games.evolution.rules.test_dealer, tests.games.fish.rules.test_referee, tests.net.test_adversaries -*-
"""Expulsions at a referee's safe points: the checkpoint contract every game's referee keeps.

Offers ``SafePoints``, a base for referees (Evolution's ``Dealer``, Fish's
``FishReferee``). A referee calls ``_checkpoint()`` at each of its safe
points (where no answer is being checked against the game); ``checkpoints``
counts them. A failure noticed outside a call (a remote player disconnects or
talks out of turn while others are being asked) is recorded with ``expel``,
which answers the count at which it was asked; the referee's
``_remove_expelled(player, reason)`` removes the player at the first safe
point after that count. A replay hands the recorded counts back to ``expel``
and so removes each player exactly where the recorded game removed it.
"""

from __future__ import annotations

from typing import Any


class SafePoints:
    """The safe points a referee has passed, and the expulsions waiting for the next ones."""

    def __init__(self) -> None:
        self.checkpoints = 0
        self._expelled: list[tuple[Any, str, int]] = []

    def expel(self, player: Any, reason: str, after: int | None = None) -> int:
        """Remove the player whose external object is ``player`` at a safe point; answer the checkpoint count.

        For failures noticed outside a call (a remote player disconnects or
        talks out of turn while others are being asked); the removal waits
        until no answer is being checked against the game: it takes effect at
        the first safe point after checkpoint ``after`` (default: the count
        now, so the next safe point).
        """
        after = self.checkpoints if after is None else after
        self._expelled.append((player, reason, after))
        return after

    def _checkpoint(self) -> None:
        """A safe point: count it, and remove the expelled players that are due, in the order they were expelled."""
        self.checkpoints += 1
        if not self._expelled:
            return
        due = [entry for entry in self._expelled if entry[2] < self.checkpoints]
        self._expelled = [entry for entry in self._expelled if entry[2] >= self.checkpoints]
        for player, reason, _ in due:
            self._remove_expelled(player, reason)

    def _remove_expelled(self, player: Any, reason: str) -> None:
        """Remove the player whose external object is ``player``, if it is still in the game."""
        raise NotImplementedError
