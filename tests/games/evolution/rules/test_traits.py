"""The effect of each of the 16 traits (rules.md 7.1, 7.3, 8.1, 8.2, 8.4).

Each trait gets its own group of tests, written against the rules layer's
public operations: ``may_attack`` and the attack numbers, ``Table.feed_once``
("feed once", rules.md 7.3), ``feeding_options``, the feeding choices'
``execute``, and the dealer's start-of-feeding pass and feeding step. The worked
examples of rules.md 7.3, 8.2 and 8.4 appear as tests under the trait they
illustrate.
"""

from __future__ import annotations

from evolution.games.evolution.rules.attack import body_number, may_attack, population_number
from evolution.games.evolution.rules.dealer import Dealer
from evolution.games.evolution.rules.feeding import CarnivoreChoice, FatTissueChoice, VegetarianChoice, feeding_options
from evolution.games.evolution.rules.table import targets
from evolution.games.evolution.rules.traits import Trait
from tests.support.builders import card, play, player, sp, table


def options(tbl, p) -> set:
    return set(feeding_options(tbl, p))


def attack(tbl, attacker_owner, a: int, p: int, d: int) -> None:
    """Check and carry out ``[a, p, d]`` for ``attacker_owner``, as the dealer does."""
    choice = CarnivoreChoice(a, p, d)
    choice.check(tuple(attacker_owner.boards), [tuple(o.boards) for o in tbl.others(attacker_owner)])
    choice.execute(tbl, attacker_owner)


def foods(p) -> list[int]:
    return [s.food for s in p.boards]


def start_of_feeding(tbl) -> None:
    Dealer(tbl).start_of_feeding()


DECK = [card(-3, "ambush"), card(-2, "ambush"), card(-1, "ambush"), card(0, "ambush")]


# -- carnivore ----------------------------------------------------------------


def test_a_carnivore_never_takes_a_vegetarian_option():
    me = player(1, sp("carnivore", pop=2), sp(pop=2))
    other = player(2, sp("climbing"))
    assert options(table(me, other, wh=5), me) == {VegetarianChoice(1)}


def test_a_hungry_carnivore_may_attack_every_other_players_species_but_never_its_own():
    me = player(1, sp("carnivore", pop=2), sp(food=1))
    second, third = player(2, sp()), player(3, sp(), sp())
    assert options(table(me, second, third, wh=5), me) == {
        CarnivoreChoice(0, 0, 0),
        CarnivoreChoice(0, 1, 0),
        CarnivoreChoice(0, 1, 1),
    }


def test_a_fed_carnivore_has_no_attack_option():
    me = player(1, sp("carnivore", food=2, pop=2))
    assert options(table(me, player(2, sp()), wh=5), me) == set()


def test_a_species_without_the_carnivore_trait_may_not_attack():
    assert may_attack(sp(pop=7, body=7), sp()) is False
    assert may_attack(sp("carnivore"), sp()) is True


def test_an_attack_costs_the_target_one_animal_and_feeds_the_attacker():
    # rules.md 8.2: D has population 2 and food 2 -> population 1, food 1; A eats 1.
    me = player(1, sp("carnivore", pop=3))
    owner = player(2, sp(food=2, pop=2))
    tbl = table(me, owner, wh=3)
    attack(tbl, me, 0, 0, 0)
    assert owner.boards == [sp(food=1, pop=1)]
    assert me.boards == [sp("carnivore", food=1, pop=3)]
    assert tbl.watering_hole == 2


def test_a_carnivore_is_fed_by_cooperation_and_long_neck_like_any_species():
    me = player(1, sp("cooperation", pop=2), sp("carnivore", pop=2), sp("long-neck", "carnivore", pop=2))
    tbl = table(me, wh=5)
    tbl.feed_once(me, 0)
    start_of_feeding(tbl)
    assert foods(me) == [1, 1, 1]


def test_an_attack_that_kills_the_target_removes_its_board_and_deals_its_owner_two_cards():
    me = player(1, sp("carnivore", pop=2))
    owner = player(2, sp(pop=1), sp("climbing"), hand=[card(3, "horns")])
    tbl = table(me, owner, wh=3, deck=DECK)
    attack(tbl, me, 0, 0, 0)
    assert owner.boards == [sp("climbing")]
    assert owner.hand == DECK[:2] + [card(3, "horns")]
    assert tbl.deck.remaining() == DECK[2:]


