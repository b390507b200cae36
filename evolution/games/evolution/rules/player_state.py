# -*- test-case-name: tests.games.evolution.wire.test_messages -*-
"""The dealer's complete truth about one player.

Offers ``PlayerState`` (id, species boards, hand, food bag, and the external
player it speaks for) and ``PlayerView``, the part of it a player is shown.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from evolution.games.evolution.rules.cards import Card
from evolution.games.evolution.rules.species import Boards, Species


class PlayerView(NamedTuple):
    """What a player may see of itself: bag, boards and hand (immutable copies)."""

    bag: int
    boards: Boards
    hand: tuple[Card, ...]


class PlayerState:
    """The internal player: mutable, owned by the dealer (or a harness)."""

    __slots__ = ("id", "boards", "hand", "bag", "player")

    def __init__(
        self,
        id: int,
        boards: list[Species] | None = None,
        hand: list[Card] | None = None,
        bag: int = 0,
        player: Any = None,
    ) -> None:
        self.id = id
        self.boards: list[Species] = boards if boards is not None else []
        self.hand: list[Card] = hand if hand is not None else []
        self.bag = bag
        self.player = player

    def view(self) -> PlayerView:
        return PlayerView(self.bag, tuple(self.boards), tuple(self.hand))

    def receive(self, cards: list[Card]) -> None:
        """Put newly dealt cards in front of the hand, in deck order."""
        if cards:
            self.hand[0:0] = cards

    def score(self) -> int:
        """Bag + number of boards + number of traits on them (rules.md 10.3)."""
        return self.bag + len(self.boards) + sum(len(s.traits) for s in self.boards)

    def __repr__(self) -> str:
        return f"PlayerState(id={self.id}, boards={self.boards}, hand={self.hand}, bag={self.bag})"
