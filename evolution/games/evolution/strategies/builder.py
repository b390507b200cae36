"""The "builder" strategy: play every card for points, feed the hungriest first.

Offers ``builder_action`` (card actions), ``builder_feeding_choice`` and
``BuilderPlayer``. A player's score is its bag plus its boards plus the
traits on them (rules.md 10.3), and traits come only with new boards; so:

- food card: the card least useful as a trait (a carnivore first: it would
  make a species hunt rather than eat), the richest in food among those;
- new boards, each paid for with a useless card and carrying up to three
  distinct useful traits, while the player has fewer than ``MAX_BOARDS``;
- every card left grows the population of the smallest species (more
  mouths, more food in the bag), then the body;
- feeding: the hungry vegetarian with the most empty mouths, else fat
  tissue, else the largest prey a hungry carnivore may attack. It only ever
  picks one of the options the dealer itself would list, so it is always
  legal; every Action4 is checked with the dealer's own ``check_action``
  and, should the plan break a rule, the reference strategy's is sent.
"""

from __future__ import annotations

from typing import Sequence

from evolution.games.evolution.rules.actions import Action4, Growth, NewBoard, check_action
from evolution.games.evolution.rules.cards import Card
from evolution.games.evolution.rules.errors import RulesViolation
from evolution.games.evolution.rules.feeding import FatTissueChoice, FeedingChoice, VegetarianChoice, options_of
from evolution.games.evolution.rules.player import LOB, FeedingState
from evolution.games.evolution.rules.silly import SillyPlayer, silly_action
from evolution.games.evolution.rules.species import MAX_BODY, MAX_POPULATION, MAX_TRAITS, Boards
from evolution.games.evolution.rules.traits import Trait

MAX_BOARDS = 4

# How much a trait is worth on a vegetarian's board (higher is better).
WORTH = {
    Trait.FORAGING: 9, Trait.COOPERATION: 8, Trait.LONG_NECK: 8, Trait.FAT_TISSUE: 7, Trait.HARD_SHELL: 7,
    Trait.CLIMBING: 6, Trait.BURROWING: 6, Trait.HORNS: 6, Trait.WARNING_CALL: 5, Trait.SYMBIOSIS: 5,
    Trait.HERDING: 5, Trait.FERTILE: 4, Trait.SCAVENGER: 3, Trait.AMBUSH: 1, Trait.PACK_HUNTING: 1,
    Trait.CARNIVORE: 0,
}


def _worth(card: Card) -> int:
    return WORTH[card.trait]


def builder_action(hand: Sequence[Card], boards: Boards) -> Action4:
    """The builder's card actions for a player holding ``hand`` and ``boards``."""
    cards = list(range(len(hand)))
    food = min(cards, key=lambda i: (_worth(hand[i]), -hand[i].food, i))
    cards.remove(food)
    cards.sort(key=lambda i: (-_worth(hand[i]), i))  # most useful first
    new_boards: list[NewBoard] = []
    while len(cards) >= 2 and len(boards) + len(new_boards) < MAX_BOARDS:
        payment = cards.pop()  # the least useful card pays
        traits: list[int] = []
        for i in list(cards):
            if len(traits) == MAX_TRAITS:
                break
            if hand[i].trait is not Trait.CARNIVORE and all(hand[j].trait != hand[i].trait for j in traits):
                traits.append(i)
                cards.remove(i)
        new_boards.append(NewBoard(payment, tuple(traits)))
    populations = [s.population for s in boards] + [1] * len(new_boards)
    bodies = [s.body for s in boards] + [0] * len(new_boards)
    grow_population, grow_body = [], []
    for card in cards:
        board = min(range(len(populations)), key=lambda b: (populations[b], b), default=None)
        if board is not None and populations[board] < MAX_POPULATION:
            populations[board] += 1
            grow_population.append(Growth(board, card))
            continue
        board = min(range(len(bodies)), key=lambda b: (bodies[b], b), default=None)
        if board is not None and bodies[board] < MAX_BODY:
            bodies[board] += 1
            grow_body.append(Growth(board, card))
    return Action4(food, tuple(grow_population), tuple(grow_body), tuple(new_boards))


def feeding_options(state: FeedingState) -> list[FeedingChoice]:
    """The options the dealer lists for this state (rules.md 7.2), in its order."""
    return list(options_of(state.boards, lambda: state.others))


def builder_feeding_choice(state: FeedingState) -> FeedingChoice:
    options = feeding_options(state)
    if not options:
        raise RulesViolation("nothing to feed")
    boards, others = state.boards, state.others

    def preference(choice: FeedingChoice) -> tuple:
        if isinstance(choice, VegetarianChoice):
            species = boards[choice.species]
            return (0, -(species.population - species.food), choice.species)
        if isinstance(choice, FatTissueChoice):
            return (1, -choice.tokens, choice.species)
        prey = others[choice.target_player][choice.target]
        return (2, -prey.population, -prey.body, choice.attacker, choice.target_player, choice.target)

    best = min(options, key=preference)
    if isinstance(best, FatTissueChoice):
        return FatTissueChoice(best.species, max(1, min(best.tokens, state.watering_hole)))
    return best


class BuilderPlayer(SillyPlayer):
    """A local player using the builder strategy (it keeps what ``start`` shows as the silly player does)."""

    def choose(self, before: LOB, after: LOB) -> Action4:
        if self.me is None:
            raise RulesViolation("choose was asked before start")
        hand, boards = self.me.hand, self.me.boards
        try:
            return check_action(builder_action(hand, boards), boards, hand)
        except (RulesViolation, ValueError):
            return silly_action(hand, len(boards))

    def feed_next(self, state: FeedingState) -> FeedingChoice:
        return builder_feeding_choice(state)
