# -*- test-case-name: tests.cli.test_make_targets, tests.host.modes.test_tournament_processes -*-
"""``make demo``: the host and its bots as separate processes on loopback.

Starts ``twistd evolution --tournament knockout`` on a free 127.0.0.1 port
with a fresh results store, launches 20 ``evolution-client`` processes (the
silly and builder strategies, and two bots that fail on purpose), says so as
they start and how many have signed up as they do (client processes take a
while to start), prints the host's lines for each round and its games as
they are logged, and then the standings from the store; its last line says
how to see the ladder. It is never silent for more than ``QUIET`` seconds:
every wait (the host's start, the sign-ups, a long game, the bots' ends, the
web view's lingering) says where it stands when nothing else has been said
(``Lines``).
``--games N`` plays N single games of 8 client processes instead (``make
demo-games``); ``--ladder`` runs ``twistd evolution --ladder`` with the
same 20 bots for ``--seconds`` (60) with the web view, counting them as
they sign up, then the games as they are played, the leaders every 15 s,
and the whole ladder at the end (``make demo-ladder``;
the bots that fail on purpose are hung up on in their first game).
``--game fish`` (``make demo-fish``) plays Fish instead: greedy and maximin
bots, a cheater and a hole-placer, in games of 2 to 4, in the course's
protocol (or ``--dialect seed004``). Its process helpers are
``evolution.testing``'s, which the end-to-end tests and the benchmarks use
too; its reading of the host's log is ``demo_log.LogFollower``.
The results, the host's journal and its log go to a folder of the system's
temporary folder, removed at the end (on Ctrl-C too) unless ``--keep``, or
unless the demo failed with its host's log there: the last line says where
it was and which (``put_away``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from evolution.cli.arguments import ArgumentParser, add_game
from evolution.cli.demo_log import LogFollower
from evolution.cli.evolution_results import format_game, format_ladder, format_tournament
from evolution.games import DEFAULT_GAME, game
from evolution.store.results_store import ResultsStore
from evolution.testing import HostProcess, free_port, start_clients, wait_for_clients
from evolution.text import plural


def parser() -> ArgumentParser:
    p = ArgumentParser(
        prog="python -m evolution.cli.demo",
        description="Run the host and bot processes on loopback: a knockout tournament of 20 bots (silly and "
        "builder strategies and two that fail on purpose), with a progress line per round and the standings; "
        "or, with --games, a few single games.",
    )
    p.add_argument("--bots", type=int, default=20, metavar="N", help="bots in the tournament (default 20, at least 5)")
    p.add_argument("--format", choices=("knockout", "swiss"), default="knockout", help="the tournament's format")
    p.add_argument("--games", type=int, metavar="N", help="play N single games instead of a tournament")
    p.add_argument("--ladder", action="store_true", help="run a ladder instead of a tournament, for --seconds")
    p.add_argument("--seconds", type=float, default=60.0, help="with --ladder: how long it runs (default 60)")
    p.add_argument("--players", type=int, metavar="N", help="bots per game at most (default: the game's most, "
                   "evolution 8, fish 4)")
    add_game(p)
    p.add_argument("--dialect", help="the game's dialect (default: its first, the course's)")
    p.add_argument("--seed", type=int, default=2016, help="the first game's shuffle (default 2016)")
    p.add_argument("--think", type=float, metavar="SECONDS",
                   help="each bot's pause before an answer, so the games can be watched (default 0.15; on a ladder, "
                   "0.02, for more games)")
    p.add_argument("--linger", type=float, default=20.0, metavar="SECONDS",
                   help="keep the host and its web view up this long after the tournament (default 20; Ctrl-C ends)")
    p.add_argument("--keep", action="store_true", help="keep the demo's folder in the system's temporary folder (the "
                   "results, the host's journal and log; the last line says where) instead of removing it at the end")
    return p


QUIET = 4.0  # seconds the demo may go without a line
START_LIMIT = 180.0  # seconds the host has to listen (a busy machine is slow to start Python processes)


class Lines:
    """What the demo prints, and when it last printed: a wait says where things stand after ``quiet`` seconds
    without a line (the clock and the sleep are given, for tests)."""

    def __init__(self, quiet: float = QUIET, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.quiet, self.clock, self.sleep = quiet, clock, sleep
        self.last = clock()

    def say(self, text: str) -> None:
        print(text, flush=True)
        self.last = self.clock()

    def wait_for(self, done: Callable[[], bool], status: Callable[[float], str], limit: float, what: str,
                 poll: float = 0.2) -> None:
        """Until ``done()``, saying ``status(seconds waited)`` whenever ``quiet`` seconds pass without a line;
        ``RuntimeError`` ("``what`` within ``limit`` s") if it takes longer than ``limit`` seconds."""
        start = self.clock()
        while not done():
            now = self.clock()
            if now - start >= limit:
                raise RuntimeError(f"{what} within {limit:g} s")
            if now - self.last >= self.quiet:
                self.say(status(now - start))
            self.sleep(poll)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.think is None:
        args.think = 0.02 if args.ladder else 0.15
    if args.games is None and args.bots < 5:
        parser().error("a tournament demo needs at least 5 bots")
    chosen = game(args.game)
    args.players = args.players or chosen.max_players
    if not chosen.min_players <= args.players <= chosen.max_players:
        parser().error(f"--players of {args.game} is {chosen.min_players}..{chosen.max_players}")
    if args.dialect is not None and args.dialect not in chosen.dialects:
        parser().error(f"--dialect of {args.game} is one of {', '.join(chosen.dialects)}")
    folder = Path(tempfile.mkdtemp(prefix="evolution-demo-"))
    lines = Lines()
    keep = args.keep
    try:
        run(folder, args, lines)
    except RuntimeError as error:
        print(f"demo: {error}", file=sys.stderr)
        keep = keep or any(folder.iterdir())  # its host's log says what went wrong
        return 1
    except KeyboardInterrupt:
        print("demo: stopped")
        return 1
    finally:
        lines.say(put_away(folder, keep))
    return 0


def run(folder: Path, args: Any, lines: Lines) -> None:
    """The demo, its results in ``folder``; ``RuntimeError`` (a sentence) if it cannot go on."""
    db, log = folder / "results.sqlite", folder / "host.log"
    port = free_port()
    lines.say(f"host: twistd evolution on 127.0.0.1:{port}, results in {db}, log in {log}")
    if args.games is not None:
        games_demo(port, db, log, args, lines)
    elif args.ladder:
        ladder_demo(port, db, log, args, lines)
    else:
        tournament_demo(port, db, log, args, lines)


def put_away(folder: Path, keep: bool) -> str:
    """Remove the demo's ``folder`` unless ``keep``; the line that says which, and where it was."""
    if keep:
        return (f"the demo's folder is kept: {folder} (results, journal, log; evolution-results --db "
                f"{folder / 'results.sqlite'} reads them; rm -r {folder} removes it)")
    shutil.rmtree(folder, ignore_errors=True)
    return f"removed the demo's folder {folder} (results, journal, log; --keep keeps it)"


