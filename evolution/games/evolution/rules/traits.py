"""The 16 traits of Evolution.

Offers ``Trait``, a string enum whose members compare by their spelling, which is
the order the rules use for cards ("trait spelling, then food value").
"""

from __future__ import annotations

import enum


class Trait(enum.StrEnum):
    """A trait card's trait; the value is its spelling on the wire."""

    AMBUSH = "ambush"
    BURROWING = "burrowing"
    CARNIVORE = "carnivore"
    CLIMBING = "climbing"
    COOPERATION = "cooperation"
    FAT_TISSUE = "fat-tissue"
    FERTILE = "fertile"
    FORAGING = "foraging"
    HARD_SHELL = "hard-shell"
    HERDING = "herding"
    HORNS = "horns"
    LONG_NECK = "long-neck"
    PACK_HUNTING = "pack-hunting"
    SCAVENGER = "scavenger"
    SYMBIOSIS = "symbiosis"
    WARNING_CALL = "warning-call"


TRAITS_BY_SPELLING: dict[str, Trait] = {trait.value: trait for trait in Trait}
