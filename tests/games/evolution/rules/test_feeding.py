"""Feeding (step 4): which answers are legal, when a player is asked, when the cycle ends.

rules.md 7.2 and 11: a player is asked ``feed_next`` only with two or more
options; with exactly one the dealer carries it out; an answer that is not one
of the options (``false`` included) removes the player and nothing of it is
executed. The cycle goes round the players until the watering hole is empty or
nobody has an option, and a player skipped once may eat on a later round.
The complete step 4 of rules.md 13 closes the file.
"""

from __future__ import annotations

import pytest

from evolution.games.evolution.rules.actions import Action4, Growth, NewBoard
from evolution.games.evolution.rules.dealer import Dealer
from evolution.games.evolution.rules.errors import RulesViolation
from evolution.games.evolution.rules.feeding import CarnivoreChoice, Decline, FatTissueChoice, VegetarianChoice
from evolution.games.evolution.rules.player import FeedingState
from tests.support.builders import Recorder, Scripted, card, cards, play, player, sp, table

BOARDS = (
    sp("carnivore", pop=2),  # 0 hungry carnivore
    sp(pop=2),  # 1 hungry vegetarian
    sp(food=1, pop=1),  # 2 fed vegetarian
    sp("fat-tissue", food=1, pop=1, body=3, fat=1),  # 3 fed, room for 2 fat tokens
    sp("carnivore", food=2, pop=2),  # 4 fed carnivore
    sp("fat-tissue", pop=2, body=2, fat=2),  # 5 no room for fat
)
OTHERS = (
    (sp(), sp("climbing")),
    (sp("warning-call"), sp()),
)

ILLEGAL = {
    "false": (Decline(), "declined"),
    "vegetarian choice of a carnivore": (VegetarianChoice(0), "is a carnivore"),
    "vegetarian choice of a fed species": (VegetarianChoice(2), "not hungry"),
    "vegetarian choice beyond the boards": (VegetarianChoice(6), "does not exist"),
    "negative vegetarian choice": (VegetarianChoice(-1), "does not exist"),
    "fat request above the need": (FatTissueChoice(3, 3), "can store 1..2"),
    "fat request of 0": (FatTissueChoice(3, 0), "can store 1..2"),
    "negative fat request": (FatTissueChoice(3, -1), "can store 1..2"),
    "fat request without fat-tissue": (FatTissueChoice(1, 1), "no fat-tissue"),
    "fat request with no room left": (FatTissueChoice(5, 1), "no room"),
    "fat request beyond the boards": (FatTissueChoice(6, 1), "does not exist"),
    "attack by a fed carnivore": (CarnivoreChoice(4, 0, 0), "not hungry"),
    "attack by a vegetarian": (CarnivoreChoice(1, 0, 0), "not a carnivore"),
    "attack on a climbing species": (CarnivoreChoice(0, 0, 1), "may not attack"),
    "attack on a warned species": (CarnivoreChoice(0, 1, 1), "may not attack"),
    "attacker beyond the boards": (CarnivoreChoice(6, 0, 0), "does not exist"),
    "target player beyond the others": (CarnivoreChoice(0, 2, 0), "player 2 does not exist"),
    "negative target player": (CarnivoreChoice(0, -1, 0), "does not exist"),
    "target species beyond the boards": (CarnivoreChoice(0, 0, 2), "has no species 2"),
}


@pytest.mark.parametrize("choice, reason", list(ILLEGAL.values()), ids=list(ILLEGAL))
def test_an_illegal_feeding_choice_is_rejected(choice, reason):
    with pytest.raises(RulesViolation) as caught:
        choice.check(BOARDS, OTHERS)
    assert reason in caught.value.reason


LEGAL = {
    "hungry vegetarian": VegetarianChoice(1),
    "the full fat need": FatTissueChoice(3, 2),
    "less than the fat need": FatTissueChoice(3, 1),
    "attack on the first other player": CarnivoreChoice(0, 0, 0),
    "attack on the warning-call species itself": CarnivoreChoice(0, 1, 0),
}


