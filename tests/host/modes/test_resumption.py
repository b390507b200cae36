"""A tournament outlives its host: killed with SIGKILL in round 2, a host started with ``--resume`` finishes it.

``twistd evolution`` runs as its own process (and is killed with its store process and workers at once); the bots
are in-process clients on real sockets that sign up again when their host goes away (``play_remote(reconnect=...)``,
``evolution-client --reconnect``). One bot holds its game of round 2 until the host is killed, so that round 2 has
a finished game and one under way. Asserted: the tournament finishes; every finished game of round 2 is kept, once;
its standings are those its stored games give a run that never crashed; an entrant that stays away fails, saying so;
a resume of a finished or unknown tournament is one clear line.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from twisted.internet import reactor, threads
from twisted.internet.defer import Deferred, ensureDeferred, gatherResults
from twisted.internet.task import deferLater
from twisted.trial import unittest

from evolution.coroutines import run_locally
from evolution.host.modes.tournament_run import TournamentSettings, entrant_records
from evolution.net.client import play_remote
from evolution.store.records import TournamentRecord
from evolution.store.results_store import ResultsStore
from evolution.testing import HostProcess, free_port, twistd_command
from evolution.tournament.manager import TournamentManager
from evolution.tournament.standings import Entrant, GameReport, Seat
from tests.support.hosting import HonestSilly, until

AWAY = 3  # --signup-window: seconds an entrant has to come back (one period)


class Hold:
    """Which bots hold their next answer (a table of round 2), until their host is gone; one holds, once."""

    def __init__(self) -> None:
        self.target: set[str] = set()
        self.held = False


class Holder(HonestSilly):
    """The tests' honest bot, a little slow (30 ms an answer), which holds its answer if its ``Hold`` says so."""

    def __init__(self, name: str, hold: Hold) -> None:
        super().__init__()
        self.name, self.hold = name, hold

    def choose(self, before: Any, after: Any) -> Any:
        if self.name in self.hold.target and not self.hold.held:
            self.hold.held = True
            return Deferred()  # never answered: the host is killed meanwhile
        return deferLater(reactor, 0.03, HonestSilly.choose, self, before, after)

    def feed_next(self, state: Any) -> Any:
        return deferLater(reactor, 0.03, HonestSilly.feed_next, self, state)


def finished_in(db: Path, round: int) -> int:
    """How many finished games of ``round`` the store holds."""
    store = ResultsStore.open(db)
    try:
        return sum(1 for game in store.games() if game.round == round and game.finished)
    finally:
        store.close()


def stored(db: Path) -> tuple[TournamentRecord, list]:
    store = ResultsStore.open(db)
    try:
        [tournament] = store.tournaments()
        return tournament, store.games(tournament.id)
    finally:
        store.close()


def standings_without_a_crash(tournament: TournamentRecord, games: list) -> dict[str, tuple]:
    """The standings a run that never crashed gives from the same stored games: each table answered by its game."""
    smallest, _, largest = tournament.settings["players"].partition("-")
    settings = TournamentSettings(tournament.format, int(smallest), int(largest), tournament.settings.get("rounds", 0),
                                  tournament.settings.get("seed"), tournament.settings.get("final_tiebreak",
                                                                                           "co-winners"),
                                  tournament.settings.get("runners_up", True))
    format = settings.make_format()
    entrants = [Entrant(e.entrant, e.name) for e in tournament.entrants]
    played = {(game.round, tuple(seat.name for seat in game.players)): game for game in games if game.finished}

    def referee(round: int, table: list[Entrant]) -> GameReport:
        game = played[(round, tuple(entrant.name for entrant in table))]
        return GameReport([Seat(entrant, seat.score, seat.removed_reason) for entrant, seat in zip(table, game.players)])

    run_locally(TournamentManager(format, entrants, referee).run())
    return {e.name: (e.rank, e.points, e.winner, e.failure) for e in entrant_records(format, entrants)}


