"""``evolution-harness NAME``: the course's test harnesses (harnesses.md).

Reads one JSON value from standard input and prints the answer as one JSON
value. Input that is not JSON or breaks its schema (``schemas/harness/``) or
the rules prints nothing and exits 0, as the course's harnesses do; with
``--explain`` the reason goes to standard error.

Harnesses: ``xattack`` (may this carnivore attack?), ``xfeed`` (the silly
player's next feeding choice), ``xstep`` (one feeding step), ``xstep4`` (card
actions and the whole feeding), ``xsilly`` (the silly player's card actions).
"""

from __future__ import annotations

import json
import sys
from typing import Any, Callable

from evolution.rules.actions import check_action
from evolution.rules.attack import may_attack
from evolution.cli import ArgumentParser
from evolution.rules.cards import Deck
from evolution.rules.dealer import Dealer
from evolution.rules.errors import RulesViolation
from evolution.rules.local import run_locally
from evolution.rules.player import FeedingState
from evolution.rules.silly import SillyPlayer, silly_action, silly_feeding_choice
from evolution.rules.table import Table
from evolution.wire import codec
from evolution.jsonwire.errors import WireError
from evolution.jsonwire.harness import run_harness_of
from evolution.wire.schemas import SCHEMAS

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
        raise WireError("xstep4.step4", f"has {len(step4)} actions for {len(table.players)} players")
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
    player_json, _before, _after = value
    player = codec.player_from_json(player_json, "xsilly.player")
    return codec.action4_to_json(silly_action(player.hand, len(player.boards)))


HARNESSES: dict[str, Callable[[Json], Json]] = {
    "xattack": xattack,
    "xfeed": xfeed,
    "xstep": xstep,
    "xstep4": xstep4,
    "xsilly": xsilly,
}


def run_harness(name: str, text: str) -> Json:
    """The harness's answer to ``text``; raises ``WireError`` or ``RulesViolation`` on bad input."""
    return run_harness_of(HARNESSES, SCHEMAS, name, text)


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="evolution-harness",
        description="Run one of the course's test harnesses: one JSON value on stdin, the answer on stdout. "
        "Invalid input prints nothing (exit 0), as the course's harnesses do.",
    )
    parser.add_argument("name", choices=sorted(HARNESSES), help="which harness to run")
    parser.add_argument("--explain", action="store_true", help="say on stderr why an input is invalid")
    args = parser.parse_args(argv)
    try:
        answer = run_harness(args.name, sys.stdin.read())
    except (WireError, RulesViolation) as error:
        if args.explain:
            print(f"evolution-harness {args.name}: invalid input: {error}", file=sys.stderr)
        return 0
    sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
