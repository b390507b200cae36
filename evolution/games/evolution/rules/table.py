# -*- test-case-name: tests.games.evolution.rules.test_traits -*-
"""The state a game shares between its players, and the operations that feed and kill.

Offers ``Table`` (players in turn order, watering hole, deck) with the
operations the feeding rules are built from: feeding a species once (with
foraging and cooperation, rules.md 7.3), losing one animal, extinction and the
cards handed out for it (rules.md 9), and the turn-order views the rules talk
about ("the other players, starting with the player after P").
"""

from __future__ import annotations

from typing import Iterator, Sequence

from evolution.games.evolution.rules.attack import may_attack
from evolution.games.evolution.rules.cards import Deck
from evolution.games.evolution.rules.player_state import PlayerState
from evolution.games.evolution.rules.species import Species
from evolution.games.evolution.rules.traits import Trait

EXTINCTION_CARDS = 2

_FORAGING = Trait.FORAGING
_COOPERATION = Trait.COOPERATION


class Table:
    """Players in turn order, the watering hole and the deck."""

    __slots__ = ("players", "watering_hole", "deck")

    def __init__(self, players: list[PlayerState], watering_hole: int = 0, deck: Deck | None = None):
        self.players = players
        self.watering_hole = watering_hole
        self.deck = deck if deck is not None else Deck([])

    def others(self, player: PlayerState) -> list[PlayerState]:
        """The other players in turn order, starting with the one after ``player``."""
        players = self.players
        i = players.index(player)
        return players[i + 1:] + players[:i]

    def starting_with(self, player: PlayerState) -> list[PlayerState]:
        """All players in turn order, starting with ``player``."""
        players = self.players
        i = players.index(player)
        return players[i:] + players[:i]

    def feed_once(self, player: PlayerState, index: int) -> None:
        """Feed board ``index`` one token, with foraging and cooperation (rules.md 7.3)."""
        boards = player.boards
        species = boards[index]
        wh = self.watering_hole
        if wh == 0 or species.food >= species.population:
            return
        food = species.food + 1
        wh -= 1
        tokens = 1
        traits = species.traits
        if wh and food < species.population and _FORAGING in traits:
            food += 1
            wh -= 1
            tokens = 2
        boards[index] = species._replace(food=food)
        self.watering_hole = wh
        if _COOPERATION in traits and index + 1 < len(boards):
            for _ in range(tokens):
                self.feed_once(player, index + 1)

    def lose_one(self, player: PlayerState, index: int) -> bool:
        """Board ``index`` loses one animal; return True if the species died out."""
        species = player.boards[index]
        population = species.population - 1
        if population <= 0:
            self.extinct(player, index)
            return True
        player.boards[index] = species._replace(population=population, food=min(species.food, population))
        return False

    def extinct(self, player: PlayerState, index: int) -> None:
        """Remove board ``index``; its owner receives the extinction cards."""
        del player.boards[index]
        player.receive(self.deck.take(EXTINCTION_CARDS))

    def remove(self, player: PlayerState) -> None:
        """A player leaves the game: its boards and cards vanish with it."""
        self.players.remove(player)


def neighbours(boards: Sequence[Species], index: int) -> tuple[Species | None, Species | None]:
    """The left and right neighbours of board ``index`` (None at the ends)."""
    left = boards[index - 1] if index > 0 else None
    right = boards[index + 1] if index + 1 < len(boards) else None
    return left, right


def targets(attacker: Species, others: Sequence[Sequence[Species]]) -> Iterator[tuple[int, int]]:
    """Every (player, board) among ``others`` that ``attacker`` may attack."""
    for p, boards in enumerate(others):
        for d, defender in enumerate(boards):
            left, right = neighbours(boards, d)
            if may_attack(attacker, defender, left, right):
                yield p, d