def started(host: HostProcess, lines: Lines) -> None:
    """Until the host listens, saying so while it starts."""
    lines.wait_for(host.listening, lambda waited: f"host: starting ({waited:.0f} s so far: a busy machine takes a "
                   "while)", START_LIMIT, f"the host did not listen on port {host.port}")


def ended(processes: list[subprocess.Popen], lines: Lines, what: str, limit: float = 60.0) -> None:
    """Until every process has ended, saying how many are still running."""

    def status(waited: float) -> str:
        running = sum(process.poll() is None for process in processes)
        return f"waiting for the {what} to end: {running} of {len(processes)} still running"

    lines.wait_for(lambda: all(process.poll() is not None for process in processes), status, limit,
                   f"the {what} did not end")


def starting(count: int, lines: Lines) -> None:
    lines.say(f"starting {plural(count, 'bot process', 'bot processes')} (evolution-client, one Python process "
              "each); they sign up as they start")


def games_demo(port: int, db: Path, log: Path, args: Any, lines: Lines) -> None:
    if args.game != DEFAULT_GAME:
        raise RuntimeError("single games are Evolution's demo; for Fish run the tournament (make demo-fish)")
    host = HostProcess(port, db, log, "--players", f"3-{args.players}", "--games", str(args.games),
                       "--seed", str(args.seed))
    try:
        started(host, lines)
        play(host, args.games, args.players, lines)
    finally:
        host.stop()
    store = ResultsStore.open(db)
    lines.say("")
    lines.say("\n\n".join(format_game(game) for game in store.games()))
    store.close()