# -- ambush -------------------------------------------------------------------


def test_ambush_ignores_a_neighbours_warning_call():
    warner = sp("warning-call")
    assert may_attack(sp("carnivore"), sp(), left=warner) is False
    assert may_attack(sp("carnivore", "ambush"), sp(), left=warner) is True
    assert may_attack(sp("carnivore", "ambush"), sp(), right=warner) is True


def test_ambush_does_not_overcome_other_defences():
    ambusher = sp("carnivore", "ambush")
    assert may_attack(ambusher, sp("climbing")) is False
    assert may_attack(ambusher, sp("burrowing", food=1, pop=1)) is False


# -- burrowing ----------------------------------------------------------------


def test_burrowing_protects_only_a_fed_species():
    carnivore = sp("carnivore")
    assert may_attack(carnivore, sp("burrowing", food=2, pop=2)) is False
    assert may_attack(carnivore, sp("burrowing", food=1, pop=2)) is True


# -- climbing -----------------------------------------------------------------


def test_a_climbing_species_can_only_be_attacked_by_a_climbing_carnivore():
    assert may_attack(sp("carnivore"), sp("climbing")) is False
    assert may_attack(sp("carnivore", "climbing"), sp("climbing")) is True


# -- cooperation --------------------------------------------------------------


def test_cooperation_feeds_the_right_neighbour_for_each_token_taken():
    me = player(1, sp("cooperation", pop=2), sp(pop=2))
    tbl = table(me, wh=5)
    tbl.feed_once(me, 0)
    assert foods(me) == [1, 1]
    assert tbl.watering_hole == 3


def test_cooperation_without_a_right_neighbour_has_no_effect():
    me = player(1, sp(pop=2), sp("cooperation", pop=2))
    tbl = table(me, wh=5)
    tbl.feed_once(me, 1)
    assert foods(me) == [0, 1]
    assert tbl.watering_hole == 4


def test_a_neighbour_that_cannot_eat_passes_nothing_on():
    me = player(1, sp("cooperation", pop=3), sp("cooperation", food=1, pop=1), sp(pop=2))
    tbl = table(me, wh=10)
    tbl.feed_once(me, 0)
    assert foods(me) == [1, 1, 0]
    assert tbl.watering_hole == 9


def _chain(wh: int):
    me = player(1, sp("foraging", "cooperation", pop=5), sp("foraging", "cooperation", pop=5), sp("long-neck", pop=3))
    tbl = table(me, wh=wh)
    tbl.feed_once(me, 0)
    return foods(me), tbl.watering_hole


def test_cooperation_chain_of_rules_7_3_with_12_tokens():
    assert _chain(12) == ([2, 4, 3], 3)


def test_cooperation_chain_of_rules_7_3_with_8_tokens():
    assert _chain(8) == ([2, 4, 2], 0)


def test_storing_fat_food_does_not_trigger_cooperation():
    me = player(1, sp("fat-tissue", "cooperation", body=3), sp())
    tbl = table(me, wh=5)
    FatTissueChoice(0, 2).execute(tbl, me)
    assert me.boards[0].fat_food == 2
    assert foods(me) == [0, 0]
    assert tbl.watering_hole == 3


def test_moving_fat_food_at_the_start_of_feeding_does_not_trigger_cooperation():
    me = player(1, sp("fat-tissue", "cooperation", pop=2, body=3, fat=2), sp())
    tbl = table(me, wh=5)
    start_of_feeding(tbl)
    assert foods(me) == [2, 0]
    assert tbl.watering_hole == 5


def test_cooperating_carnivores_and_scavengers_after_an_attack_rules_8_2():
    # The attacker's cooperation chain eats first, then the scavengers from the
    # attacking player on; the scavenger's own cooperation feeds its neighbour.
    me = player(
        1,
        sp("carnivore", "cooperation", pop=5),
        sp("carnivore", "cooperation", pop=2),
        sp("carnivore", "cooperation", pop=2),
        sp("carnivore", pop=2),
        sp("carnivore", pop=2),
    )
    owner = player(2, sp("carnivore", "scavenger", "cooperation", pop=4), sp("carnivore", pop=2))
    tbl = table(me, owner, wh=15)
    attack(tbl, me, 0, 0, 0)
    assert foods(me) == [1, 1, 1, 1, 0]
    assert [(s.food, s.population) for s in owner.boards] == [(1, 3), (1, 2)]
    assert tbl.watering_hole == 9


