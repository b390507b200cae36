"""``evolution-try [options] -- COMMAND ARGS...``: a bot, in any language, tried against the house in one command.

Starts a private host on 127.0.0.1 (a free port; ``{port}`` in ``ARGS``
stands for it, and ``EVOLUTION_PORT`` holds it), house bots (the game's
honest strategies: Evolution's silly and builder, Fish's greedy and maximin,
each named as every dialect of its game takes names), and the bot's
command, for ``--games K`` games (default 3) of ``--players N`` (default:
the bot and one house bot of each strategy) on one connection, as a
tournament or a ladder plays them, the bot's seat going round the table
(``evolution.host.tryout``). With ``--gauntlet``, the bot meets each house
strategy alone (``N - 1`` house bots of it; N is the game's fewest players
by default), in every seat, K games each (default 2), and a table per
opponent follows: games, wins, mean place, removals with their reasons.

It prints a line as each game ends, then a table: each game's seat, rank,
score and the house's scores, or the removal with its turn, step and exact
reason; for the first removal, the transcript of what the bot's seat
received and sent (``evolution.replays.transcripts``); and, when the bot's
command could not be run or went silent, its last lines of output. It always
ends: when its games are played, when the bot does not sign up (or begin
its next game) within ``--patience`` seconds, and on SIGINT (Ctrl-C) or
SIGTERM, within seconds, the command's process group and the host's worker
processes gone; its last line says why it stopped.

Exit status: 0 when the bot sat in every game and was never removed; 1 when
it was removed from a game, or the tryout could not go on (the command does
not exist, ended before playing, never signed up); 2 for bad arguments; 130
or 143 when stopped by SIGINT or SIGTERM. The games are stored in a
temporary results database, removed at the end, or in ``--db PATH``, kept
(``evolution-replay ID --db PATH --transcript``).
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

from evolution.cli.arguments import SIGNAL_NAMES, ArgumentParser, add_game, on_signals, seconds, whole_number
from evolution.games import GAME_NAMES, game
from evolution.host.tryout import PlayedGame, Tryout, TryoutOutcome, TryoutSettings
from evolution.replays.transcripts import transcript, transcript_lines
from evolution.store.database import StoreError
from evolution.store.results_store import ResultsStore
from evolution.text import escape, plural, quoted, short
from evolution.tournament.gauntlet import Result, Tally, tallies

NAME_WIDTH = 24
GAMES, GAUNTLET_GAMES = 3, 2


def parser() -> ArgumentParser:
    p = ArgumentParser(
        prog="evolution-try",
        usage="evolution-try [options] -- COMMAND ARGS...",
        description="Try a bot against the house: a private host on 127.0.0.1, house bots, and your bot's command "
        "({port} in its arguments becomes the host's port) for a few games on one connection, as tournaments and "
        "ladders play them. Prints each game's result, every removal with its reason, and the transcript of the "
        "first; exits 0 only if the bot was never removed. Ctrl-C stops it, and everything it started.",
    )
    add_game(p)
    p.add_argument("--gauntlet", action="store_true",
                   help="the bot against each house strategy alone, in every seat, K games each; then a table per "
                   "opponent: games, wins, mean place, removals")
    p.add_argument("--games", type=whole_number(1, 1000), metavar="K",
                   help=f"games to play (default {GAMES}); with --gauntlet, in each seat against each strategy "
                   f"(default {GAUNTLET_GAMES})")
    p.add_argument("--players", type=whole_number(2, 8), metavar="N",
                   help="players per game, the bot included (default: the bot and one house bot of each strategy; "
                   "with --gauntlet, the game's fewest: "
                   + ", ".join(f"{game(name).title} {game(name).min_players}" for name in GAME_NAMES) + ")")
    p.add_argument("--house", metavar="S,S", help="the house bots' strategies, in turn (default: the game's honest "
                   "ones: " + "; ".join(f"{name} {', '.join(game(name).house)}" for name in GAME_NAMES) + ")")
    p.add_argument("--timeout", metavar="S", help="seconds the bot has for each answer (default: the game's)")
    p.add_argument("--dialect", help="the protocol's dialect ("
                   + "; ".join(f"{name}: {', '.join(game(name).dialects)}" for name in GAME_NAMES)
                   + "; default: the game's first, the course's)")
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
    fewest = chosen.min_players if args.gauntlet else max(chosen.min_players, len(house) + 1)
    players = args.players or min(chosen.max_players, fewest)
    if not chosen.min_players <= players <= chosen.max_players:
        raise ValueError(f"--players: a game of {chosen.title} has {chosen.min_players} to {chosen.max_players}")
    if args.dialect is not None and args.dialect not in chosen.dialects:
        raise ValueError(f"--dialect: {chosen.title} speaks {', '.join(chosen.dialects)}, not {args.dialect!r}")
    host = [option for name in ("timeout", "dialect", "seed") if getattr(args, name) is not None
            for option in (f"--{name}", getattr(args, name))]
    host += [f"--{name}" for name in ("send-scores", "tell-removed") if getattr(args, name.replace("-", "_"))]
    games = args.games or (GAUNTLET_GAMES if args.gauntlet else GAMES)
    settings = TryoutSettings(args.game, tuple(command), games, players, house, tuple(host), args.patience, db,
                              args.gauntlet)
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
    tryout = Tryout(settings, reactor, lambda played: say(progress(played, settings)))
    house = ", ".join(_named(settings.house_name(bot), bot.strategy) for bot in tryout.plan.house)
    kind = "a gauntlet of " if settings.gauntlet else ""
    say(f"evolution-try: {kind}{plural(len(tryout.plan.tables), 'game')} of {chosen.title} for "
        f"{short(shlex.join(settings.command), 120)} against {house}")
    on_signals(reactor, lambda number: _interrupted(tryout, number))
    outcome = await tryout.run()
    status, lines = report(outcome, settings)
    say("\n".join(lines))
    if keep and outcome.games:
        say(f"the games are in {settings.db}: evolution-results --db {settings.db}; "
            f"evolution-replay ID --db {settings.db} --transcript")
    if status:
        raise SystemExit(status)


def _named(name: str, strategy: str) -> str:
    """A house bot's name, and its strategy unless the name says it."""
    return name if strategy.replace("-", "").lower() in name.replace("-", "").lower() else f"{name} ({strategy})"


