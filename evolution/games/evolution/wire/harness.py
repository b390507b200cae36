# -*- test-case-name: tests.games.evolution.test_conformance, tests.cli.test_evolution_harness -*-
"""The course's test harnesses of Evolution (harnesses.md), as ``evolution-harness`` runs them.

Offers ``HARNESSES`` (name -> function of the decoded input) and
``run_harness(name, text)``: the answer, as one JSON value, to the harness's
input ``text`` (one JSON value, as the harness reads it on standard input);
input that is not JSON, breaks its schema (``schemas/harness/``) or the rules
raises ``WireError`` (the command prints nothing and exits 0 then, as the
course's harnesses do).

Harnesses: ``xattack`` (may this carnivore attack?), ``xfeed`` (the silly
player's next feeding choice), ``xstep`` (one feeding step), ``xstep4`` (card
actions and the whole feeding), ``xsilly`` (the silly player's card actions).
"""

from __future__ import annotations

from typing import Any, Callable

from evolution.games.evolution.rules.actions import check_action
from evolution.games.evolution.rules.attack import may_attack
from evolution.games.evolution.rules.cards import Deck
from evolution.games.evolution.rules.dealer import Dealer
from evolution.games.evolution.rules.errors import RulesViolation
from evolution.games.evolution.rules.local import run_locally
from evolution.games.evolution.rules.player import FeedingState
from evolution.games.evolution.rules.silly import SillyPlayer, silly_action, silly_feeding_choice
from evolution.games.evolution.rules.table import Table
from evolution.games.evolution.wire import codec
from evolution.games.evolution.wire.schemas import SCHEMAS
from evolution.jsonwire.harness_runner import run_harness_of
from evolution.jsonwire.wire_errors import WireError
from evolution.text import plural

Json = Any


def xattack(value: Json) -> Json:
    defender, attacker, left, right = (
        None if species is False else codec.species_from_json(species, f"xattack[{i}]")
        for i, species in enumerate(value)
    )
    return may_attack(attacker, defender, left, right)


def xfeed(value: Json) -> Json:
    player_json, watering_hole, others_json = value
    player = codec.player_from_json(player_json, "xfeed.player")
    others = codec.players_from_json(others_json, "xfeed.others")
    state = FeedingState(
        player.bag, tuple(player.boards), tuple(player.hand), watering_hole, tuple(tuple(o.boards) for o in others)
    )
    return codec.feeding_choice_to_json(silly_feeding_choice(state))


def table_from_json(value: Json, path: str) -> Table:
    players_json, watering_hole, deck_json = value
    players = codec.players_from_json(players_json, f"{path}.players")
    for player in players:
        player.player = SillyPlayer()
    return Table(players, watering_hole, Deck(codec.cards_from_json(deck_json)))


def table_to_json(table: Table) -> Json:
    return [
        [codec.player_to_json(player) for player in table.players],
        table.watering_hole,
        codec.cards_to_json(table.deck.remaining()),
    ]


def xstep(value: Json) -> Json:
    table = table_from_json(value, "xstep")
    run_locally(Dealer(table).feeding_step(table.players[0]))
    return table_to_json(table)


def xstep4(value: Json) -> Json:
    configuration, step4 = value
    table = table_from_json(configuration, "xstep4.configuration")
    if len(step4) != len(table.players):
        raise WireError("xstep4.step4", f"has {plural(len(step4), 'action')} for {plural(len(table.players), 'player')}")
    actions = [codec.action4_from_json(action) for action in step4]
    for i, (player, action) in enumerate(zip(table.players, actions)):
        try:
            check_action(action, player.boards, player.hand)
        except RulesViolation as violation:
            raise WireError(f"xstep4.step4[{i}].{violation.where}", violation.reason) from None
    dealer = Dealer(table)
    dealer.apply_actions(list(zip(table.players, actions)))
    run_locally(dealer.feeding())
    return table_to_json(table)


def xsilly(value: Json) -> Json:
    """The silly player's card action; the other players' boards, which it ignores, are read (checked) as its own."""
    player_json, before, after = value
    player = codec.player_from_json(player_json, "xsilly.player")
    codec.lob_from_json(before, "xsilly.before")
    codec.lob_from_json(after, "xsilly.after")
    return codec.action4_to_json(silly_action(player.hand, len(player.boards)))


HARNESSES: dict[str, Callable[[Json], Json]] = {
    "xattack": xattack,
    "xfeed": xfeed,
    "xstep": xstep,
    "xstep4": xstep4,
    "xsilly": xsilly,
}


def run_harness(name: str, text: str) -> Json:
    """The harness's answer to ``text``; raises ``WireError`` on bad input (the rules' reasons included)."""
    try:
        return run_harness_of(HARNESSES, SCHEMAS, name, text)
    except RulesViolation as violation:
        raise WireError(violation.where, violation.reason) from None
