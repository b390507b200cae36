"""Card actions (steps 2 and 3): checking and applying an Action4, dealing, the deck.

rules.md 6.3 lists what makes an Action4 illegal; each kind is rejected here with
a ``RulesViolation`` whose ``where`` names the offending part, so a bot author
learns which part of the answer was wrong. Then: the order in which a legal
Action4 is applied (rules.md 6.2), the watering-hole clamp after each player,
where dealt cards go in the hand (rules.md 2.2, 5.2) and the deck (rules.md 2.2).
"""

from __future__ import annotations

from collections import Counter

import pytest

from evolution.games.evolution.rules.actions import (
    Action4,
    Growth,
    NewBoard,
    TraitReplacement,
    apply_action,
    check_action,
    legal_action,
)
from evolution.games.evolution.rules.cards import ALL_CARDS, Card, Deck, card_order, is_valid_card
from evolution.games.evolution.rules.dealer import Dealer
from evolution.games.evolution.rules.errors import RulesViolation
from evolution.games.evolution.rules.traits import Trait
from tests.support.builders import card, cards, play, player, sp, table

HAND = cards(
    "2 carnivore",  # 0
    "1 long-neck",  # 1
    "0 ambush",  # 2
    "-1 foraging",  # 3
    "3 cooperation",  # 4
    "-2 horns",  # 5
    "1 fertile",  # 6
    "0 climbing",  # 7
    "-3 scavenger",  # 8
    "2 burrowing",  # 9
    "1 herding",  # 10
    "0 symbiosis",  # 11
    "3 fat-tissue",  # 12
    "3 horns",  # 13
)
BOARDS = (sp("carnivore", "ambush", pop=6, body=5), sp())  # k = 2 existing boards


def GP(*pairs: tuple[int, int]) -> tuple[Growth, ...]:
    return tuple(Growth(b, c) for b, c in pairs)


GB = GP


def BT(*specs: tuple[int, ...]) -> tuple[NewBoard, ...]:
    return tuple(NewBoard(spec[0], tuple(spec[1:])) for spec in specs)


def RT(*triples: tuple[int, int, int]) -> tuple[TraitReplacement, ...]:
    return tuple(TraitReplacement(*t) for t in triples)


ONE_NEW_BOARD = BT((1, 2))  # board 2: [ambush]

NOT_IN_HAND, TWICE, NO_BOARD, TOO_BIG = "not in the hand", "used twice", "does not exist", "beyond 7"

