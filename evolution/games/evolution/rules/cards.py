# -*- test-case-name: tests.games.evolution.rules.test_actions -*-
"""Trait cards and the dealer's deck.

Offers:

- ``Card``: a (food value, trait) pair; ``card_order`` sorts cards as the rules
  do (trait spelling first, then food value);
- ``ALL_CARDS``: the 122 valid cards in canonical order; ``is_valid_card``;
- ``Deck``: cards handed out from the front, built ``sorted`` (the course's
  reference order) or shuffled with a recorded seed.

Data definition (rules.md 2.2): a carnivore card has a food value in -8..8,
every other card in -3..3; the deck holds each valid card exactly once.
"""

from __future__ import annotations

import random
from typing import Iterable, NamedTuple

from evolution.games.evolution.rules.traits import Trait

CARNIVORE_FOOD_RANGE = range(-8, 9)
OTHER_FOOD_RANGE = range(-3, 4)


class Card(NamedTuple):
    """A trait card: its food value (for the watering hole) and its trait."""

    food: int
    trait: Trait


def card_order(card: Card) -> tuple[Trait, int]:
    """Sort key of the rules' card order: trait spelling, then food value."""
    return (card.trait, card.food)


def food_range(trait: Trait) -> range:
    """The food values a card of this trait may carry."""
    return CARNIVORE_FOOD_RANGE if trait is Trait.CARNIVORE else OTHER_FOOD_RANGE


ALL_CARDS: tuple[Card, ...] = tuple(
    Card(food, trait) for trait in sorted(Trait) for food in food_range(trait)
)
_VALID = frozenset(ALL_CARDS)


def is_valid_card(card: Card) -> bool:
    """True when the card is one of the 122 cards of the game."""
    return card in _VALID


class Deck:
    """The dealer's draw pile; cards always leave from the front."""

    __slots__ = ("_cards", "_next")

    def __init__(self, cards: Iterable[Card] = ALL_CARDS) -> None:
        self._cards = list(cards)
        self._next = 0

    @classmethod
    def sorted(cls) -> Deck:
        """The full deck in canonical order, as the reference dealer uses it."""
        return cls(ALL_CARDS)

    @classmethod
    def shuffled(cls, seed: int) -> Deck:
        """The full deck shuffled by a seeded generator: the same seed, the same deck."""
        cards = list(ALL_CARDS)
        random.Random(seed).shuffle(cards)
        return cls(cards)

    def __len__(self) -> int:
        return len(self._cards) - self._next

    def take(self, count: int) -> list[Card]:
        """Remove and return up to ``count`` cards from the front (fewer if short)."""
        start = self._next
        end = min(start + count, len(self._cards))
        self._next = end
        return self._cards[start:end]

    def remaining(self) -> list[Card]:
        """The cards still in the deck, front first."""
        return self._cards[self._next:]
