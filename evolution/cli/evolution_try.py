"""``evolution-try [options] -- COMMAND ARGS...``: a bot, in any language, tried against the house in one command.

Starts a private host on 127.0.0.1 (a free port; ``{port}`` in ``ARGS``
stands for it, and ``EVOLUTION_PORT`` holds it), house bots (the game's
honest strategies: Evolution's silly and builder), and the bot's command,
for ``--games K`` games (default 3) of ``--players N`` (default: the bot and
one house bot of each strategy) on one connection, as a tournament or a
ladder plays them (``evolution.host.tryout``). It prints a line as each game
ends, then a table: each game's rank, score and the house's scores, or the
removal with its turn, step and exact reason; for the first removal, the
transcript of what the bot's seat received and sent
(``evolution.replays.transcripts``); and, when the bot's command could not be
run or went silent, its last lines of output.

Exit status: 0 when the bot sat in every game and was never removed; 1 when
it was removed from a game, or the tryout could not go on (the command does
not exist, ended before playing, never signed up); 2 for bad arguments. The
games are stored in a temporary results database, removed at the end, or in
``--db PATH``, kept (``evolution-replay ID --db PATH --transcript``).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from twisted.internet.defer import ensureDeferred
from twisted.internet.task import react
from twisted.python import usage

from evolution.cli.arguments import ArgumentParser, add_game, seconds, whole_number
from evolution.games import GAME_NAMES, game
from evolution.host.tryout import Tryout, TryoutOutcome, TryoutSettings
from evolution.replays.transcripts import transcript, transcript_lines
from evolution.store.database import StoreError
from evolution.store.records import GameRecord, SeatRecord
from evolution.store.results_store import ResultsStore
from evolution.text import escape, plural, quoted, short

NAME_WIDTH = 24


def parser() -> ArgumentParser:
    p = ArgumentParser(
        prog="evolution-try",
        usage="evolution-try [options] -- COMMAND ARGS...",
        description="Try a bot against the house: a private host on 127.0.0.1, house bots, and your bot's command "
        "({port} in its arguments becomes the host's port) for a few games on one connection, as tournaments and "
        "ladders play them. Prints each game's result, every removal with its reason, and the transcript of the "
        "first; exits 0 only if the bot was never removed.",
    )
    add_game(p)
    p.add_argument("--games", type=whole_number(1, 1000), default=3, metavar="K", help="games to play (default 3)")
    p.add_argument("--players", type=whole_number(2, 8), metavar="N",
                   help="players per game, the bot included (default: the bot and one house bot of each strategy)")
    p.add_argument("--house", metavar="S,S", help="the house bots' strategies, in turn (default: the game's honest "
                   "ones: " + "; ".join(f"{name} {', '.join(game(name).house)}" for name in GAME_NAMES) + ")")
    p.add_argument("--timeout", metavar="S", help="seconds the bot has for each answer (default: the game's)")
    p.add_argument("--dialect", help="the protocol's dialect (default: the game's first, the course's)")
    p.add_argument("--seed", metavar="S", help="the first game's deal; game k gets S+k-1 (default: random)")
    p.add_argument("--send-scores", action="store_true", help="send the scores at every game's end")
    p.add_argument("--tell-removed", action="store_true", help="tell a removed bot why before hanging up")
    p.add_argument("--patience", type=seconds(0.1, 3600), default=30.0, metavar="S",
                   help="seconds the bot has to sign up and begin a game, each time (default 30)")
    p.add_argument("--db", metavar="PATH", help="keep the games in this results database (default: a temporary one)")
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND ARGS",
                   help="the bot's command and its arguments, after --")
    return p


def settings_of(args: argparse.Namespace, db: Path) -> TryoutSettings:
    """The tryout the arguments ask for; ``ValueError`` (one sentence) for what cannot be tried."""
    chosen = game(args.game)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        raise ValueError("give the bot's command after --, e.g. evolution-try -- ./mybot --port {port}")
    house = tuple(args.house.split(",")) if args.house else chosen.house
    unknown = [name for name in house if name not in chosen.strategies]
    if unknown:
        raise ValueError(f"--house: {chosen.name} has no strategy {unknown[0]!r} ({', '.join(chosen.strategies)})")
    players = args.players or min(chosen.max_players, max(chosen.min_players, len(house) + 1))
    if not chosen.min_players <= players <= chosen.max_players:
        raise ValueError(f"--players: a game of {chosen.title} has {chosen.min_players} to {chosen.max_players}")
    host = [option for name in ("timeout", "dialect", "seed") if getattr(args, name) is not None
            for option in (f"--{name}", getattr(args, name))]
    host += [f"--{name}" for name in ("send-scores", "tell-removed") if getattr(args, name.replace("-", "_"))]
    settings = TryoutSettings(args.game, tuple(command), args.games, players, house, tuple(host), args.patience, db)
    try:
        settings.host_options()
    except usage.UsageError as error:
        raise ValueError(str(error)) from None
    return settings


def main(argv: list[str] | None = None) -> None:
    p = parser()
    args = p.parse_args(argv)
    folder = None if args.db else Path(tempfile.mkdtemp(prefix="evolution-try-"))
    db = Path(args.db) if args.db else folder / "tryout.sqlite"
    try:
        settings = settings_of(args, db)
    except ValueError as error:
        p.error(str(error))
    try:
        ResultsStore.open(db).close()  # a database that cannot be used is one line, before anything starts
    except StoreError as error:
        print(f"evolution-try: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    try:
        react(lambda reactor: ensureDeferred(_run(reactor, settings, keep=folder is None)))
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


async def _run(reactor: Any, settings: TryoutSettings, keep: bool) -> None:
    chosen = game(settings.game)
    house = settings.house_names()
    say(f"evolution-try: {plural(settings.games, 'game')} of {chosen.title} for "
        f"{short(shlex.join(settings.command), 120)} against {', '.join(name for name, _ in house)}")
    names = {name for name, _ in house}
    outcome = await Tryout(settings, reactor, lambda record: say(progress(record, names))).run()
    status, lines = report(outcome, settings, names)
    say("\n".join(lines))
    if keep and outcome.games:
        say(f"the games are in {settings.db}: evolution-results --db {settings.db}; "
            f"evolution-replay ID --db {settings.db} --transcript")
    if status:
        raise SystemExit(status)


def say(text: str) -> None:
    """Print ``text``; once the reader of standard output has gone (``| head``), print nothing more."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def bot_seat(record: GameRecord, house: set[str]) -> SeatRecord:
    return next(seat for seat in record.players if seat.name not in house)


