"""The course's reference ("silly") strategy (rules.md 12).

Offers ``silly_action`` (card actions), ``silly_feeding_choice`` (the next
feeding choice) and ``SillyPlayer``, a local player built from them.

"Larger" species: more population, then more food, then larger body; complete
ties keep index order (the first wins).
"""

from __future__ import annotations

from typing import Sequence

from evolution.games.evolution.rules.actions import Action4, Growth, NewBoard, TraitReplacement
from evolution.games.evolution.rules.attack import may_attack
from evolution.games.evolution.rules.cards import Card, card_order
from evolution.games.evolution.rules.errors import RulesViolation
from evolution.games.evolution.rules.feeding import (
    CarnivoreChoice,
    Decline,
    FatTissueChoice,
    FeedingChoice,
    VegetarianChoice,
)
from evolution.games.evolution.rules.player import LOB, FeedingState
from evolution.games.evolution.rules.player_state import PlayerView
from evolution.games.evolution.rules.species import Species
from evolution.games.evolution.rules.table import neighbours, targets

MIN_CARDS = 3


def _size(species: Species) -> tuple[int, int, int]:
    return (species.population, species.food, species.body)


def _largest(candidates: Sequence[tuple[int, Species]]) -> int:
    """The index of the largest species; the first wins a complete tie."""
    return max(candidates, key=lambda entry: _size(entry[1]))[0]


def silly_action(hand: Sequence[Card], board_count: int) -> Action4:
    """Food card = smallest card; a new board with the 2nd and 3rd; then GP, GB, RT on it."""
    if len(hand) < MIN_CARDS:
        raise RulesViolation(f"the silly strategy needs at least {MIN_CARDS} cards, it holds {len(hand)}")
    order = sorted(range(len(hand)), key=lambda i: card_order(hand[i]))
    new = board_count
    extra = order[3:6]
    return Action4(
        food_card=order[0],
        grow_population=(Growth(new, extra[0]),) if len(extra) > 0 else (),
        grow_body=(Growth(new, extra[1]),) if len(extra) > 1 else (),
        new_boards=(NewBoard(order[1], (order[2],)),),
        replace_traits=(TraitReplacement(new, 0, extra[2]),) if len(extra) > 2 else (),
    )


def silly_feeding_choice(state: FeedingState) -> FeedingChoice:
    """The reference strategy's next feeding choice (rules.md 12.2)."""
    boards = state.boards
    fat = [(s, sp) for s, sp in enumerate(boards) if sp.fat_need > 0]
    if fat:
        most = max(sp.fat_need for _, sp in fat)
        chosen = _largest([(s, sp) for s, sp in fat if sp.fat_need == most])
        return FatTissueChoice(chosen, min(most, state.watering_hole))
    vegetarians = [(s, sp) for s, sp in enumerate(boards) if sp.is_hungry and not sp.is_carnivore]
    if vegetarians:
        return VegetarianChoice(_largest(vegetarians))
    carnivores = [(s, sp) for s, sp in enumerate(boards) if sp.is_hungry and sp.is_carnivore]
    carnivores.sort(key=lambda entry: _size(entry[1]), reverse=True)
    for a, attacker in carnivores:
        target = _largest_target(attacker, state.others)
        if target is not None:
            return CarnivoreChoice(a, *target)
    for _, attacker in carnivores:
        if any(may_attack(attacker, d, *neighbours(boards, i)) for i, d in enumerate(boards)):
            return Decline()
    raise RulesViolation("the silly strategy has nothing to feed")


def _largest_target(attacker: Species, others: LOB) -> tuple[int, int] | None:
    """The largest attackable species; an earlier player, then a higher index, wins ties."""
    best: tuple[int, int] | None = None
    best_size = None
    for p, d in targets(attacker, others):
        size = _size(others[p][d])
        if best_size is None or size > best_size or (size == best_size and p == best[0]):
            best, best_size = (p, d), size
    return best


class SillyPlayer:
    """A local player using the reference strategy."""

    def __init__(self) -> None:
        self.me: PlayerView | None = None

    def start(self, watering_hole: int, me: PlayerView) -> None:
        self.me = me

    def choose(self, before: LOB, after: LOB) -> Action4:
        if self.me is None:
            raise RulesViolation("choose was asked before start")
        return silly_action(self.me.hand, len(self.me.boards))

    def feed_next(self, state: FeedingState) -> FeedingChoice:
        return silly_feeding_choice(state)