class ResumeTests(unittest.TestCase):
    timeout = 240

    def host(self, folder: Path, port: int, log: str, *options: str) -> HostProcess:
        host = HostProcess(port, folder / "results.sqlite", folder / log, "--signup-window", str(AWAY),
                           "--signup-periods", "1", *options, own_group=True)
        self.addCleanup(host.stop)
        return host

    async def crash_in_round_two_then_resume(self, options: tuple[str, ...], bots: int, stays_away: str = ""):
        folder = Path(self.mktemp())
        folder.mkdir()
        port = free_port()
        first = self.host(folder, port, "first.log", *options, "--max-signups", str(bots), "--timeout", "10")
        await threads.deferToThread(first.wait_until_listening, 60)
        hold = Hold()
        names = [f"bot{k:02d}" for k in range(1, bots + 1)]
        clients = []
        for name in names:
            comes_back = 0 if name == stays_away else 100  # tries 0.2 s apart: the second host listens by then
            player = HonestSilly() if name == stays_away else Holder(name, hold)
            clients.append(ensureDeferred(play_remote(reactor, "127.0.0.1", port, name, player, retries=0,
                                                      reconnect=comes_back, reconnect_delay=0.2)))
        self.addCleanup(gatherResults, [client.addErrback(lambda _: None) for client in clients])
        self.addCleanup(lambda: [client.cancel() for client in clients])  # those still trying to come back
        log = (folder / "first.log").read_text
        begins = re.compile(r"tournament 1 round 1: .*?game (\d+) begins: (.*?) \(", re.S)  # round 2's first game
        await until(lambda: begins.search(log()) is not None, interval=0.02)
        game, names = begins.search(log()).groups()
        hold.target = set(re.findall(r"'([^']*)'", names)) - {stays_away}
        round_two = re.compile(r"tournament 1 round 2 of [^:]*: (\d+) of (\d+) games done, 1 running")
        await until(lambda: round_two.search(log()) is not None or f"game {game} finished" in log(), interval=0.05)
        self.assertIsNotNone(round_two.search(log()), f"game {game} ended before it could be held")
        done = int(round_two.findall(log())[-1][0])  # games of round 2 over: the store holds them before the crash
        await until(lambda: finished_in(folder / "results.sqlite", 2) == done, interval=0.05)
        await threads.deferToThread(first.kill_group)
        before, _ = stored(folder / "results.sqlite")
        self.assertEqual(before.status, "running")  # as a killed host leaves it

        second = self.host(folder, port, "second.log", "--resume")
        self.assertEqual(await threads.deferToThread(second.wait, 180), 0)
        tournament, games = stored(folder / "results.sqlite")
        return folder, before, done, tournament, games

    def assert_finished_as_if_it_never_crashed(self, before, done, tournament, games) -> None:
        self.assertEqual(tournament.status, "finished")
        self.assertTrue(tournament.winners)
        self.assertEqual([(r.round, r.resumed_at != "") for r in tournament.resumptions], [(2, True)])
        finished = [game for game in games if game.finished]
        tables = [(game.round, tuple(seat.name for seat in game.players)) for game in finished]
        self.assertEqual(len(tables), len(set(tables)))  # no table played twice
        kept = [game for game in finished if game.round == 2 and game.id in before.games]
        self.assertEqual(len(kept), done)  # the games of round 2 over before the crash, kept as they were
        self.assertEqual([game.id for game in finished if game.round == 2 and game.id not in before.games],
                         [game.id for game in finished if game.round == 2 and game.id > max(before.games)])
        expected = standings_without_a_crash(tournament, games)
        self.assertEqual({e.name: (e.rank, e.points, e.winner, e.failure) for e in tournament.entrants}, expected)

    async def test_a_swiss_killed_in_round_two_finishes_after_a_resume(self) -> None:
        folder, before, done, tournament, games = await self.crash_in_round_two_then_resume(
            ("--tournament", "swiss", "--rounds", "3", "--players", "3-5", "--seed", "11"), 9)
        self.assert_finished_as_if_it_never_crashed(before, done, tournament, games)
        shown = subprocess.run([sys.executable, "-m", "evolution.cli.evolution_results", "--db",
                                str(folder / "results.sqlite"), "--tournament", "1"], capture_output=True, text=True,
                               timeout=60).stdout
        self.assertIn(f"  interrupted in round 2, resumed {tournament.resumptions[0].resumed_at} (twistd evolution "
                      "--resume)", shown)
        self.assertEqual(len(tournament.rounds), 3)
        progress = re.findall(r"tournament 1 round (\d+) of (\S*): (\d+) of (\d+) games? done, (-?\d+) running",
                              (folder / "second.log").read_text())
        self.assertTrue(progress)
        for round, of, done, total, running in progress:  # each counted within its own round
            self.assertEqual(of, "3")
            self.assertTrue(int(round) >= 2 and 1 <= int(done) <= int(total) and int(running) == int(total) - int(done))

    async def test_a_knockout_killed_in_round_two_finishes_after_a_resume(self) -> None:
        _, before, done, tournament, games = await self.crash_in_round_two_then_resume(
            ("--tournament", "knockout", "--players", "3-5", "--seed", "3"), 30)
        self.assert_finished_as_if_it_never_crashed(before, done, tournament, games)

    async def test_an_entrant_that_stays_away_fails_and_says_why(self) -> None:
        folder, _, _, tournament, _ = await self.crash_in_round_two_then_resume(
            ("--tournament", "swiss", "--rounds", "3", "--players", "3-5", "--seed", "11"), 9, stays_away="bot01")
        self.assertEqual(tournament.status, "finished")
        [away] = [e for e in tournament.entrants if e.name == "bot01"]
        self.assertEqual(away.failure, f"did not come back within {AWAY} s after the host stopped")
        self.assertIn(away.failed_round, (2, 3))
        self.assertIn("'bot01' is out: did not come back", (folder / "second.log").read_text())