# -- fat-tissue ---------------------------------------------------------------


def test_fat_tissue_offers_storage_while_fat_food_is_below_body_even_when_fed():
    me = player(1, sp("fat-tissue", food=2, pop=2, body=3, fat=1))
    assert options(table(me, wh=5), me) == {FatTissueChoice(0, 2)}


def test_fat_tissue_offers_nothing_once_full_and_body_alone_offers_nothing():
    me = player(1, sp("fat-tissue", food=2, pop=2, body=3, fat=3), sp(food=1, pop=1, body=3))
    assert options(table(me, wh=5), me) == set()


def test_storing_fat_takes_at_most_what_the_watering_hole_holds_and_never_forages():
    me = player(1, sp("fat-tissue", "foraging", pop=2, body=4))
    tbl = table(me, wh=2)
    FatTissueChoice(0, 3).execute(tbl, me)
    assert me.boards == [sp("fat-tissue", "foraging", pop=2, body=4, fat=2)]
    assert tbl.watering_hole == 0


def test_fat_food_moves_to_food_at_the_start_of_feeding_up_to_the_hunger():
    me = player(1, sp("fat-tissue", pop=4, body=3, fat=3), sp("fat-tissue", pop=2, body=3, fat=3))
    tbl = table(me, wh=0)
    start_of_feeding(tbl)
    assert [(s.food, s.fat_food) for s in me.boards] == [(3, 0), (2, 1)]


def test_fat_food_only_fills_what_long_neck_left():
    me = player(1, sp("long-neck", "fat-tissue", pop=3, body=3, fat=3))
    tbl = table(me, wh=5)
    start_of_feeding(tbl)
    assert (me.boards[0].food, me.boards[0].fat_food) == (3, 1)
    assert tbl.watering_hole == 4


# -- fertile ------------------------------------------------------------------


def test_fertile_grows_the_population_at_the_start_of_feeding_even_without_food():
    me = player(1, sp("fertile", pop=2), sp("fertile", pop=7), sp(pop=2))
    start_of_feeding(table(me, wh=0))
    assert [s.population for s in me.boards] == [3, 7, 2]


def test_a_fertile_long_neck_is_fed_against_its_new_population():
    me = player(1, sp("fertile", "long-neck", food=1, pop=1))
    tbl = table(me, wh=3)
    start_of_feeding(tbl)
    assert (me.boards[0].food, me.boards[0].population) == (2, 2)


# -- foraging -----------------------------------------------------------------


def test_foraging_takes_a_second_token():
    me = player(1, sp("foraging", pop=3))
    tbl = table(me, wh=5)
    tbl.feed_once(me, 0)
    assert (foods(me), tbl.watering_hole) == ([2], 3)


def test_foraging_needs_a_second_token_and_remaining_hunger():
    short = player(1, sp("foraging", pop=3))
    tbl = table(short, wh=1)
    tbl.feed_once(short, 0)
    assert (foods(short), tbl.watering_hole) == ([1], 0)
    small = player(1, sp("foraging", pop=1))
    tbl = table(small, wh=5)
    tbl.feed_once(small, 0)
    assert (foods(small), tbl.watering_hole) == ([1], 4)


# -- hard-shell ---------------------------------------------------------------


def test_hard_shell_needs_an_attacker_body_above_defender_body_plus_4():
    shell = sp("hard-shell", body=2, pop=3)
    assert may_attack(sp("carnivore", body=6), shell) is False
    assert may_attack(sp("carnivore", body=7), shell) is True


def test_pack_hunting_adds_population_to_the_attackers_body_against_hard_shell():
    shell = sp("hard-shell", body=2, pop=3)
    assert may_attack(sp("carnivore", "pack-hunting", body=3, pop=4), shell) is True
    assert may_attack(sp("carnivore", "pack-hunting", body=3, pop=3), shell) is False


