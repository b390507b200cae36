# -*- test-case-name: tests.games.evolution.rules.test_traits -*-
"""May a carnivore attack a species? (rules.md 8.1)

Offers ``may_attack(attacker, defender, left, right)``, the predicate the
dealer uses for carnivore options and harness ``xattack`` calls directly, and
the attack numbers it compares.
"""

from __future__ import annotations

from evolution.games.evolution.rules.species import Species
from evolution.games.evolution.rules.traits import Trait

_CARNIVORE = Trait.CARNIVORE
_WARNING_CALL = Trait.WARNING_CALL
_AMBUSH = Trait.AMBUSH
_BURROWING = Trait.BURROWING
_CLIMBING = Trait.CLIMBING
_HERDING = Trait.HERDING
_HARD_SHELL = Trait.HARD_SHELL
_PACK_HUNTING = Trait.PACK_HUNTING


def body_number(species: Species) -> int:
    """body#: body + 4 with hard-shell, else body + population for a pack-hunting carnivore."""
    traits = species.traits
    if _HARD_SHELL in traits:
        return species.body + 4
    if _PACK_HUNTING in traits and _CARNIVORE in traits:
        return species.body + species.population
    return species.body


def population_number(species: Species) -> int:
    """pop#: body + population with pack-hunting, else population."""
    if _PACK_HUNTING in species.traits:
        return species.body + species.population
    return species.population


def is_warned(left: Species | None, right: Species | None) -> bool:
    """True when a neighbour's warning call protects the species between them."""
    return (left is not None and _WARNING_CALL in left.traits) or (
        right is not None and _WARNING_CALL in right.traits
    )


def may_attack(
    attacker: Species,
    defender: Species,
    left: Species | None = None,
    right: Species | None = None,
) -> bool:
    """May ``attacker`` attack ``defender``, whose neighbours are ``left`` and ``right``?

    An attacker without the carnivore trait never may (conformance cases
    decide this; the reference predicate itself leaves it to its callers).
    """
    attacker_traits = attacker.traits
    if _CARNIVORE not in attacker_traits:
        return False
    if _AMBUSH not in attacker_traits and is_warned(left, right):
        return False
    return _defences_allow(attacker, defender)


def _defences_allow(attacker: Species, defender: Species) -> bool:
    traits = defender.traits
    if not traits:
        return True
    if _BURROWING in traits and defender.food >= defender.population:
        return False
    if _CLIMBING in traits and _CLIMBING not in attacker.traits:
        return False
    if _HERDING in traits and population_number(attacker) <= population_number(defender):
        return False
    if _HARD_SHELL in traits and body_number(attacker) <= body_number(defender):
        return False
    return True