class NotResumableTests(unittest.TestCase):
    timeout = 120

    def refused(self, *options: str) -> subprocess.CompletedProcess:
        command = [*twistd_command(), "--nodaemon", "--pidfile=", "--logfile=-", "evolution", "--port",
                   f"tcp:{free_port()}:interface=127.0.0.1", *options]
        return subprocess.run(command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)

    async def test_a_resume_of_a_finished_or_unknown_tournament_is_one_clear_line(self) -> None:
        folder = Path(self.mktemp())
        folder.mkdir()
        db = folder / "results.sqlite"
        host = HostProcess(free_port(), db, folder / "host.log", "--tournament", "knockout", "--players", "3-5",
                           "--max-signups", "3", "--timeout", "10")
        self.addCleanup(host.stop)
        await threads.deferToThread(host.wait_until_listening, 60)
        await gatherResults([ensureDeferred(play_remote(reactor, "127.0.0.1", host.port, f"b{k}", HonestSilly(),
                                                        retries=0)) for k in range(3)])
        self.assertEqual(await threads.deferToThread(host.wait, 60), 0)
        for options, line in [
            (("--resume",), f"twistd evolution: {db} holds no interrupted tournament to resume\n"),
            (("--resume", "1"), f"twistd evolution: tournament 1 in {db} is finished, not interrupted: nothing to "
                                "resume (won by "),
            (("--resume", "9"), f"twistd evolution: {db} holds no tournament 9\n"),
        ]:
            done = await threads.deferToThread(self.refused, "--db", str(db), *options)
            self.assertEqual(done.returncode, 1, done.stderr)
            self.assertEqual(len(done.stderr.splitlines()), 1, done.stderr)
            self.assertTrue(done.stderr.startswith(line), done.stderr)

    async def test_what_a_tournament_keeps_is_refused_with_resume_in_one_line_and_a_missing_db_makes_nothing(
            self) -> None:
        folder = Path(self.mktemp())
        folder.mkdir()
        for options, line in [
            (("--resume", "--ladder"), "--resume goes on with an interrupted tournament, and a ladder has none"),
            (("--resume", "--timeout", "3"), "--timeout does not go with --resume: the tournament keeps its own"),
            (("--resume", "2", "--players", "3-4"), "--players does not go with --resume"),
            (("--game", "fish", "--resume"), "--game does not go with --resume"),
            (("--resume", "--seed", "4"), "--seed does not go with --resume"),
            (("--resume", "--dialect", "seed002"), "--dialect does not go with --resume"),
            (("--resume", "--owners-may-meet"), "--owners-may-meet does not go with --resume"),
        ]:
            done = await threads.deferToThread(self.refused, "--db", str(folder / "results.sqlite"), *options)
            self.assertEqual(done.returncode, 2, done.stderr)
            self.assertEqual(len(done.stderr.splitlines()), 1, done.stderr)
            self.assertIn(line, done.stderr)
        missing = folder / "typo.sqlite"
        done = await threads.deferToThread(self.refused, "--db", str(missing), "--resume")
        self.assertEqual((done.returncode, done.stderr), (1, f"twistd evolution: no results database at {missing}: "
                         "--resume goes on with a tournament stored there (is --db the file the tournament was "
                         "started with?)\n"))
        self.assertEqual(list(folder.iterdir()), [])  # no store, no journal


def test_a_tournament_another_host_runs_on_a_shared_store_is_that_hosts_to_resume_and_says_so():
    from evolution.host.modes.resumption import NotResumable, load_interrupted
    from evolution.store.operations import tournament_begun
    from tests.support.postgres import database_url

    url = database_url("another host's tournament")
    store = ResultsStore.open(url)
    record = TournamentRecord(1, "swiss", "running", "2026-01-01T00:00:00.000+00:00", settings={"players": "3-5"},
                              host="lab3:45678")
    store.apply(tournament_begun(record))
    store.close()
    with pytest.raises(NotResumable) as refused:
        load_interrupted(url, "1", "lab4:45678")
    assert str(refused.value).endswith("is running on the host 'lab3:45678' (or was, if that host died without a "
                                       "word): resume it there, or start this host with --host-name 'lab3:45678' to "
                                       "take it over once that host is stopped")
    with pytest.raises(NotResumable, match="holds no interrupted tournament to resume"):
        load_interrupted(url, "last", "lab4:45678")
