# -*- test-case-name: tests.replays.test_rerun, tests.replays.test_transcripts -*-
"""``evolution-replay GAME_ID --db PATH``: re-run a stored game from its message log and check it; or its transcript.

Exit status 0 when the replay writes every message the log holds and ends
with the stored result (it prints one line saying so); 1 with the first
difference (and how many more there are) when it does not, or when the game
cannot be replayed (no such game, no log, aborted); 2 for bad arguments.

``--transcript [--seat N] [--json]`` prints instead what each seat (or seat
N) received and sent, with times, and how a removed seat left the game
(``evolution.replays.transcripts``); any stored game with a log has one, an
aborted one too. Exit status 1 when there is no such game, seat or log.
"""

from __future__ import annotations

import json
import sys

from evolution.cli.arguments import ArgumentParser, quiet_broken_pipe
from evolution.replays.rerun import replay
from evolution.replays.transcripts import NoSuchSeat, transcript, transcript_lines
from evolution.store.database import StoreError
from evolution.store.records import GameRecord
from evolution.store.results_store import ResultsStore, reading
from evolution.store.postgres import shown
from evolution.text import plural


def parser() -> ArgumentParser:
    p = ArgumentParser(
        prog="evolution-replay",
        description="Re-run a stored game from its message log and check that it gives the stored result.",
    )
    p.add_argument("game", type=int, metavar="GAME_ID", help="the game's id, as evolution-results shows it")
    p.add_argument("--db", default="evolution.sqlite",
                   help="the results database: an SQLite file (default evolution.sqlite), or postgresql://USER@HOST/NAME")
    p.add_argument("--all-differences", action="store_true", help="list every difference, not only the first")
    p.add_argument("--transcript", action="store_true",
                   help="print what each seat received and sent, with times (ms since the game began), instead of"
                   " replaying")
    p.add_argument("--seat", type=int, metavar="N", help="with --transcript: only seat N (1 is the first in turn order)")
    p.add_argument("--json", action="store_true", help="with --transcript: as JSON")
    return p


class Unavailable(Exception):
    """The game, or what is asked of it, is not in the store; the message says so."""


def stored_game(store: ResultsStore, game_id: int, finished: bool = False) -> tuple[GameRecord, list]:
    """The game and its message log; ``Unavailable`` if there is none (or, with ``finished``, it was aborted)."""
    game = store.game(game_id)
    if game is None:
        raise Unavailable(f"no game #{game_id} in {shown(store.db) if store.db else 'the results database'}")
    if finished and not game.finished:
        raise Unavailable(f"game #{game_id} was {game.outcome}: only finished games can be replayed")
    log = store.game_log(game_id)
    if log is None:
        raise Unavailable(f"game #{game_id} has no message log (it was stored by an older version)")
    return game, log


def show_transcript(store: ResultsStore, game_id: int, seat: int | None, as_json: bool) -> tuple[int, list[str]]:
    """(exit status, lines to print) for the transcript of game ``game_id`` (or of one seat)."""
    try:
        data = transcript(*stored_game(store, game_id), seat)
    except (Unavailable, NoSuchSeat) as error:
        return 1, [str(error)]
    return 0, [json.dumps(data, indent=1, ensure_ascii=True)] if as_json else transcript_lines(data)


def check(store: ResultsStore, game_id: int, every: bool = False) -> tuple[int, list[str]]:
    """(exit status, lines to print) for replaying game ``game_id`` of ``store``."""
    try:
        game, log = stored_game(store, game_id, finished=True)
    except Unavailable as error:
        return 1, [str(error)]
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
    if not args.transcript and (args.seat is not None or args.json):
        parser().error(f"{'--seat' if args.seat is not None else '--json'} goes with --transcript")

    def run(store: ResultsStore) -> tuple[int, list[str]]:
        if args.transcript:
            return show_transcript(store, args.game, args.seat, args.json)
        return check(store, args.game, args.all_differences)

    try:
        status, lines = reading(args.db, run)
    except StoreError as error:
        print(f"evolution-replay: {error}", file=sys.stderr)
        return 1
    if status:
        lines[0] = f"evolution-replay: {lines[0]}"
    print("\n".join(lines), file=sys.stdout if status == 0 else sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