def test_a_hard_shelled_attacker_counts_body_plus_4_instead_of_pack_hunting():
    shell = sp("hard-shell", body=2)
    assert may_attack(sp("carnivore", "pack-hunting", body=2, pop=6), shell) is True
    assert may_attack(sp("carnivore", "pack-hunting", "hard-shell", body=2, pop=6), shell) is False
    assert may_attack(sp("carnivore", "hard-shell", body=3), shell) is True
    assert may_attack(sp("carnivore", body=3), shell) is False


# -- herding and pack-hunting -------------------------------------------------


def test_herding_needs_a_larger_attacking_population():
    herd = sp("herding", pop=3)
    assert may_attack(sp("carnivore", pop=3), herd) is False
    assert may_attack(sp("carnivore", pop=4), herd) is True


def test_pack_hunting_adds_body_to_population_on_both_sides_of_herding():
    assert may_attack(sp("carnivore", "pack-hunting", body=2, pop=2), sp("herding", pop=3)) is True
    assert may_attack(sp("carnivore", body=2, pop=2), sp("herding", pop=3)) is False
    pack_herd = sp("herding", "pack-hunting", body=2, pop=2)
    assert may_attack(sp("carnivore", pop=4), pack_herd) is False
    assert may_attack(sp("carnivore", pop=5), pack_herd) is True


def test_attack_numbers_of_rules_8_1():
    assert body_number(sp("pack-hunting", body=2, pop=3)) == 2
    assert body_number(sp("carnivore", "pack-hunting", body=2, pop=3)) == 5
    assert body_number(sp("carnivore", "pack-hunting", "hard-shell", body=2, pop=3)) == 6
    assert population_number(sp("pack-hunting", body=2, pop=3)) == 5
    assert population_number(sp("carnivore", body=2, pop=3)) == 3


def test_body_size_alone_never_prevents_an_attack():
    assert may_attack(sp("carnivore", body=0), sp(body=7, pop=7)) is True


# -- horns --------------------------------------------------------------------


def test_horns_kill_the_attacker_and_nobody_eats_rules_8_2():
    # The only option is automatic; the defender's owner is dealt cards first.
    me = player(1, sp("carnivore"), sp(food=1))
    owner = player(2, sp("horns"))
    scavenging = player(3, sp("scavenger", "climbing"))
    tbl = table(me, owner, scavenging, wh=1, deck=DECK)
    play(Dealer(tbl).feeding_step(me))
    assert owner.boards == [] and owner.hand == DECK[:2]
    assert me.boards == [sp(food=1)] and me.hand == DECK[2:]
    assert scavenging.boards == [sp("scavenger", "climbing")]
    assert tbl.watering_hole == 1


def test_horns_with_a_short_deck_give_the_defenders_owner_the_cards_first():
    me = player(1, sp("carnivore"))
    owner = player(2, sp("horns"))
    tbl = table(me, owner, wh=1, deck=DECK[:2])
    attack(tbl, me, 0, 0, 0)
    assert (owner.hand, me.hand) == (DECK[:2], [])
    assert (owner.boards, me.boards) == ([], [])


def test_an_attacker_that_survives_horns_eats_and_scavengers_eat():
    me = player(1, sp("carnivore", pop=3), sp("scavenger", pop=2))
    owner = player(2, sp("horns", pop=2))
    tbl = table(me, owner, wh=5)
    attack(tbl, me, 0, 0, 0)
    assert owner.boards == [sp("horns", pop=1)]
    assert me.boards == [sp("carnivore", food=1, pop=2), sp("scavenger", food=1, pop=2)]
    assert tbl.watering_hole == 3


def test_horns_lower_the_attackers_food_with_its_population():
    me = player(1, sp("carnivore", food=1, pop=2), sp("scavenger", pop=2))
    owner = player(2, sp("horns", pop=2))
    tbl = table(me, owner, wh=5)
    attack(tbl, me, 0, 0, 0)
    # Now fed (food 1 = population 1), the attacker cannot eat; the scavenger still does.
    assert me.boards == [sp("carnivore", food=1, pop=1), sp("scavenger", food=1, pop=2)]
    assert tbl.watering_hole == 4


