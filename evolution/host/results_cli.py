"""``evolution-results --db PATH [--json]``: the finished games in a results store.

Prints a table per game (rank, seat, name, score, or why the player was
removed), or with ``--json`` a JSON list of games, each with a ``players``
list. Names and reasons are stored as the bots sent them; the table shows
them through ``evolution.text`` (escaped, names cut to 20 characters) and the
JSON is pure ASCII, so neither can drive the reader's terminal.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Sequence

from evolution.cli import ArgumentParser, quiet_broken_pipe
from evolution.host.store import GameRecord, ResultsStore, SeatRecord, StoreError
from evolution.text import escape, short

NAME_WIDTH = 20


def format_seats(seats: Sequence[SeatRecord]) -> str:
    """A ranking table: ranked seats first, then removed ones with the reason."""
    lines = ["  rank  seat  name                  score"]
    for p in sorted(seats, key=lambda p: (p.rank is None, p.rank or 0, p.seat)):
        rank = "-" if p.rank is None else str(p.rank)
        score = "-" if p.score is None else str(p.score)
        reason = escape(p.removed_reason) if p.removed_reason else ""
        removed = f"  removed in turn {p.removed_turn} ({escape(p.removed_step or '')}): {reason}" if reason else ""
        lines.append(f"  {rank:>4}  {p.seat:>4}  {short(p.name, NAME_WIDTH):<{NAME_WIDTH}}  {score:>5}{removed}")
    return "\n".join(lines)


def format_game(game: GameRecord) -> str:
    deck = "sorted deck" if game.seed is None else f"seed {game.seed}"
    header = f"game #{game.id}  {escape(game.started_at)}  {deck}  {game.turns} turns  {escape(game.outcome)}"
    return header + "\n" + format_seats(game.players)


@quiet_broken_pipe
def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="evolution-results", description="List the finished games of a results store.")
    parser.add_argument("--db", default="evolution.sqlite", help="the SQLite results database (default evolution.sqlite)")
    parser.add_argument("--json", action="store_true", help="print a JSON list of games instead of tables")
    args = parser.parse_args(argv)
    if not Path(args.db).is_file():
        print(f"evolution-results: no results database at {args.db}", file=sys.stderr)
        return 1
    try:
        store = ResultsStore.open(args.db)
        games = store.games()
        store.close()
    except StoreError as error:
        print(f"evolution-results: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps([game.to_json() for game in games], indent=1, ensure_ascii=True))
    elif not games:
        print(f"no finished games in {args.db}")
    else:
        print("\n\n".join(format_game(game) for game in games))
    return 0


if __name__ == "__main__":
    sys.exit(main())