@pytest.mark.parametrize("choice", list(LEGAL.values()), ids=list(LEGAL))
def test_a_legal_feeding_choice_passes_its_check(choice):
    choice.check(BOARDS, OTHERS)  # raises if not


# -- when the dealer asks -------------------------------------------------------


def test_a_single_option_is_carried_out_without_asking():
    me = Recorder()
    p1 = player(1, sp(pop=2), sp("carnivore", food=1, pop=1), strategy=me)
    tbl = table(p1, player(2, sp("climbing")), wh=4)
    play(Dealer(tbl).feeding_step(p1))
    assert "feed_next" not in me.methods()
    assert p1.boards[0].food == 1 and tbl.watering_hole == 3


def test_a_fed_fat_tissue_species_alone_is_stored_without_asking():
    me = Recorder()
    p1 = player(1, sp("fat-tissue", food=1, pop=1, body=4, fat=1), strategy=me)
    tbl = table(p1, player(2, sp("climbing")), wh=2)
    play(Dealer(tbl).feeding_step(p1))
    assert "feed_next" not in me.methods()
    assert p1.boards[0].fat_food == 3 and tbl.watering_hole == 0


def test_two_options_ask_the_player_showing_the_others_from_the_next_player_on():
    asked = Scripted(VegetarianChoice(1))
    before = player(1, sp("burrowing", food=1, pop=1))
    me = player(2, sp(pop=2), sp(pop=3), hand=cards("1 horns"), bag=4, strategy=asked)
    after = player(3, sp("climbing"), sp(body=2))
    tbl = table(before, me, after, wh=5)
    play(Dealer(tbl).feeding_step(me))
    assert asked.states() == [
        FeedingState(4, (sp(pop=2), sp(pop=3)), tuple(cards("1 horns")), 5, (tuple(after.boards), tuple(before.boards)))
    ]
    assert [s.food for s in me.boards] == [0, 1]


def test_two_attack_targets_are_two_options():
    asked = Scripted(CarnivoreChoice(0, 1, 0))
    me = player(1, sp("carnivore", pop=2), strategy=asked)
    second, third = player(2, sp(pop=2)), player(3, sp(pop=3))
    tbl = table(me, second, third, wh=5)
    play(Dealer(tbl).feeding_step(me))
    assert len(asked.states()) == 1
    assert (second.boards, third.boards) == ([sp(pop=2)], [sp(pop=2)])


def test_a_fat_request_below_the_need_stores_that_much():
    asked = Scripted(FatTissueChoice(0, 1))
    me = player(1, sp("fat-tissue", pop=2, body=3), strategy=asked)
    tbl = table(me, player(2), wh=5)
    play(Dealer(tbl).feeding_step(me))
    assert me.boards[0].fat_food == 1 and tbl.watering_hole == 4


@pytest.mark.parametrize(
    "answer",
    [Decline(), VegetarianChoice(2), FatTissueChoice(0, 4), CarnivoreChoice(1, 0, 0), 1, None],
    ids=["false", "fed species", "fat above need", "attack by a vegetarian", "a bare number", "nothing"],
)
def test_an_illegal_answer_removes_the_player_and_is_not_carried_out(answer):
    me = player(1, sp("fat-tissue", pop=2, body=3), sp(pop=2), sp(food=1, pop=1), strategy=Scripted(answer))
    other = player(2, sp(pop=3))
    tbl = table(me, other, wh=5)
    dealer = Dealer(tbl)
    play(dealer.feeding())
    assert tbl.players == [other]
    assert [(r.id, r.step) for r in dealer.removals] == [(1, "feed")]
    assert dealer.removals[0].reason.startswith("illegal feeding choice")
    # The cycle went on with the other player, who ate until fed.
    assert other.boards == [sp(food=3, pop=3)] and tbl.watering_hole == 2


# -- the feeding cycle ----------------------------------------------------------


def _trace(tbl) -> list[int]:
    """Run the whole feeding; return the watering hole after each feeding step."""
    holes: list[int] = []

    def observe(event: str, dealer: Dealer) -> None:
        if event == "feed":
            holes.append(dealer.table.watering_hole)

    play(Dealer(tbl, observe).feeding())
    return holes


