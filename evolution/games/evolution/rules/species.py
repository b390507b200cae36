# -*- test-case-name: tests.games.evolution.rules.test_traits, tests.games.evolution.rules.test_dealer_properties -*-
"""Species boards.

Offers ``Species``, an immutable species board, and the constants that bound
it. The dealer replaces a board by an updated copy (``Species._replace``) when
it changes, so a board handed to a player can never change under its feet.

Data definition (rules.md 3.1):

- ``food``: tokens eaten this turn, 0..population;
- ``body``: body size, 0..7;
- ``population``: 1..7 while on the table (0 means extinct);
- ``traits``: up to 3 distinct traits, in board order;
- ``fat_food``: tokens stored on a fat-tissue card, 0..body.
"""

from __future__ import annotations

from typing import NamedTuple

from evolution.games.evolution.rules.traits import Trait

MAX_BODY = 7
MAX_POPULATION = 7
MAX_TRAITS = 3


class Species(NamedTuple):
    """One species board."""

    food: int = 0
    body: int = 0
    population: int = 1
    traits: tuple[Trait, ...] = ()
    fat_food: int = 0

    @property
    def is_hungry(self) -> bool:
        return self.food < self.population

    @property
    def is_carnivore(self) -> bool:
        return Trait.CARNIVORE in self.traits

    @property
    def fat_need(self) -> int:
        """Tokens a fat-tissue card could still store (0 without fat-tissue)."""
        if Trait.FAT_TISSUE in self.traits:
            return self.body - self.fat_food
        return 0

    def has(self, trait: Trait) -> bool:
        return trait in self.traits


NEW_SPECIES = Species()

Boards = tuple[Species, ...]
"""One player's species boards, left to right."""
