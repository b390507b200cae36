"""Card actions (steps 2 and 3): the Action4 a player answers to ``choose``.

Offers the data definition, ``check_action`` (every rule of rules.md 6.3; a
breach raises ``RulesViolation`` naming the offending part), ``legal_action``
(the same check, answering a ``LegalAction4`` that a second check against the
same boards and hand accepts at once) and ``apply_action`` (rules.md 6.2).

Data definition, as messages.md writes it::

    Action4 = [food-card, [GP, ...], [GB, ...], [BT, ...], [RT, ...]]
    GP = [board, card]            grow population of board by 1
    GB = [board, card]            grow body of board by 1
    BT = [payment, card, ...]     new board at the right, traits of 0..3 cards
    RT = [board, position, card]  replace a trait

Card numbers index the hand as it was when ``choose`` was asked; board k + j
is the board created by the j-th BT of a player with k boards.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple, Sequence

from evolution.games.evolution.rules.cards import Card
from evolution.games.evolution.rules.errors import RulesViolation
from evolution.games.evolution.rules.player_state import PlayerState
from evolution.games.evolution.rules.species import MAX_BODY, MAX_POPULATION, MAX_TRAITS, Species
from evolution.games.evolution.rules.traits import Trait
from evolution.text import plural


class Growth(NamedTuple):
    """GP or GB: pay with ``card`` to grow ``board`` by one."""

    board: int
    card: int


class NewBoard(NamedTuple):
    """BT: pay with ``payment`` for a new board with the traits of ``traits``."""

    payment: int
    traits: tuple[int, ...] = ()


class TraitReplacement(NamedTuple):
    """RT: replace the trait at ``position`` of ``board`` by the trait of ``card``."""

    board: int
    position: int
    card: int


@dataclass(frozen=True, slots=True)
class Action4:
    """A player's card actions for one turn."""

    food_card: int
    grow_population: tuple[Growth, ...] = ()
    grow_body: tuple[Growth, ...] = ()
    new_boards: tuple[NewBoard, ...] = ()
    replace_traits: tuple[TraitReplacement, ...] = ()

    def cards_used(self) -> list[int]:
        """Every card index named anywhere, in the order of the definition."""
        used = [self.food_card]
        used.extend(g.card for g in self.grow_population)
        used.extend(g.card for g in self.grow_body)
        for bt in self.new_boards:
            used.append(bt.payment)
            used.extend(bt.traits)
        used.extend(rt.card for rt in self.replace_traits)
        return used


def _is_index(value: object, limit: int) -> bool:
    return type(value) is int and 0 <= value < limit  # bool is not an index