def _result(seat: SeatRecord, record: GameRecord) -> str:
    if seat.removed_reason is not None:
        return f"removed in turn {seat.removed_turn} ({escape(seat.removed_step or '')}): {escape(seat.removed_reason)}"
    if seat.rank is None:
        return escape(record.outcome)
    return f"rank {seat.rank} of {len(record.players)}, {plural(seat.score, 'point')}"


def progress(record: GameRecord, house: set[str]) -> str:
    """The line printed as each game ends."""
    return f"game #{record.id}: {_result(bot_seat(record, house), record)}"


def report(outcome: TryoutOutcome, settings: TryoutSettings, house: set[str]) -> tuple[int, list[str]]:
    """(exit status, lines): the table of games, the first removal's transcript, what stopped the tryout."""
    lines = [""]
    if outcome.games:
        name = bot_seat(outcome.games[0], house).name
        lines += [f"the bot signed up as {quoted(name)}", f"  game  seat  {'rank':>4}  {'score':>5}  the house"]
        for record in outcome.games:
            seat = bot_seat(record, house)
            others = ", ".join(f"{short(other.name, NAME_WIDTH)} {'-' if other.score is None else other.score}"
                               for other in record.players if other is not seat)
            rank, score = ("-" if value is None else str(value) for value in (seat.rank, seat.score))
            lines.append(f"  #{record.id:<4}  {seat.seat:>3}  {rank:>4}  {score:>5}  {others}")
            if seat.removed_reason is not None:
                lines.append(f"  {'':<5}  {'':>3}  {_result(seat, record)}")
    removed = [record for record in outcome.games if bot_seat(record, house).removed_reason is not None]
    lines.append(_summary(outcome, settings, removed))
    if removed:
        lines += ["", *first_failure(removed[0], house, settings.db)]
    if (removed or outcome.problem is not None) and outcome.output:
        lines += ["", f"the bot's last lines of output ({len(outcome.output)}):"]
        lines += [f"  | {escape(line)}" for line in outcome.output]
    return (1 if removed or outcome.problem is not None else 0), lines


def _summary(outcome: TryoutOutcome, settings: TryoutSettings, removed: list[GameRecord]) -> str:
    played = plural(len(outcome.games), "game")
    if outcome.problem is not None:
        return f"the tryout stopped after {played}: {outcome.problem} (the host listened on 127.0.0.1 port " \
               f"{outcome.port})"
    if removed:
        return f"the bot was removed from {len(removed)} of {played}"
    return f"the bot played {played} and was never removed"


def first_failure(record: GameRecord, house: set[str], db: Path) -> list[str]:
    """The transcript of the bot's seat in ``record``, from the store."""
    store = ResultsStore.open(db)
    try:
        log = store.game_log(record.id)
    finally:
        store.close()
    seat = bot_seat(record, house)
    if log is None:
        return [f"game #{record.id} has no stored message log"]
    return ["the first removal: what the bot's seat received and sent", *transcript_lines(transcript(record, log, seat.seat))]


if __name__ == "__main__":
    main()
