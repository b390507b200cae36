# -*- test-case-name: tests.cli.test_make_targets, tests.host.modes.test_tournament_processes -*-
"""``make demo``: the host and its bots as separate processes on loopback.

Starts ``twistd evolution --tournament knockout`` on a free 127.0.0.1 port
with a fresh results store, launches 20 ``evolution-client`` processes (the
silly and builder strategies, and two bots that fail on purpose), says how
many have signed up as they do (client processes take a while to start),
prints the host's line for each round as it is logged, and then the
standings from the store; its last line says how to see the ladder.
``--games N`` plays N single games of 8 client processes instead (``make
demo-games``); ``--ladder`` runs ``twistd evolution --ladder`` with the
same 20 bots for ``--seconds`` (60) with the web view, printing the
leaders every 15 s and the whole ladder at the end (``make demo-ladder``;
the bots that fail on purpose are hung up on in their first game).
``--game fish`` (``make demo-fish``) plays Fish instead: greedy and maximin
bots, a cheater and a hole-placer, in games of 2 to 4, in the course's
protocol (or ``--dialect seed004``). Its process helpers are
``evolution.testing``'s, which the end-to-end tests and the benchmarks use
too.
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from evolution.cli.arguments import ArgumentParser, add_game
from evolution.cli.evolution_results import format_game, format_ladder, format_tournament
from evolution.games import DEFAULT_GAME, game
from evolution.store.results_store import ResultsStore
from evolution.testing import HostProcess, free_port, run_clients, start_clients, wait_for_clients
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
    return p


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
    db, log = folder / "results.sqlite", folder / "host.log"
    port = free_port()
    print(f"host: twistd evolution on 127.0.0.1:{port}, results in {db}, log in {log}")
    try:
        if args.games is not None:
            games_demo(port, db, log, args)
        elif args.ladder:
            ladder_demo(port, db, log, args)
        else:
            tournament_demo(port, db, log, args)
    except RuntimeError as error:
        print(f"demo: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("demo: stopped")
        return 1
    return 0


def games_demo(port: int, db: Path, log: Path, args: Any) -> None:
    if args.game != DEFAULT_GAME:
        raise RuntimeError("single games are Evolution's demo; for Fish run the tournament (make demo-fish)")
    host = HostProcess(port, db, log, "--players", f"3-{args.players}", "--games", str(args.games),
                       "--seed", str(args.seed))
    try:
        play(host, args.games, args.players)
    finally:
        host.stop()
    store = ResultsStore.open(db)
    print()
    print("\n\n".join(format_game(game) for game in store.games()))
    store.close()


def play(host: HostProcess, games: int, players: int) -> None:
    host.wait_until_listening()
    for game in range(1, games + 1):
        started = time.monotonic()
        names = [f"bot-{game}-{seat}" for seat in range(1, players + 1)]
        failed = [r for r in run_clients(host.port, names) if r.returncode != 0]
        note = f", {plural(len(failed), 'client')} failed: {failed[0].stderr.strip()}" if failed else ""
        print(f"game {game} of {games}: {players} client processes done in {time.monotonic() - started:.1f} s{note}")
    host.wait()


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


def tournament_demo(port: int, db: Path, log: Path, args: Any) -> None:
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
        host.wait_until_listening()
        print(f"web view: http://127.0.0.1:{web}/  (live games, the bracket, replays)")
        print(f"{len(bots)} bots sign up: " + ", ".join(bots))
        clients = start_clients(port, list(bots), bots, args.think, *speaking)
        follow(log, host, SignupProgress(len(bots)))
        wait_for_clients(clients, 60)
        store = ResultsStore.open(db)
        [tournament] = store.tournaments()[:1]
        print()
        print(format_tournament(tournament))
        store.close()
        if args.linger > 0:
            print(f"\nthe web view stays up for {args.linger:g} s more: http://127.0.0.1:{web}/tournaments/"
                  f"{tournament.id} (Ctrl-C ends the demo)", flush=True)
            time.sleep(args.linger)
    finally:
        host.stop()
    print("\na ladder, where bots come and go and play game after game: make demo-ladder"
          " (twistd -n evolution --ladder ...; evolution-results --ladder)")


def ladder_demo(port: int, db: Path, log: Path, args: Any) -> None:
    """The same bots on a ladder for ``args.seconds``: the leaders every 15 s, the whole ladder at the end."""
    bots, web = demo_bots(args.bots), free_port()
    host = HostProcess(port, db, log, "--ladder", "--players", f"3-{args.players}", "--seed", str(args.seed),
                       "--web", f"tcp:{web}:interface=127.0.0.1")
    try:
        host.wait_until_listening()
        print(f"web view: http://127.0.0.1:{web}/  (the ladder, live games, replays)")
        print(f"{len(bots)} bots join the ladder: " + ", ".join(bots))
        clients = start_clients(port, list(bots), bots, args.think)
        ends = time.monotonic() + args.seconds
        while (left := ends - time.monotonic()) > 0:
            time.sleep(min(15.0, left))
            print(leaders(db), flush=True)
        host.process.terminate()
        host.wait()
        wait_for_clients(clients, 60)
    finally:
        host.stop()
    store = ResultsStore.open(db)
    print()
    print(format_ladder(store.ladder(), "evolution"))
    store.close()


def leaders(db: Path, count: int = 5) -> str:
    """One line: the games so far and the ladder's first ``count``."""
    store = ResultsStore.open(db)
    try:
        games = sum(1 for game in store.games() if game.finished)
        top = ", ".join(f"{rank}. {standing.name} {standing.rating_mu:.1f} +- {standing.rating_sigma:.1f}"
                        for rank, standing in store.ladder(limit=count))
    finally:
        store.close()
    return f"ladder: {plural(games, 'game')} so far; leaders {top or '-'}"


ROUND_LINE = re.compile(
    r"\] (tournament \d+ (?:round \d+(?: of [^:]*)?: \d+ games?, \d+ players?(?: \(play-off .*\))?$"
    r"|round \d+: .*|is over.*))"
)


SIGNUP_LINE = re.compile(r"\] signed up .* \((\d+) waiting\)$")


class SignupProgress:
    """Says how many bots have signed up: at most every ``every`` seconds, and when all have."""

    def __init__(self, total: int, every: float = 2.0) -> None:
        self.total, self.every = total, every
        self.shown, self.when = 0, time.monotonic()

    def signed_up(self, count: int) -> None:
        now = time.monotonic()
        if count > self.shown and (count >= self.total or now - self.when >= self.every):
            print(f"sign-up: {count} of {plural(self.total, 'bot')} signed up", flush=True)
            self.shown, self.when = count, now


def follow(log: Path, host: HostProcess, signups: SignupProgress, limit: float = 600.0) -> None:
    """Print the sign-up count and the host's round lines as they are logged, until the first tournament is over."""
    deadline = time.monotonic() + limit
    seen = 0
    while time.monotonic() < deadline:
        if host.process.poll() is not None:
            raise RuntimeError(f"the host stopped with status {host.process.returncode}; see {log}")
        lines = log.read_text(errors="replace").splitlines() if log.is_file() else []
        for line in lines[seen:]:
            signup = SIGNUP_LINE.search(line)
            if signup:
                signups.signed_up(int(signup.group(1)))
            match = ROUND_LINE.search(line)
            if match:
                print(match.group(1), flush=True)
                if " is over" in match.group(1):
                    return
        seen = len(lines)
        time.sleep(0.2)
    raise RuntimeError(f"the tournament did not end within {limit:g} s; see {log}")


if __name__ == "__main__":
    sys.exit(main())