ILLEGAL = {
    # 2. cards: every index < H, no card used twice
    "food card beyond the hand": (Action4(14), "food-card", NOT_IN_HAND),
    "negative food card": (Action4(-1), "food-card", NOT_IN_HAND),
    "GP card beyond the hand": (Action4(0, grow_population=GP((1, 14))), "grow-population[0]", NOT_IN_HAND),
    "GB card beyond the hand": (Action4(0, grow_body=GB((1, 20))), "grow-body[0]", NOT_IN_HAND),
    "BT payment beyond the hand": (Action4(0, new_boards=BT((14,))), "new-boards[0]", NOT_IN_HAND),
    "BT trait card beyond the hand": (Action4(0, new_boards=BT((1, 14))), "new-boards[0]", NOT_IN_HAND),
    "RT card beyond the hand": (Action4(0, replace_traits=RT((0, 0, 14))), "replace-traits[0]", NOT_IN_HAND),
    "food card reused for GB": (Action4(0, grow_body=GB((1, 0))), "grow-body[0]", TWICE),
    "one card for two GPs": (Action4(0, grow_population=GP((1, 1), (1, 1))), "grow-population[1]", TWICE),
    "BT payment reused as its trait": (Action4(0, new_boards=BT((1, 1))), "new-boards[0]", TWICE),
    "card in a BT and a second BT": (Action4(0, new_boards=BT((1, 2), (3, 2))), "new-boards[1]", TWICE),
    "card in a BT and an RT": (
        Action4(0, new_boards=ONE_NEW_BOARD, replace_traits=RT((0, 0, 2))),
        "replace-traits[0]",
        TWICE,
    ),
    # 3. boards: index < k + m
    "GP on a board that does not exist": (Action4(0, grow_population=GP((2, 1))), "grow-population[0]", NO_BOARD),
    "GB beyond the new board": (Action4(0, new_boards=ONE_NEW_BOARD, grow_body=GB((3, 3))), "grow-body[0]", NO_BOARD),
    "RT on a board that does not exist": (Action4(0, replace_traits=RT((5, 0, 1))), "replace-traits[0]", NO_BOARD),
    # 4. population <= 7
    "population 6 grown twice": (Action4(0, grow_population=GP((0, 1), (0, 3))), "grow-population[1]", TOO_BIG),
    "new board grown 7 times": (
        Action4(0, new_boards=BT((1,)), grow_population=GP(*[(2, c) for c in range(2, 9)])),
        "grow-population[6]",
        TOO_BIG,
    ),
    # 5. body <= 7, and the new-board quirk (D7)
    "body 5 grown three times": (Action4(0, grow_body=GB((0, 1), (0, 2), (0, 3))), "grow-body[2]", TOO_BIG),
    "new board body grown 7 times": (
        Action4(0, new_boards=BT((1,)), grow_body=GB(*[(2, c) for c in range(2, 9)])),
        "grow-body[6]",
        TOO_BIG,
    ),
    # 6. new boards: distinct traits, at most 3
    "BT with a trait twice": (Action4(0, new_boards=BT((1, 5, 13))), "new-boards[0]", "trait twice"),
    "BT with four trait cards": (Action4(0, new_boards=BT((1, 2, 3, 4, 6))), "new-boards[0]", "at most 3"),
    # 7. trait replacement
    "RT position beyond the traits": (Action4(0, replace_traits=RT((0, 2, 1))), "replace-traits[0]", "no trait at"),
    "RT on a board without traits": (Action4(0, replace_traits=RT((1, 0, 1))), "replace-traits[0]", "no trait at"),
    "negative RT position": (Action4(0, replace_traits=RT((0, -1, 1))), "replace-traits[0]", "no trait at"),
    "RT beyond a new board's trait cards": (
        Action4(0, new_boards=ONE_NEW_BOARD, replace_traits=RT((2, 1, 3))),
        "replace-traits[0]",
        "no trait at",
    ),
    "RT duplicating a trait": (Action4(1, replace_traits=RT((0, 1, 0))), "replace-traits[0]", "carnivore twice"),
    "RT duplicating a trait of a new board": (
        Action4(0, new_boards=BT((1, 5, 3)), replace_traits=RT((2, 1, 13))),
        "replace-traits[0]",
        "horns twice",
    ),
    "two RTs that together duplicate a trait (D8)": (
        Action4(0, replace_traits=RT((0, 0, 5), (0, 1, 13))),
        "replace-traits[1]",
        "horns twice",
    ),
}


@pytest.mark.parametrize("action, where, reason", list(ILLEGAL.values()), ids=list(ILLEGAL))
def test_an_illegal_action4_is_rejected_naming_the_offending_part(action, where, reason):
    with pytest.raises(RulesViolation) as caught:
        check_action(action, BOARDS, HAND)
    assert caught.value.where == where
    assert reason in caught.value.reason


LEGAL = {
    "food card only": Action4(13),
    "everything at once": Action4(
        0,
        grow_population=GP((2, 3), (0, 4)),
        grow_body=GB((2, 5), (0, 6), (0, 7)),
        new_boards=BT((1, 2, 8, 9)),
        replace_traits=RT((2, 0, 10), (0, 1, 11)),
    ),
    "new board grown to population 7": Action4(
        0, new_boards=BT((1,)), grow_population=GP(*[(2, c) for c in range(2, 8)])
    ),
    "new board grown 6 times (D7)": Action4(0, new_boards=BT((1,)), grow_body=GB(*[(2, c) for c in range(2, 8)])),
    "BT with three trait cards": Action4(0, new_boards=BT((1, 2, 3, 4))),
    "RT to the trait already there": Action4(1, replace_traits=RT((0, 0, 0))),
    "two RTs on the same position": Action4(0, replace_traits=RT((0, 1, 5), (0, 1, 13))),
    "two BTs, growth on the second": Action4(0, new_boards=BT((1,), (2, 3)), grow_population=GP((3, 4))),
}


