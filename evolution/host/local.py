"""``evolution-local N``: games of N silly players in one process, no network.

Prints each game's ranking (or, with ``--json``, one JSON object per game:
``{"seed": S, "deck": "shuffled", "results": [{"seat": 1, "name": ..., "score": ..., "rank": ...}, ...]}``,
where seat k is the k-th player handed to the dealer). The same seed always
gives the same game; ``--deck sorted`` plays the course's unshuffled deck.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from evolution.cli import ArgumentParser, quiet_broken_pipe
from evolution.host.results_cli import format_seats
from evolution.host.records import SeatRecord, seat_records
from evolution.rules.cards import Deck
from evolution.rules.dealer import MAX_PLAYERS, MIN_PLAYERS
from evolution.rules.local import play_local_game
from evolution.rules.silly import SillyPlayer
from evolution.text import plural


def seat_json(seat: SeatRecord) -> dict[str, Any]:
    """A seat as ``--json`` prints it: seat, name, score, rank (and why it was removed)."""
    row: dict[str, Any] = {"seat": seat.seat, "name": seat.name, "score": seat.score, "rank": seat.rank}
    if seat.removed_reason is not None:
        row["removed"] = seat.removed_reason
    return row


def _players(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of players") from None
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(f"a game needs {MIN_PLAYERS}..{MAX_PLAYERS} players, not {count}")
    return count


def _positive(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of games")
    return count


def parser() -> ArgumentParser:
    p = ArgumentParser(
        prog="evolution-local",
        description="Play games of Evolution between N silly players in this process and print the rankings.",
    )
    p.add_argument("players", type=_players, metavar="N", help=f"players per game, {MIN_PLAYERS}..{MAX_PLAYERS}")
    deck = p.add_mutually_exclusive_group()
    deck.add_argument("--seed", type=int, help="shuffle the deck with this seed (default: a random seed, printed)")
    deck.add_argument("--deck", choices=["sorted"], help="use the canonical unshuffled deck, as the course's dealer")
    p.add_argument("--games", type=_positive, default=1, metavar="K", help="play K games in a row (seeds S, S+1, ...)")
    p.add_argument("--json", action="store_true", help="print one JSON object per game instead of a table")
    return p


@quiet_broken_pipe
def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    names = [f"silly-{seat}" for seat in range(1, args.players + 1)]
    first_seed = args.seed if args.seed is not None else random.randrange(2**31)
    for game in range(args.games):
        seed = None if args.deck == "sorted" else first_seed + game
        deck = Deck.sorted() if seed is None else Deck.shuffled(seed)
        result = play_local_game([SillyPlayer() for _ in names], deck)
        seats = seat_records(names, result.ranking, result.removals)
        if args.json:
            rows = [seat_json(seat) for seat in seats]
            print(json.dumps({"seed": seed, "deck": "sorted" if seed is None else "shuffled", "results": rows}))
        else:
            header = "sorted deck" if seed is None else f"seed {seed}"
            print(f"game {game + 1} of {args.games} ({header}, {plural(result.turns, 'turn')})")
            print(format_seats(seats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