def test_horns_do_not_stop_an_attack():
    assert may_attack(sp("carnivore"), sp("horns")) is True


# -- long-neck ----------------------------------------------------------------


def test_long_neck_is_fed_once_at_the_start_of_feeding_with_foraging_and_cooperation():
    me = player(1, sp("long-neck", "foraging", "cooperation", pop=3), sp(pop=2))
    tbl = table(me, wh=10)
    start_of_feeding(tbl)
    assert foods(me) == [2, 2]
    assert tbl.watering_hole == 6


def test_long_necks_eat_in_turn_order_while_food_lasts():
    first, second = player(1, sp(pop=2)), player(2, sp("long-neck", pop=2))
    third = player(3, sp("long-neck", "carnivore", pop=2))
    tbl = table(second, third, first, wh=1)
    start_of_feeding(tbl)
    assert (foods(second), foods(third)) == ([1], [0])
    assert tbl.watering_hole == 0


# -- scavenger ----------------------------------------------------------------


def test_scavengers_eat_in_turn_order_from_the_attacking_player_left_to_right():
    before = player(1, sp("scavenger", pop=2))
    attacker = player(2, sp("carnivore", pop=2), sp("scavenger", pop=2), sp("scavenger", pop=2))
    after = player(3, sp(pop=2), sp("scavenger", pop=2))
    tbl = table(before, attacker, after, wh=4)
    attack(tbl, attacker, 0, 0, 0)  # others of player 2: [player 3, player 1]
    assert foods(attacker) == [1, 1, 1]
    assert foods(after) == [0, 1]
    assert foods(before) == [0]
    assert tbl.watering_hole == 0


def test_a_scavenging_attacker_eats_twice_and_a_surviving_scavenging_target_eats():
    me = player(1, sp("carnivore", "scavenger", pop=3))
    owner = player(2, sp("scavenger", pop=3))
    tbl = table(me, owner, wh=5)
    attack(tbl, me, 0, 0, 0)
    assert foods(me) == [2]
    assert [(s.food, s.population) for s in owner.boards] == [(1, 2)]
    assert tbl.watering_hole == 2


# -- symbiosis ----------------------------------------------------------------


def test_symbiosis_has_no_effect_on_attacks():
    big = sp(body=7)
    attacker = sp("carnivore")
    assert may_attack(attacker, sp("symbiosis", body=0), right=big) is True
    for defender, left, right in [
        (sp("climbing"), None, None),
        (sp("herding", pop=2), sp(), big),
        (sp("hard-shell", body=1), None, sp("warning-call")),
    ]:
        with_symbiosis = defender._replace(traits=defender.traits + (Trait.SYMBIOSIS,))
        assert may_attack(attacker, with_symbiosis, left, right) == may_attack(attacker, defender, left, right)


def test_symbiosis_has_no_effect_on_feeding():
    me = player(1, sp("symbiosis", pop=3), sp(body=5, pop=2))
    tbl = table(me, wh=5)
    tbl.feed_once(me, 0)
    assert (foods(me), tbl.watering_hole) == ([1, 0], 4)


# -- warning-call -------------------------------------------------------------


def test_warning_call_protects_the_neighbours_not_itself_rules_8_4():
    row = [sp("warning-call"), sp(), sp()]
    assert set(targets(sp("carnivore"), [row])) == {(0, 0), (0, 2)}
    assert set(targets(sp("carnivore", "ambush"), [row])) == {(0, 0), (0, 1), (0, 2)}


def test_when_the_middle_species_dies_the_next_one_becomes_protected_rules_8_4():
    me = player(1, sp("carnivore", "ambush", pop=3))
    owner = player(2, sp("warning-call"), sp(), sp())
    tbl = table(me, owner, wh=5)
    attack(tbl, me, 0, 0, 1)
    assert owner.boards == [sp("warning-call"), sp()]
    assert set(targets(sp("carnivore"), [owner.boards])) == {(0, 0)}


def test_warning_call_does_not_reach_another_players_boards():
    others = [[sp(), sp("warning-call")], [sp()]]
    assert set(targets(sp("carnivore"), others)) == {(0, 1), (1, 0)}