def _interrupted(tryout: Tryout, number: int) -> None:
    """SIGINT or SIGTERM: the tryout stops, and what it started with it; a second one kills what is left."""
    if tryout.done.called:
        say(f"evolution-try: {SIGNAL_NAMES[number]} again: killing what is left")
    else:
        say(f"evolution-try: {SIGNAL_NAMES[number]}: stopping the bot's command, the house and the host")
    tryout.interrupt(f"it was stopped by {SIGNAL_NAMES[number]}", number)


def say(text: str) -> None:
    """Print ``text``; once the reader of standard output has gone (``| head``), print nothing more."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _result(played: PlayedGame) -> str:
    seat, record = played.seat, played.record
    if seat.removed_reason is not None:
        return f"removed in turn {seat.removed_turn} ({escape(seat.removed_step or '')}): {escape(seat.removed_reason)}"
    if seat.rank is None:
        return escape(record.outcome)
    return f"rank {seat.rank} of {len(record.players)}, {plural(seat.score, 'point')}"


def progress(played: PlayedGame, settings: TryoutSettings) -> str:
    """The line printed as each game ends."""
    return f"game #{played.record.id} (seat {played.table.bot_seat}): {_result(played)}"


def _house_scores(played: PlayedGame, settings: TryoutSettings) -> str:
    """Each house bot at the table, by the name the tryout gave it, and its score."""
    seats = zip(played.table.seats, played.record.players)
    return ", ".join(f"{short(settings.house_name(house), NAME_WIDTH)} {'-' if other.score is None else other.score}"
                     for house, other in seats if house is not None)


def report(outcome: TryoutOutcome, settings: TryoutSettings) -> tuple[int, list[str]]:
    """(exit status, lines): the table of games, the gauntlet's, the first removal's transcript, why it stopped."""
    lines = [""]
    if outcome.games:
        lines += [f"the bot signed up as {quoted(outcome.games[0].seat.name)}",
                  f"  game  seat  {'rank':>4}  {'score':>5}  the house"]
        for played in outcome.games:
            seat = played.seat
            rank, score = ("-" if value is None else str(value) for value in (seat.rank, seat.score))
            lines.append(f"  #{played.record.id:<4}  {played.table.bot_seat:>4}  {rank:>4}  {score:>5}  "
                         f"{_house_scores(played, settings)}")
            if seat.removed_reason is not None:
                lines.append(f"  {'':<5}  {'':>4}  {_result(played)}")
    if settings.gauntlet and outcome.games:
        lines += ["", *gauntlet_table(outcome.games)]
    removed = [played for played in outcome.games if played.seat.removed_reason is not None]
    lines.append(_summary(outcome, removed))
    if removed:
        lines += ["", *first_failure(removed[0], settings.db)]
    if (removed or outcome.problem is not None) and outcome.output:
        lines += ["", f"the bot's last lines of output ({len(outcome.output)}):"]
        lines += [f"  | {escape(line)}" for line in outcome.output]
    if outcome.signal is not None:
        return 128 + outcome.signal, lines
    return (1 if removed or outcome.problem is not None else 0), lines


def gauntlet_table(games: list[PlayedGame]) -> list[str]:
    """Per opponent: games, wins, mean place, removals; then each removal's reason, with how often it came."""
    rows = tallies([Result(played.table.opponent, played.seat.rank, played.seat.removed_reason) for played in games])
    width = max(len("opponent"), *(len(row.opponent) for row in rows))
    lines = [f"  {'opponent':<{width}}  games  wins  mean place  removals"]
    for row in rows:
        lines.append(f"  {row.opponent:<{width}}  {row.games:>5}  {row.wins:>4}  {_mean(row):>10}  {row.removed:>8}")
        lines += [f"  {'':<{width}}    {count} x {short(reason, 100)}" for reason, count in row.removals]
    return lines


def _mean(row: Tally) -> str:
    return "-" if row.mean_place is None else f"{row.mean_place:.2f}"


def _summary(outcome: TryoutOutcome, removed: list[PlayedGame]) -> str:
    played = plural(len(outcome.games), "game")
    if outcome.problem is not None:
        return f"the tryout stopped after {played}: {outcome.problem} (the host listened on 127.0.0.1 port " \
               f"{outcome.port})"
    if removed:
        return f"the bot was removed from {len(removed)} of {played}"
    return f"the bot played {played} and was never removed"


def first_failure(played: PlayedGame, db: Path) -> list[str]:
    """The transcript of the bot's seat in the game it was first removed from, from the store."""
    store = ResultsStore.open(db)
    try:
        log = store.game_log(played.record.id)
    finally:
        store.close()
    if log is None:
        return [f"game #{played.record.id} has no stored message log"]
    return ["the first removal: what the bot's seat received and sent",
            *transcript_lines(transcript(played.record, log, played.seat.seat))]


if __name__ == "__main__":
    main()