def test_the_cycle_does_not_start_with_an_empty_watering_hole():
    asked = Recorder()
    tbl = table(player(1, sp(pop=2), sp(pop=2), strategy=asked), player(2, sp(pop=3)), wh=0)
    assert _trace(tbl) == []
    assert asked.calls == []


def test_the_cycle_goes_round_until_the_watering_hole_is_empty():
    first, second = player(1, sp(pop=3)), player(2, sp(pop=3))
    tbl = table(first, second, wh=3)
    assert _trace(tbl) == [2, 1, 0]
    assert (first.boards[0].food, second.boards[0].food) == (2, 1)


def test_the_cycle_ends_when_nobody_has_an_option():
    fed = player(1, sp("climbing", food=1, pop=1))
    hunter = player(2, sp("carnivore", pop=2))
    burrow = player(3, sp("burrowing", food=1, pop=1))
    tbl = table(fed, hunter, burrow, wh=5)
    assert _trace(tbl) == [5, 5, 5]
    assert tbl.watering_hole == 5


def test_a_skipped_player_eats_on_a_later_round():
    # Round 1: A cannot attack the herd (3 <= 3) nor the climber; the climber's attack
    # shrinks the herd, so in round 2 A may attack it.
    a = player(1, sp("carnivore", "hard-shell", pop=3))
    herd = player(2, sp("herding", pop=3))
    climber = player(3, sp("carnivore", "climbing", pop=4))
    tbl = table(a, herd, climber, wh=10)
    assert _trace(tbl) == [10, 9, 8, 7, 7, 6, 6, 6, 6]
    assert a.boards == [sp("carnivore", "hard-shell", food=1, pop=3)]
    assert herd.boards == []
    assert climber.boards == [sp("carnivore", "climbing", food=2, pop=4)]


def test_a_player_removed_while_feeding_leaves_the_queue():
    cheat = player(1, sp(pop=2), sp(pop=2), strategy=Scripted(Decline()))
    eater = player(2, sp(pop=2))
    tbl = table(cheat, eater, wh=5)
    assert _trace(tbl) == [5, 4, 3, 3]  # removed, ate, ate, skipped (fed)
    assert tbl.players == [eater] and eater.boards[0].food == 2


# -- rules.md 13: a complete step 4 -----------------------------------------------


def test_the_complete_step_4_of_rules_13():
    asked = [Recorder(f"P{i}") for i in (1, 2, 3)]
    p1 = player(
        1,
        sp("carnivore", body=2, pop=3),
        sp("long-neck", body=3),
        hand=cards("4 carnivore", "3 long-neck"),
        strategy=asked[0],
    )
    p2 = player(2, sp("burrowing", body=3, pop=2), hand=cards("2 carnivore", "1 long-neck"), strategy=asked[1])
    p3 = player(3, sp(body=2), hand=cards("-1 scavenger", "1 fertile"), strategy=asked[2])
    tbl = table(p1, p2, p3, wh=10, deck=[card(3, "cooperation"), card(2, "horns")])
    dealer = Dealer(tbl)
    dealer.apply_actions(
        [
            (p1, Action4(0, grow_body=(Growth(0, 1),))),
            (p2, Action4(0, grow_population=(Growth(0, 1),))),
            (p3, Action4(0, new_boards=(NewBoard(1),))),
        ]
    )
    assert tbl.watering_hole == 15
    play(dealer.feeding())
    assert p1.boards == [sp("carnivore", food=3, body=3, pop=3), sp("long-neck", food=1, body=3, pop=1)]
    assert p2.boards == [sp("burrowing", food=1, body=3, pop=1)]
    assert p3.boards == [sp(food=1, pop=1)]
    assert (p1.hand, p2.hand, p3.hand) == ([], [], [card(3, "cooperation"), card(2, "horns")])
    assert tbl.watering_hole == 8 and len(tbl.deck) == 0
    assert [r.methods().count("feed_next") for r in asked] == [3, 0, 1]
