"""``evolution-local N``: games (or a tournament) of house players in one process, no network, any game.

Prints each game's ranking (or, with ``--json``, one JSON object per game:
``{"game": G, "seed": S, "deck": "shuffled", "results": [{"seat": 1, "name": ..., "score": ..., "rank": ...,
"place": ... (equal scores share the best)}, ...]}``,
where seat k is the k-th player handed to the referee). ``--game`` picks the
game (``evolution`` by default, ``fish``); ``--strategy`` the house players
(repeat it to seat different ones in turn; the game's first by default:
Evolution's ``silly``, Fish's ``greedy``). The same seed always gives the
same game; the game's own options set it up (Evolution's ``--deck sorted``
plays the course's unshuffled deck; Fish's ``--board ROWSxCOLS`` and
``--fish N``).

With ``--tournament knockout|swiss``, N players enter one tournament of
games of ``--players MIN-MAX`` (the game's default range), played one game
after another in this thread; it prints a line per round and the standings
(``--json``: the tournament as ``evolution-results --tournaments --json``
prints one).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from evolution.cli.arguments import ArgumentParser, add_game, quiet_broken_pipe
from evolution.cli.evolution_results import format_seats, format_standings
from evolution.coroutines import run_locally
from evolution.games import GAME_NAMES, Game, game
from evolution.host.modes.tournament_run import entrant_records
from evolution.store.records import SeatRecord, TournamentRecord, seat_places, seat_records
from evolution.text import plural
from evolution.tournament.formats import Knockout, Swiss
from evolution.tournament.local_referee import LocalReferee
from evolution.tournament.manager import TournamentManager
from evolution.tournament.standings import Entrant


def seat_json(seat: SeatRecord, place: int | None) -> dict[str, Any]:
    """A seat as ``--json`` prints it: seat, name, score, rank, place (equal scores share one; and why it was
    removed)."""
    row: dict[str, Any] = {"seat": seat.seat, "name": seat.name, "score": seat.score, "rank": seat.rank,
                           "place": place}
    if seat.removed_reason is not None:
        row["removed"] = seat.removed_reason
    return row


def _count(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of players") from None


def _positive(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of games")
    return count


def _range(text: str) -> tuple[int, int]:
    low, _, high = text.partition("-")
    try:
        return int(low), int(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not MIN-MAX, such as 3-8") from None


def parser() -> ArgumentParser:
    p = ArgumentParser(
        prog="evolution-local",
        description="Play games (or a tournament) of house players in this process and print the rankings.",
    )
    p.add_argument(
        "players", type=_count, metavar="N",
        help="players per game ("
        + ", ".join(f"{name} {game(name).min_players}..{game(name).max_players}" for name in GAME_NAMES)
        + "); with --tournament, the players entering it",
    )
    add_game(p)
    p.add_argument("--strategy", action="append", metavar="NAME",
                   help="a house player; repeat to seat several in turn (default: the game's first)")
    p.add_argument("--seed", type=int, help="seed of the first game's deal (default: a random seed, printed)")
    p.add_argument("--games", type=_positive, default=1, metavar="K", help="play K games in a row (seeds S, S+1, ...)")
    p.add_argument("--tournament", choices=("knockout", "swiss"), help="play one tournament of the N players instead")
    p.add_argument("--players", dest="sizes", type=_range, metavar="MIN-MAX",
                   help="with --tournament: players per game (default: the game's)")
    p.add_argument("--rounds", type=_positive, default=5, metavar="R", help="with --tournament swiss: rounds (5)")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    for name in GAME_NAMES:
        for option in game(name).options:
            flag = {"action": "store_true"} if option.flag else {"metavar": option.name.upper()}
            p.add_argument(f"--{option.name}", **flag, help=f"{name}: {option.help}")
    return p


def _setup(p: ArgumentParser, args: argparse.Namespace, chosen: Game) -> Any:
    options = {"seed": args.seed}
    for name in GAME_NAMES:
        for option in game(name).options:
            value = getattr(args, option.name.replace("-", "_"))
            if value in (None, False):
                continue
            if name != chosen.name:
                p.error(f"--{option.name} goes with --game {name}")
            try:
                options[option.name] = value if option.flag else option.parse(value)
            except ValueError as error:
                p.error(str(error))
    try:
        return chosen.setup(options)
    except ValueError as error:
        p.error(str(error))


def _players(p: ArgumentParser, args: argparse.Namespace, chosen: Game) -> list[str]:
    strategies = args.strategy or [chosen.house[0]]
    unknown = [name for name in strategies if name not in chosen.strategies]
    if unknown:
        p.error(f"{chosen.name} has no strategy {unknown[0]!r}; it has {', '.join(chosen.strategies)}")
    return [strategies[k % len(strategies)] for k in range(args.players)]


def play_games(args: argparse.Namespace, chosen: Game, setup: Any, strategies: list[str]) -> None:
    names = [f"{strategy}-{seat}" for seat, strategy in enumerate(strategies, start=1)]
    first_seed = args.seed if args.seed is not None else random.randrange(2**31)
    for number in range(args.games):
        seed = first_seed + number if setup.seeded else None
        players = [chosen.strategy(strategy) for strategy in strategies]
        result = run_locally(chosen.new_referee(players, setup, seed).play())
        seats = seat_records(names, result.ranking, result.removals)
        if args.json:
            placed = seat_places(seats)
            rows = [seat_json(seat, placed.get(seat.seat)) for seat in seats]
            print(json.dumps({"game": chosen.name, "seed": seed, "deck": setup.deal(seed), "results": rows}))
        else:
            print(f"game {number + 1} of {args.games} ({chosen.deal_text(setup.deal(seed), seed)},"
                  f" {plural(result.turns, 'turn')})")
            print(format_seats(seats, chosen.name))


def play_tournament(args: argparse.Namespace, chosen: Game, setup: Any, strategies: list[str], sizes: tuple[int, int]):
    smallest, largest = sizes
    entrants = [
        Entrant(number, f"{strategy}-{number}", (lambda strategy=strategy: chosen.strategy(strategy)))
        for number, strategy in enumerate(strategies, start=1)
    ]
    if args.tournament == "swiss":
        kind: Swiss | Knockout = Swiss(smallest, largest, args.rounds, args.seed)
    else:
        kind = Knockout(smallest, largest, runners_up=chosen.knockout_runners_up)
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    manager = TournamentManager(kind, entrants, LocalReferee(seed, chosen.name, setup), _Rounds(args.json))
    run_locally(manager.run())
    record = TournamentRecord(
        0, kind.name, "finished", "", None, {"players": f"{smallest}-{largest}", "seed": seed},
        tuple(entrant_records(kind, entrants)), game=chosen.name,
    )
    if args.json:
        print(json.dumps(record.to_json()))
    else:
        winners = ", ".join(e.name for e in record.winners) or "nobody"
        print(f"{chosen.title} {kind.name} of {plural(len(entrants), 'player')}, {plural(manager.round, 'round')}:"
              f" won by {winners}")
        print(format_standings(record))


class _Rounds:
    """Prints a line as each round of a local tournament begins."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet

    def round_begins(self, round: int, games: list) -> None:
        if not self.quiet:
            print(f"round {round}: {plural(len(games), 'game')}, {plural(sum(len(game) for game in games), 'player')}")

    def round_over(self, round: int, reports: list) -> None:
        pass


@quiet_broken_pipe
def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    chosen = game(args.game)
    setup = _setup(p, args, chosen)
    strategies = _players(p, args, chosen)
    if args.tournament is None:
        if args.sizes is not None:
            p.error("--players goes with --tournament; N is the players of each game")
        if not chosen.min_players <= args.players <= chosen.max_players:
            p.error(f"a game of {chosen.name} needs {chosen.min_players}..{chosen.max_players} players, not {args.players}")
        play_games(args, chosen, setup, strategies)
        return 0
    sizes = args.sizes or chosen.default_players
    if not chosen.min_players <= sizes[0] <= sizes[1] <= chosen.max_players:
        p.error(f"--players: a game of {chosen.name} needs {chosen.min_players}..{chosen.max_players} players, MIN <= MAX")
    if sizes[1] < 2 * sizes[0] - 1 or args.players < sizes[0]:
        p.error(f"a tournament of {args.players} players in games of {sizes[0]}-{sizes[1]} cannot be split into games")
    play_tournament(args, chosen, setup, strategies, sizes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