class _Check:
    """One validation of an Action4 against a player's boards and hand."""

    def __init__(self, action: Action4, boards: Sequence[Species], hand: Sequence[Card]):
        self.action = action
        self.boards = boards
        self.hand = hand
        self.board_count = len(boards) + len(action.new_boards)
        self.seen: set[int] = set()

    def card(self, index: object, where: str) -> Card:
        if not _is_index(index, len(self.hand)):
            raise RulesViolation(f"card {index!r} is not in the hand of {plural(len(self.hand), 'card')}", where)
        if index in self.seen:
            raise RulesViolation(f"card {index} is used twice", where)
        self.seen.add(index)
        return self.hand[index]

    def board(self, index: object, where: str) -> int:
        if not _is_index(index, self.board_count):
            raise RulesViolation(
                f"board {index!r} does not exist ({plural(len(self.boards), 'board')}"
                f" + {len(self.action.new_boards)} new)",
                where,
            )
        return index

    def traits_of(self, board: int) -> list[Trait]:
        """The board's traits before any replacement (new boards: their BT cards)."""
        if board < len(self.boards):
            return list(self.boards[board].traits)
        bt = self.action.new_boards[board - len(self.boards)]
        return [self.hand[c].trait for c in bt.traits]

    def run(self) -> None:
        action = self.action
        self.card(action.food_card, "food-card")
        new_traits = [self.new_board(i, bt) for i, bt in enumerate(action.new_boards)]
        self.growths(action.grow_population, "grow-population", MAX_POPULATION, self.population)
        self.growths(action.grow_body, "grow-body", MAX_BODY, self.body)
        self.replacements(new_traits)

    def new_board(self, i: int, bt: NewBoard) -> list[Trait]:
        where = f"new-boards[{i}]"
        self.card(bt.payment, where)
        if len(bt.traits) > MAX_TRAITS:
            raise RulesViolation(f"{len(bt.traits)} trait cards, at most {MAX_TRAITS} allowed", where)
        traits = [self.card(c, where).trait for c in bt.traits]
        if len(set(traits)) != len(traits):
            raise RulesViolation("the new board would have a trait twice", where)
        return traits

    def population(self, board: int) -> int:
        return self.boards[board].population if board < len(self.boards) else 1

    def body(self, board: int) -> int:
        # The reference dealer counts a new board's body from 1 (rules.md D7).
        return self.boards[board].body if board < len(self.boards) else 1

    def growths(self, growths: Sequence[Growth], name: str, limit: int, start) -> None:
        counts: Counter[int] = Counter()
        for i, growth in enumerate(growths):
            where = f"{name}[{i}]"
            board = self.board(growth.board, where)
            self.card(growth.card, where)
            counts[board] += 1
            if start(board) + counts[board] > limit:
                raise RulesViolation(f"board {board} would grow beyond {limit}", where)

    def replacements(self, new_traits: list[list[Trait]]) -> None:
        after: dict[int, list[Trait]] = {}
        for i, rt in enumerate(self.action.replace_traits):
            where = f"replace-traits[{i}]"
            board = self.board(rt.board, where)
            trait = self.card(rt.card, where).trait
            before = self.traits_of(board)
            if not _is_index(rt.position, len(before)):
                raise RulesViolation(
                    f"board {board} has no trait at position {rt.position!r}"
                    f" (it has {len(before)})",
                    where,
                )
            alone = list(before)
            alone[rt.position] = trait
            combined = after.setdefault(board, before)
            combined[rt.position] = trait
            if len(set(alone)) != len(alone) or len(set(combined)) != len(combined):
                raise RulesViolation(f"board {board} would have the trait {trait} twice", where)


def check_action(action: object, boards: Sequence[Species], hand: Sequence[Card]) -> Action4:
    """Return ``action`` if it is a legal Action4 for this player, else raise.

    A ``LegalAction4`` (``legal_action``) already found legal against boards
    and hand equal to these is returned without a second check: the check
    depends on nothing else, and all of it is immutable. Against other
    boards or another hand it is checked again.
    """
    if isinstance(action, LegalAction4) and action.boards == tuple(boards) and action.hand == tuple(hand):
        return action
    if not isinstance(action, Action4):
        raise RulesViolation(f"expected an Action4, got {type(action).__name__}")
    _Check(action, boards, hand).run()
    return action


@dataclass(frozen=True, slots=True)
class LegalAction4(Action4):
    """An Action4 with the boards and hand it was found legal against (made by ``legal_action``).

    A remote player's answer is checked where it is read, to name the
    offending part of the message; the proxy answers the dealer with this,
    so the dealer need not check the same answer against the same boards
    again. It is an Action4 in every other way.
    """

    boards: tuple[Species, ...] = ()
    hand: tuple[Card, ...] = ()


def legal_action(action: object, boards: Sequence[Species], hand: Sequence[Card]) -> LegalAction4:
    """``check_action``, answering the Action4 with the boards and hand it was checked against; raises as it does."""
    boards, hand = tuple(boards), tuple(hand)
    checked = check_action(action, boards, hand)
    return LegalAction4(
        checked.food_card, checked.grow_population, checked.grow_body, checked.new_boards, checked.replace_traits,
        boards, hand,
    )


def apply_action(player: PlayerState, action: Action4) -> int:
    """Carry out a checked Action4; return the food card's value (rules.md 6.2)."""
    hand, boards = player.hand, player.boards
    for bt in action.new_boards:
        boards.append(Species(traits=tuple(hand[c].trait for c in bt.traits)))
    for rt in action.replace_traits:
        species = boards[rt.board]
        traits = list(species.traits)
        traits[rt.position] = hand[rt.card].trait
        boards[rt.board] = species._replace(traits=tuple(traits))
    for gp in action.grow_population:
        species = boards[gp.board]
        boards[gp.board] = species._replace(population=min(MAX_POPULATION, species.population + 1))
    for gb in action.grow_body:
        species = boards[gb.board]
        boards[gb.board] = species._replace(body=min(MAX_BODY, species.body + 1))
    food = hand[action.food_card].food
    used = set(action.cards_used())
    player.hand = [card for i, card in enumerate(hand) if i not in used]
    return food
