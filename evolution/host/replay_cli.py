"""``evolution-replay GAME_ID --db PATH``: re-run a stored game from its message log and check it.

Exit status 0 when the replay writes every message the log holds and ends
with the stored result (it prints one line saying so); 1 with the first
difference (and how many more there are) when it does not, or when the game
cannot be replayed (no such game, no log, aborted); 2 for bad arguments.
"""

from __future__ import annotations

import sys

from evolution.cli import ArgumentParser, quiet_broken_pipe
from evolution.host.replay import replay
from evolution.host.store import ResultsStore, StoreError, reading
from evolution.text import plural


def parser() -> ArgumentParser:
    p = ArgumentParser(
        prog="evolution-replay",
        description="Re-run a stored game from its message log and check that it gives the stored result.",
    )
    p.add_argument("game", type=int, metavar="GAME_ID", help="the game's id, as evolution-results shows it")
    p.add_argument("--db", default="evolution.sqlite", help="the SQLite results database (default evolution.sqlite)")
    p.add_argument("--all-differences", action="store_true", help="list every difference, not only the first")
    return p


def check(store: ResultsStore, game_id: int, every: bool = False) -> tuple[int, list[str]]:
    """(exit status, lines to print) for replaying game ``game_id`` of ``store``."""
    game = store.game(game_id)
    if game is None:
        return 1, [f"no game #{game_id} in {store.path or 'the results database'}"]
    if not game.finished:
        return 1, [f"game #{game_id} was {game.outcome}: only finished games can be replayed"]
    log = store.game_log(game_id)
    if log is None:
        return 1, [f"game #{game_id} has no message log (it was stored by an older version)"]
    outcome = replay(game, log)
    if outcome.reproduced:
        return 0, [
            f"game #{game_id} replayed: {plural(len(game.players), 'seat')}, {plural(game.turns, 'turn')},"
            f" {plural(outcome.messages, 'message')}"
            " to the players, the stored result"
        ]
    first, more = outcome.differences[0], len(outcome.differences) - 1
    lines = [f"game #{game_id} does not replay: {first}"]
    if every:
        lines += outcome.differences[1:]
    elif more:
        lines.append(f"({plural(more, 'more difference')}; --all-differences lists them)")
    return 1, lines


@quiet_broken_pipe
def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        status, lines = reading(args.db, lambda store: check(store, args.game, args.all_differences))
    except StoreError as error:
        print(f"evolution-replay: {error}", file=sys.stderr)
        return 1
    if status:
        lines[0] = f"evolution-replay: {lines[0]}"
    print("\n".join(lines), file=sys.stdout if status == 0 else sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
