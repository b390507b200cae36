# -*- test-case-name: tests.games.evolution.wire.test_messages, tests.games.evolution.test_reference_transcript -*-
"""JSON values <-> rules values, for every data definition of messages.md.

Offers ``*_to_json`` encoders (following the production rules: ``fat-food``
only for a fat-tissue species with fat food > 0, ``cards`` only for a
non-empty hand) and ``*_from_json`` decoders. A decoder expects a value that
passed its schema (``evolution.jsonwire.schema_set``) and adds the checks a schema
cannot express (food <= population, fat food <= body), raising ``WireError``
with the value's path.
"""

from __future__ import annotations

from typing import Any, Sequence

from evolution.games.evolution.rules.actions import Action4, Growth, NewBoard, TraitReplacement
from evolution.games.evolution.rules.cards import Card
from evolution.games.evolution.rules.feeding import (
    CarnivoreChoice,
    Decline,
    FatTissueChoice,
    FeedingChoice,
    VegetarianChoice,
)
from evolution.games.evolution.rules.player import LOB, FeedingState
from evolution.games.evolution.rules.player_state import PlayerState, PlayerView
from evolution.games.evolution.rules.results import Ranked
from evolution.games.evolution.rules.species import Species
from evolution.games.evolution.rules.traits import TRAITS_BY_SPELLING, Trait
from evolution.jsonwire.wire_errors import WireError

Json = Any

# -- encoding ----------------------------------------------------------------


def species_to_json(species: Species) -> Json:
    fields = [
        ["food", species.food],
        ["body", species.body],
        ["population", species.population],
        ["traits", [trait.value for trait in species.traits]],
    ]
    if species.fat_food > 0 and Trait.FAT_TISSUE in species.traits:
        fields.append(["fat-food", species.fat_food])
    return fields


def boards_to_json(boards: Sequence[Species]) -> Json:
    return [species_to_json(species) for species in boards]


def lob_to_json(lob: Sequence[Sequence[Species]]) -> Json:
    return [boards_to_json(boards) for boards in lob]


def card_to_json(card: Card) -> Json:
    return [card.food, card.trait.value]


def cards_to_json(cards: Sequence[Card]) -> Json:
    return [[card.food, card.trait.value] for card in cards]


def player_to_json(player: PlayerState) -> Json:
    fields = [["id", player.id], ["species", boards_to_json(player.boards)], ["bag", player.bag]]
    if player.hand:
        fields.append(["cards", cards_to_json(player.hand)])
    return fields


def action4_to_json(action: Action4) -> Json:
    return [
        action.food_card,
        [[g.board, g.card] for g in action.grow_population],
        [[g.board, g.card] for g in action.grow_body],
        [[bt.payment, *bt.traits] for bt in action.new_boards],
        [[rt.board, rt.position, rt.card] for rt in action.replace_traits],
    ]


def feeding_choice_to_json(choice: FeedingChoice) -> Json:
    if isinstance(choice, VegetarianChoice):
        return choice.species
    if isinstance(choice, FatTissueChoice):
        return [choice.species, choice.tokens]
    if isinstance(choice, CarnivoreChoice):
        return [choice.attacker, choice.target_player, choice.target]
    return False


def start_to_json(watering_hole: int, me: PlayerView) -> Json:
    return [watering_hole, me.bag, boards_to_json(me.boards), cards_to_json(me.hand)]


def choose_to_json(before: LOB, after: LOB) -> Json:
    return [lob_to_json(before), lob_to_json(after)]


def feed_next_to_json(state: FeedingState) -> Json:
    return [
        state.bag,
        boards_to_json(state.boards),
        cards_to_json(state.hand),
        state.watering_hole,
        lob_to_json(state.others),
    ]


def score_to_json(ranking: Sequence[Ranked]) -> Json:
    return [[entry.id, entry.score] for entry in ranking]


# -- decoding (after the schema) ----------------------------------------------


def fields_of(value: Json) -> dict[str, Json]:
    """A list of ``[label, value]`` fields as a dict."""
    return {label: field for label, field in value}


def traits_from_json(value: Json) -> tuple[Trait, ...]:
    return tuple(TRAITS_BY_SPELLING[spelling] for spelling in value)


def species_from_json(value: Json, path: str) -> Species:
    fields = fields_of(value)
    food, body, population = fields["food"], fields["body"], fields["population"]
    fat_food = fields.get("fat-food", 0)
    if food > population:
        raise WireError(f"{path}.food", f"{food} is more than the population {population}")
    if fat_food > body:
        raise WireError(f"{path}.fat-food", f"{fat_food} is more than the body size {body}")
    return Species(food, body, population, traits_from_json(fields["traits"]), fat_food)


def boards_from_json(value: Json, path: str) -> tuple[Species, ...]:
    return tuple(species_from_json(species, f"{path}[{i}]") for i, species in enumerate(value))


def lob_from_json(value: Json, path: str) -> LOB:
    return tuple(boards_from_json(boards, f"{path}[{i}]") for i, boards in enumerate(value))


def card_from_json(value: Json) -> Card:
    return Card(value[0], TRAITS_BY_SPELLING[value[1]])


def cards_from_json(value: Json) -> list[Card]:
    return [card_from_json(card) for card in value]


def player_from_json(value: Json, path: str) -> PlayerState:
    fields = fields_of(value)
    return PlayerState(
        fields["id"],
        list(boards_from_json(fields["species"], f"{path}.species")),
        cards_from_json(fields.get("cards", [])),
        fields["bag"],
    )


def players_from_json(value: Json, path: str) -> list[PlayerState]:
    return [player_from_json(player, f"{path}[{i}]") for i, player in enumerate(value)]


def _growth(value: Json) -> Growth:
    return Growth(value[-2], value[-1])  # the harness form may carry a leading tag


def action4_from_json(value: Json) -> Action4:
    food_card, gps, gbs, bts, rts = value
    return Action4(
        food_card,
        tuple(_growth(gp) for gp in gps),
        tuple(_growth(gb) for gb in gbs),
        tuple(NewBoard(bt[0], tuple(bt[1:])) for bt in bts),
        tuple(TraitReplacement(*rt) for rt in rts),
    )


def feeding_choice_from_json(value: Json) -> FeedingChoice:
    if value is False:
        return Decline()
    if type(value) is int:
        return VegetarianChoice(value)
    if len(value) == 2:
        return FatTissueChoice(*value)
    return CarnivoreChoice(*value)


def start_from_json(value: Json) -> tuple[int, PlayerView]:
    watering_hole, bag, boards, hand = value
    view = PlayerView(bag, boards_from_json(boards, "start.boards"), tuple(cards_from_json(hand)))
    return watering_hole, view


def choose_from_json(value: Json) -> tuple[LOB, LOB]:
    before, after = value
    return lob_from_json(before, "choose.before"), lob_from_json(after, "choose.after")


def feed_next_from_json(value: Json) -> FeedingState:
    bag, boards, hand, watering_hole, others = value
    return FeedingState(
        bag,
        boards_from_json(boards, "feed-next.boards"),
        tuple(cards_from_json(hand)),
        watering_hole,
        lob_from_json(others, "feed-next.others"),
    )


def score_from_json(value: Json) -> list[tuple[int, int]]:
    return [(id, score) for id, score in value]
