"""Feeding choices (step 4), each a small object that checks and carries itself out.

Offers the four feeding choices of messages.md 7 (``Decline``,
``VegetarianChoice``, ``FatTissueChoice``, ``CarnivoreChoice``), each with
``check(boards, others)`` (raises ``RulesViolation`` unless it is one of the
player's options) and ``execute(table, player)``; and ``feeding_options`` (at a table) or
``options_of`` (from boards alone, as a player sees them), every option a
player has (rules.md 7.2 step 3).

Data definition::

    FeedingChoice = false                  Decline
                  | s                      VegetarianChoice: feed board s
                  | [s, n]                 FatTissueChoice: store n tokens on board s
                  | [a, p, d]              CarnivoreChoice: board a attacks board d
                                           of the p-th other player
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

from evolution.games.evolution.rules.attack import may_attack
from evolution.games.evolution.rules.errors import RulesViolation
from evolution.games.evolution.rules.player_state import PlayerState
from evolution.games.evolution.rules.species import Species
from evolution.games.evolution.rules.table import Table, neighbours, targets
from evolution.games.evolution.rules.traits import Trait
from evolution.text import plural

_HORNS = Trait.HORNS
_SCAVENGER = Trait.SCAVENGER


class FeedingChoice:
    """A player's answer to ``feed_next``.

    ``check(boards, others)`` takes the asked player's boards and the other
    players' boards (in the order of ``FeedingState.others``), so a proxy can
    check an answer against what it showed and the dealer against the table.
    """

    __slots__ = ()

    def check(self, boards: Sequence[Species], others: Sequence[Sequence[Species]]) -> None:
        raise NotImplementedError

    def execute(self, table: Table, player: PlayerState) -> None:
        raise NotImplementedError


def _board(boards: Sequence[Species], index: object, role: str) -> Species:
    if type(index) is not int or not 0 <= index < len(boards):
        raise RulesViolation(f"{role} {index!r} does not exist (the player has {plural(len(boards), 'board')})")
    return boards[index]


@dataclass(frozen=True, slots=True)
class Decline(FeedingChoice):
    """``false``: never acceptable when the dealer asks (rules.md 7.2, D4)."""

    def check(self, boards: Sequence[Species], others: Sequence[Sequence[Species]]) -> None:
        raise RulesViolation("declined to feed (false), but the dealer only asks when there are options")

    def execute(self, table: Table, player: PlayerState) -> None:
        return None


@dataclass(frozen=True, slots=True)
class VegetarianChoice(FeedingChoice):
    """Feed the player's hungry vegetarian board ``species`` once."""

    species: int

    def check(self, boards: Sequence[Species], others: Sequence[Sequence[Species]]) -> None:
        board = _board(boards, self.species, "species")
        if board.is_carnivore:
            raise RulesViolation(f"species {self.species} is a carnivore, not a vegetarian")
        if not board.is_hungry:
            raise RulesViolation(f"species {self.species} is not hungry")

    def execute(self, table: Table, player: PlayerState) -> None:
        table.feed_once(player, self.species)


@dataclass(frozen=True, slots=True)
class FatTissueChoice(FeedingChoice):
    """Store up to ``tokens`` tokens on the fat-tissue card of board ``species``."""

    species: int
    tokens: int

    def check(self, boards: Sequence[Species], others: Sequence[Sequence[Species]]) -> None:
        board = _board(boards, self.species, "species")
        if Trait.FAT_TISSUE not in board.traits:
            raise RulesViolation(f"species {self.species} has no fat-tissue trait")
        need = board.fat_need
        if need <= 0:
            raise RulesViolation(f"species {self.species} has no room for fat food")
        if type(self.tokens) is not int or not 1 <= self.tokens <= need:
            raise RulesViolation(f"species {self.species} can store 1..{need} tokens, not {self.tokens!r}")

    def execute(self, table: Table, player: PlayerState) -> None:
        stored = min(self.tokens, table.watering_hole)
        board = player.boards[self.species]
        player.boards[self.species] = board._replace(fat_food=board.fat_food + stored)
        table.watering_hole -= stored


@dataclass(frozen=True, slots=True)
class CarnivoreChoice(FeedingChoice):
    """Board ``attacker`` attacks board ``target`` of the ``target_player``-th other player."""

    attacker: int
    target_player: int
    target: int

    def check(self, boards: Sequence[Species], others: Sequence[Sequence[Species]]) -> None:
        attacker = _board(boards, self.attacker, "attacker")
        if not attacker.is_carnivore:
            raise RulesViolation(f"attacker {self.attacker} is not a carnivore")
        if not attacker.is_hungry:
            raise RulesViolation(f"attacker {self.attacker} is not hungry")
        p, d = self.target_player, self.target
        if type(p) is not int or not 0 <= p < len(others):
            raise RulesViolation(f"player {p!r} does not exist ({len(others)} other players)")
        targets = others[p]
        if type(d) is not int or not 0 <= d < len(targets):
            raise RulesViolation(f"player {p} has no species {d!r} (it has {len(targets)})")
        if not may_attack(attacker, targets[d], *neighbours(targets, d)):
            raise RulesViolation(f"attacker {self.attacker} may not attack species {d} of player {p}")

    def execute(self, table: Table, player: PlayerState) -> None:
        owner = table.others(player)[self.target_player]
        defender = owner.boards[self.target]
        table.lose_one(owner, self.target)
        if _HORNS in defender.traits and table.lose_one(player, self.attacker):
            return
        table.feed_once(player, self.attacker)
        for eater in table.starting_with(player):
            for index, species in enumerate(eater.boards):
                if _SCAVENGER in species.traits:
                    table.feed_once(eater, index)


def feeding_options(table: Table, player: PlayerState) -> Iterator[FeedingChoice]:
    """Every feeding option of ``player`` at ``table`` (rules.md 7.2 step 3), lazily."""
    return options_of(player.boards, lambda: [other.boards for other in table.others(player)])


def options_of(
    boards: Sequence[Species], others: Callable[[], Sequence[Sequence[Species]]]
) -> Iterator[FeedingChoice]:
    """Every feeding option of a player with ``boards``, lazily: vegetarians, fat tissue, then attacks.

    ``others()`` gives the other players' boards in turn order; it is called
    only when a hungry carnivore needs targets.
    """
    carnivores = []
    for s, species in enumerate(boards):
        if species.food < species.population:
            if species.is_carnivore:
                carnivores.append((s, species))
            else:
                yield VegetarianChoice(s)
    for s, species in enumerate(boards):
        need = species.fat_need
        if need > 0:
            yield FatTissueChoice(s, need)
    if carnivores:
        boards_of_others = others()
        for a, species in carnivores:
            for p, d in targets(species, boards_of_others):
                yield CarnivoreChoice(a, p, d)