@pytest.mark.parametrize("action", list(LEGAL.values()), ids=list(LEGAL))
def test_a_legal_action4_is_accepted(action):
    assert check_action(action, BOARDS, HAND) is action


def test_an_answer_found_legal_is_not_checked_again_against_the_same_boards_and_hand_only():
    # The wire layer checks a remote answer (to name the offending part of the
    # message) and hands the dealer the proof; against other boards or another
    # hand the dealer checks it afresh.
    action = Action4(0, grow_body=(Growth(1, 3),))
    legal = legal_action(action, BOARDS, HAND)
    assert (legal.food_card, legal.grow_body, legal.boards, legal.hand) == (0, action.grow_body, BOARDS, tuple(HAND))
    assert check_action(legal, BOARDS, HAND) is legal
    assert check_action(legal, list(BOARDS), list(HAND)) is legal
    with pytest.raises(RulesViolation, match="not in the hand of 1 card"):
        check_action(legal, BOARDS, HAND[:1])
    with pytest.raises(RulesViolation, match="board 1 does not exist"):
        check_action(legal, BOARDS[:1], HAND)
    with pytest.raises(RulesViolation, match="not in the hand of 1 card"):
        legal_action(action, BOARDS, HAND[:1])


def test_a_player_with_an_empty_hand_has_no_legal_action4():
    with pytest.raises(RulesViolation) as caught:
        check_action(Action4(0), BOARDS, [])
    assert caught.value.where == "food-card"


def test_an_answer_that_is_not_an_action4_is_rejected():
    with pytest.raises(RulesViolation, match="expected an Action4"):
        check_action([0, [], [], [], []], BOARDS, HAND)


# -- applying (rules.md 6.2) -------------------------------------------------


def test_apply_action_creates_boards_then_replaces_then_grows_and_returns_the_food_value():
    me = player(1, *BOARDS, hand=HAND)
    action = check_action(
        Action4(
            4,
            grow_population=GP((2, 7), (0, 8)),
            grow_body=GB((2, 9)),
            new_boards=BT((1, 2, 3)),
            replace_traits=RT((2, 0, 6), (0, 1, 10)),
        ),
        me.boards,
        me.hand,
    )
    assert apply_action(me, action) == 3
    assert me.boards == [
        sp("carnivore", "herding", pop=7, body=5),
        sp(),
        sp("fertile", "foraging", pop=2, body=1),
    ]
    assert me.hand == [HAND[0], HAND[5], HAND[11], HAND[12], HAND[13]]


def test_a_later_rt_overwrites_an_earlier_one_on_the_same_position():
    me = player(1, *BOARDS, hand=HAND)
    apply_action(me, Action4(0, replace_traits=RT((0, 1, 5), (0, 1, 12))))
    assert me.boards[0].traits == (Trait.CARNIVORE, Trait.FAT_TISSUE)


def test_only_the_cards_named_are_removed_and_the_rest_keep_their_order():
    me = player(1, sp(), hand=HAND[:5])
    assert apply_action(me, Action4(2, grow_body=GB((0, 0)))) == 0
    assert me.hand == [HAND[1], HAND[3], HAND[4]]


def _food_card_player(id: int, food: int):
    return player(id, sp(), hand=[card(food, "carnivore")])


