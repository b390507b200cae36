"""The Java example Fish bot (examples/java) on a real host: single games and tournaments, never removed.

Each bot is a ``java`` process, a child of the reactor, beside the project's own Fish
clients (greedy and maximin); it must finish every game it is seated in, be ranked, hear
``end`` (saying it won exactly when the host counts it a winner) and exit with status 0.
Needs ``javac`` and ``java`` (17+), as ``test_example_java``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from twisted.internet import reactor
from twisted.internet.defer import gatherResults
from twisted.trial import unittest

from tests.examples.test_java import EXAMPLE, JAVA, JAVAC, MISSING
from tests.support.bot_processes import BotProcess
from tests.support.hosting import new_host, until
from tests.support.webhosting import fish_client

FAST = ("--game", "fish", "--timeout", "5", "--first-move-timeout", "10", "--start-timeout", "5",
        "--number-grace", "0.01")
_compiled: list[Path] = []


def compiled(folder: Path) -> Path:
    """The bot's classes, compiled once for this test run (into the first test's folder)."""
    if not _compiled:
        sources = sorted(str(path) for path in (EXAMPLE / "src" / "fish").glob("*.java"))
        subprocess.run([JAVAC, "-d", str(folder / "classes"), *sources], check=True, capture_output=True, timeout=180)
        _compiled.append(folder / "classes")
    return _compiled[0]


# Single games: (players, seats of Java bots in sign-up order, seed, board).
GAMES = [(2, [0], 1, "4x4"), (2, [1], 2, "5x5"), (3, [0, 2], 3, "6x6"), (4, [3], 4, "6x6"), (4, [0, 1, 2, 3], 5, "7x5"),
         (3, [1], 6, "3x8")]


class HostedJavaTests(unittest.TestCase):
    timeout = 300
    skip = MISSING

    def spawn(self, port: int, name: str) -> BotProcess:
        bot = BotProcess(name)
        classes = compiled(Path(self.mktemp()).resolve())
        reactor.spawnProcess(bot, JAVA, [JAVA, "-cp", str(classes), "fish.Bot", "127.0.0.1", str(port), name],
                             env=dict(os.environ))
        return bot

    async def sign_up(self, host: Any, names: list[str], java: set[str], begun: Any) -> tuple[list[BotProcess], list]:
        """Each name in order, once the one before waits: a Java bot for the names in ``java``, else a client of ours."""
        bots, clients = [], []
        await host.ready()  # the host's workers are up (a tournament's sign-up opens then)
        for index, name in enumerate(names):
            if name in java:
                bots.append(self.spawn(host.port, name))
            else:
                clients.append(fish_client(host, name, "maximin" if index % 2 else "greedy"))
            await until(lambda: len(host.factory.lobby) > index or begun())
        return bots, clients

    def assert_ended_well(self, bot: BotProcess, status: int, won: bool) -> None:
        self.assertEqual(status, 0, bot.said)
        self.assertIn(f"end: {'won' if won else 'lost'}", bot.said)

    async def test_the_bot_finishes_every_single_game_and_is_never_removed(self) -> None:
        moves = 0
        for players, seats, seed, board in GAMES:
            host = new_host(self, *FAST, "--players", f"{players}-{players}", "--seed", str(seed), "--board", board,
                            "--games", "1")
            names = [f"{'Java' if seat in seats else 'Py'}{chr(ord('a') + seat)}" for seat in range(players)]
            bots, clients = await self.sign_up(host, names, {n for n in names if n.startswith("Java")},
                                               lambda: host.runner.games_begun)
            [record] = await host.runner.when_games_over(1)
            await gatherResults(clients)
            self.assertEqual(record.outcome, "finished", seed)
            java = {seat.name: seat for seat in record.players if seat.name.startswith("Java")}
            self.assertEqual(len(java), len(seats))
            self.assertEqual([(s.name, s.removed_reason) for s in java.values() if s.removed_reason], [], seed)
            for bot in bots:
                self.assert_ended_well(bot, await bot.ended, java[bot.name].rank == 1)
                moves += int(bot.said.split(" moves")[0].rsplit(" ", 1)[1])
        self.assertGreater(moves, 20, "the Java bots were hardly asked to move")

    async def test_the_bot_plays_whole_tournaments_and_hears_end_as_a_winner_or_a_loser(self) -> None:
        for form, extra, count in (("knockout", (), 9), ("swiss", ("--rounds", "3", "--players", "2-4"), 6)):
            host = new_host(self, *FAST, "--tournament", form, *extra, "--max-signups", str(count),
                            "--signup-window", "20", "--seed", "7")
            names = [f"Java{chr(ord('a') + i)}" if i % 3 == 0 else f"Py{chr(ord('a') + i)}" for i in range(count)]
            bots, clients = await self.sign_up(host, names, {n for n in names if n.startswith("Java")},
                                               lambda: host.tournaments.current is not None)
            await host.tournaments.when_over(1)
            await gatherResults(clients)
            store = await host.stored()
            [tournament] = store.tournaments()
            summary = tournament.to_json()
            self.assertEqual(summary["status"], "finished", form)
            self.assertEqual([f for f in summary["failures"] if f["name"].startswith("Java")], [], form)
            played = [seat.name for game in store.games(tournament.id) for seat in game.players]
            for bot in bots:
                self.assert_ended_well(bot, await bot.ended, bot.name in summary["winners"])
                games = int(bot.said.split(" games")[0].rsplit(" ", 1)[1])
                self.assertEqual(games, played.count(bot.name), (form, bot.name))