def play(host: HostProcess, games: int, players: int, lines: Lines) -> None:
    for game in range(1, games + 1):
        began = time.monotonic()
        names = [f"bot-{game}-{seat}" for seat in range(1, players + 1)]
        lines.say(f"game {game} of {games}: starting {players} client processes")
        clients = start_clients(host.port, names)
        ended(clients, lines, f"game {game}'s client processes")
        failed = [r for r in wait_for_clients(clients, 10) if r.returncode != 0]
        note = f", {plural(len(failed), 'client')} failed: {failed[0].stderr.strip()}" if failed else ""
        lines.say(f"game {game} of {games}: {players} client processes done in {time.monotonic() - began:.1f} s{note}")
    lines.wait_for(lambda: host.process.poll() is not None, lambda waited: "waiting for the host to store the games "
                   "and stop", 60, "the host did not stop")


def demo_bots(count: int, name: str = DEFAULT_GAME) -> dict[str, str]:
    """Names and strategies: one bot of each strategy that fails on purpose, the rest alternately of the
    game's two house strategies; named in letters only, as Fish's course server takes them (``Cheater``,
    ``SillyB``, ``MaximinA``)."""
    chosen = game(name)
    failing = [strategy for strategy in chosen.strategies if strategy not in chosen.house]
    bots = {_letters_of(strategy): strategy for strategy in failing}
    for k in range(1, count - len(failing) + 1):
        strategy = chosen.house[k % len(chosen.house)]
        bots[f"{_letters_of(strategy)}{_letters(k)}"] = strategy
    return bots


def _letters_of(strategy: str) -> str:
    return "".join(char for char in strategy.title() if char.isalpha())


def _letters(k: int) -> str:
    """1 -> A, 26 -> Z, 27 -> AA: a number in letters only."""
    text = ""
    while k:
        k, digit = divmod(k - 1, 26)
        text = chr(ord("A") + digit) + text
    return text


def tournament_demo(port: int, db: Path, log: Path, args: Any, lines: Lines) -> None:
    bots = demo_bots(args.bots, args.game)
    chosen = game(args.game)
    web = free_port()
    speaking = ("--game", args.game) + (("--dialect", args.dialect) if args.dialect else ())
    host = HostProcess(
        port, db, log, *speaking, "--tournament", args.format, "--players", f"{chosen.min_players}-{args.players}",
        "--max-signups", str(len(bots)), "--signup-window", "30", "--seed", str(args.seed), "--tournaments", "2",
        "--web", f"tcp:{web}:interface=127.0.0.1", *(("--rounds", "3") if args.format == "swiss" else ()),
    )
    try:
        started(host, lines)
        lines.say(f"web view: http://127.0.0.1:{web}/  (live games, the bracket, replays)")
        lines.say(f"{len(bots)} bots sign up: " + ", ".join(bots))
        starting(len(bots), lines)
        clients = start_clients(port, list(bots), bots, args.think, *speaking)
        follower = LogFollower(log, host, lines, len(bots))
        lines.wait_for(follower.poll, follower.status, 600, "the tournament did not end")
        ended(clients, lines, "bot processes")
        wait_for_clients(clients, 10)
        store = ResultsStore.open(db)
        [tournament] = store.tournaments()[:1]
        lines.say("")
        lines.say(format_tournament(tournament))
        store.close()
        if args.linger > 0:
            lines.say(f"\nthe web view stays up for {args.linger:g} s more: http://127.0.0.1:{web}/tournaments/"
                      f"{tournament.id} (Ctrl-C ends the demo)")
            until = time.monotonic() + args.linger
            lines.wait_for(lambda: time.monotonic() >= until, lambda waited: f"the web view stays up "
                           f"{max(0.0, until - time.monotonic()):.0f} s more", args.linger + 10, "the demo did not end")
    finally:
        host.stop()
    lines.say("\na ladder, where bots come and go and play game after game: make demo-ladder"
              " (twistd -n evolution --ladder ...; evolution-results --ladder)")