@pytest.mark.parametrize(
    "start, foods, end",
    [(0, (-3, 3), 3), (0, (3, -3), 0), (2, (-1, -2, 4), 4), (5, (-8, 8, -3), 5)],
)
def test_the_watering_hole_is_clamped_at_zero_after_each_player(start, foods, end):
    players = [_food_card_player(i + 1, food) for i, food in enumerate(foods)]
    tbl = table(*players, wh=start)
    Dealer(tbl).apply_actions([(p, Action4(0)) for p in players])
    assert tbl.watering_hole == end
    assert all(p.hand == [] for p in players)


# -- dealing (rules.md 2.2, 5.1, 5.2) ----------------------------------------


def test_dealt_cards_go_in_front_of_the_hand_in_deck_order():
    me = player(1, hand=cards("1 horns", "2 horns"))
    me.receive(cards("-1 ambush", "0 ambush"))
    assert me.hand == cards("-1 ambush", "0 ambush", "1 horns", "2 horns")


def test_step_1_gives_free_boards_then_boards_plus_3_cards_in_turn_order():
    deck = list(ALL_CARDS[:14])
    first = player(1, sp(), sp(), hand=cards("3 horns"))
    second = player(2)
    third = player(3, sp(pop=2))
    tbl = table(first, second, third, deck=deck)
    play(Dealer(tbl).step1())
    assert first.hand == deck[0:5] + cards("3 horns")
    assert second.boards == [sp()]
    assert second.hand == deck[5:9]
    assert third.hand == deck[9:13]
    assert tbl.deck.remaining() == deck[13:]


def test_step_1_deals_what_is_left_when_the_deck_is_short():
    deck = list(ALL_CARDS[:10])
    players = [player(i) for i in (1, 2, 3)]
    tbl = table(*players, deck=deck)
    play(Dealer(tbl).step1())
    assert [p.hand for p in players] == [deck[0:4], deck[4:8], deck[8:10]]


# -- the deck (rules.md 2.2) -------------------------------------------------


def test_the_deck_holds_122_distinct_cards_in_canonical_order():
    assert len(ALL_CARDS) == 122 == len(set(ALL_CARDS))
    assert list(ALL_CARDS) == sorted(ALL_CARDS, key=card_order)
    per_trait = Counter(c.trait for c in ALL_CARDS)
    assert per_trait[Trait.CARNIVORE] == 17
    assert all(per_trait[t] == 7 for t in Trait if t is not Trait.CARNIVORE)
    assert ALL_CARDS[:8] == tuple(card(food, "ambush") for food in range(-3, 4)) + (card(-3, "burrowing"),)
    assert ALL_CARDS[14:16] == tuple(cards("-8 carnivore", "-7 carnivore"))
    assert ALL_CARDS[-1] == card(3, "warning-call")


def test_valid_cards_have_the_food_range_of_their_trait():
    assert is_valid_card(card(-8, "carnivore")) and is_valid_card(card(8, "carnivore"))
    assert not is_valid_card(card(9, "carnivore"))
    assert is_valid_card(card(3, "symbiosis")) and not is_valid_card(card(4, "symbiosis"))
    assert not is_valid_card(Card(-4, Trait.HORNS))


def test_the_sorted_deck_deals_from_the_front():
    deck = Deck.sorted()
    assert len(deck) == 122
    assert deck.take(3) == list(ALL_CARDS[:3])
    assert len(deck) == 119
    assert deck.remaining() == list(ALL_CARDS[3:])


def test_taking_from_a_short_deck_gives_what_is_left():
    deck = Deck(ALL_CARDS[:3])
    assert deck.take(2) == list(ALL_CARDS[:2])
    assert deck.take(2) == [ALL_CARDS[2]]
    assert deck.take(2) == []
    assert len(deck) == 0


def test_a_shuffled_deck_is_a_permutation_reproducible_by_its_seed():
    first, again, other = Deck.shuffled(17).remaining(), Deck.shuffled(17).remaining(), Deck.shuffled(18).remaining()
    assert first == again
    assert Counter(first) == Counter(ALL_CARDS)
    assert first != other
    assert first != list(ALL_CARDS)