LEADERS_EVERY = 15.0  # seconds between the ladder demo's lines of leaders


def ladder_demo(port: int, db: Path, log: Path, args: Any, lines: Lines) -> None:
    """The same bots on a ladder for ``args.seconds``: their sign-ups, the games as they are played, the leaders
    every 15 s, the whole ladder at the end."""
    bots, web = demo_bots(args.bots), free_port()
    host = HostProcess(port, db, log, "--ladder", "--players", f"3-{args.players}", "--seed", str(args.seed),
                       "--web", f"tcp:{web}:interface=127.0.0.1")
    try:
        started(host, lines)
        lines.say(f"web view: http://127.0.0.1:{web}/  (the ladder, live games, replays)")
        lines.say(f"{len(bots)} bots join the ladder: " + ", ".join(bots))
        starting(len(bots), lines)
        clients = start_clients(port, list(bots), bots, args.think)
        follower = LogFollower(log, host, lines, len(bots), ladder=db)
        clock: list[float] = []  # when the ladder's --seconds end: counted from its first game (bots start slowly
        # on a busy machine: a minute from their launch could pass before any of them has signed up)

        def over() -> bool:
            follower.poll()
            now = time.monotonic()
            if not clock:
                if follower.games == 0:
                    return False
                clock.extend([now + args.seconds, now + LEADERS_EVERY])
            if now >= min(clock):
                lines.say(leaders(db))
                clock[1] = now + LEADERS_EVERY
            return now >= clock[0]

        lines.wait_for(over, follower.status, args.seconds + START_LIMIT, "the ladder demo did not end")
        lines.say("the demo stops the host: the games being played are stored as aborted")
        host.process.terminate()
        lines.wait_for(lambda: host.process.poll() is not None, lambda waited: "waiting for the host to stop", 60,
                       "the host did not stop")
        ended(clients, lines, "bot processes")
        wait_for_clients(clients, 10)
    finally:
        host.stop()
    store = ResultsStore.open(db)
    lines.say("")
    lines.say(format_ladder(store.ladder(), "evolution"))
    store.close()


def leaders(db: Path, count: int = 5) -> str:
    """One line: the games so far and the ladder's first ``count``, by what ranks them."""
    store = ResultsStore.open(db)
    try:
        games = sum(1 for game in store.games() if game.finished)
        top = store.ladder(limit=count)
    finally:
        store.close()
    return f"ladder: {plural(games, 'game')} so far; leaders {ranked_by(top)}"


def ranked_by(top: list[tuple[int, Any]]) -> str:
    """Ranked standings as the value that ranks them, mu - 3 sigma (a provisional rating, marked ``?``, ranks after
    every established one, as in ``evolution-results --ladder``)."""
    if not top:
        return "-"
    return "by mu - 3 sigma (? provisional, ranked after): " + ", ".join(
        f"{rank}. {standing.name} {standing.ordinal:.1f}{'?' if standing.provisional else ''}" for rank, standing in top
    )


if __name__ == "__main__":
    sys.exit(main())
