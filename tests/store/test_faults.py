"""The results store under faults, as operators meet them: ``twistd evolution`` with its disk full, killed, hung.

Each test puts ``--db`` on a filesystem of its own (a small tmpfs that fills
up, or a loop-mounted ext4 that ``fsfreeze`` hangs; skipped with the reason
where this process may not mount), plays games with clients in this process
on loopback, brings the fault about, and checks what users see: the host's
answers and log, how long it takes to stop, and what the next start finds in
the store. The test process itself never touches a frozen disk (a read there
could block it as it blocks the host).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from twisted.internet import reactor, threads
from twisted.internet.defer import ensureDeferred, gatherResults
from twisted.trial import unittest

from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.net.client import play_remote
from evolution.store.journal import held as journal_held
from evolution.store.results_store import ResultsStore
from evolution.testing import HostProcess, free_port, twistd_command
from tests.support.disks import fill, freeze, loop_ext4, small_tmpfs, thaw
from tests.support.hosting import until
from tests.support.webhosting import get

GAMES = ("--players", "3-3", "--timeout", "5")  # each game starts when its three clients are in
STOP_BOUND = 5.0  # the store writer's STOP_LIMIT: what the README promises for SIGTERM on a hung disk
SLACK = 10.0  # what a busy machine may add to it: starting twistd's shutdown, closing sockets, exiting


def stored_games(db: Path) -> list:
    store = ResultsStore.open(db)
    try:
        return store.games()
    finally:
        store.close()


class FaultCase(unittest.TestCase):
    timeout = 240

    async def start_host(self, db: Path, *options: str) -> HostProcess:
        folder = Path(self.mktemp())
        folder.mkdir()
        host = HostProcess(free_port(), db, folder / "host.log", *GAMES, *options, own_group=True)
        self.addCleanup(host.stop)
        await threads.deferToThread(host.wait_until_listening, 60)
        return host

    async def play(self, host: HostProcess, games: int, first: int = 1) -> None:
        """``games`` games of three silly clients, one after another, each played to its end."""
        for game in range(first, first + games):
            await gatherResults([
                ensureDeferred(play_remote(reactor, "127.0.0.1", host.port, f"g{game}.{seat}", SillyPlayer(), retries=0))
                for seat in range(3)
            ])

    async def restart(self, db: Path) -> None:
        """The next start on ``db`` (it applies the journal), stopped as soon as it listens."""
        again = await self.start_host(db)
        again.process.send_signal(signal.SIGTERM)
        await threads.deferToThread(again.wait, 60)

    def log(self, host: HostProcess) -> str:
        return host.log.read_text(errors="replace")

    async def logged(self, host: HostProcess, text: str, limit: float = 10.0) -> None:
        """Until the host's log holds ``text`` (a child's lines reach it a little later), at most ``limit`` s."""
        deadline = time.monotonic() + limit
        await until(lambda: text in self.log(host) or time.monotonic() > deadline, interval=0.05)


class FullDiskTests(FaultCase):
    """The journal's room is reserved at start (16 MiB by default): the tmpfs holds it, the database, a filler."""

    async def games_on_a_full_disk(self, games: int) -> tuple[Path, HostProcess, Path]:
        """A host on a tmpfs that is then filled up, and ``games`` games played: (its db, it, the filler)."""
        disk = small_tmpfs(self, 40)
        host = await self.start_host(disk / "results.sqlite")
        filler = fill(disk)
        await self.play(host, games)
        return disk / "results.sqlite", host, filler

    async def test_a_full_disk_then_kill_9_loses_no_finished_game(self) -> None:
        db, host, filler = await self.games_on_a_full_disk(4)
        journal = db.with_name(db.name + ".pending")
        await until(lambda: sum(op["op"] == "game" for op in journal_held(journal)) == 4, interval=0.05)
        self.assertEqual(self.log(host).count("the results database did not take"), 1)  # one line an outage
        host.kill_group()  # the host and its store process, at once
        filler.unlink()
        await self.restart(db)
        games = stored_games(db)
        self.assertEqual([(game.id, game.outcome) for game in games], [(k, "finished") for k in range(1, 5)])
        self.assertEqual([sorted(seat.name for seat in game.players) for game in games],
                         [[f"g{k}.{seat}" for seat in range(3)] for k in range(1, 5)])
        self.assertFalse([path.name for path in db.parent.iterdir() if path.name.endswith(".new")])

    async def test_sigterm_with_a_full_disk_leaves_the_games_in_the_journal(self) -> None:
        db, host, filler = await self.games_on_a_full_disk(3)
        host.process.send_signal(signal.SIGTERM)
        self.assertEqual(await threads.deferToThread(host.wait, 60), -signal.SIGTERM)
        journal = db.with_name(db.name + ".pending")
        held = journal_held(journal)  # each game's start (noted as running) and its end
        self.assertEqual([operation["game"]["id"] for operation in held if operation["op"] == "game"], [1, 2, 3])
        self.assertIn(f"{len(held)} writes wait in {journal}; the next start with this --db applies them",
                      self.log(host))
        self.assertNotIn("here it is", self.log(host))
        filler.unlink()
        await self.restart(db)
        self.assertEqual([game.id for game in stored_games(db)], [1, 2, 3])
        self.assertEqual(journal_held(journal), [])


class HungDiskTests(FaultCase):
    async def test_a_hung_disk_holds_neither_the_web_view_nor_sigterm_and_loses_nothing(self) -> None:
        disk = loop_ext4(self, 128)
        db = disk / "results.sqlite"
        web = free_port()
        host = await self.start_host(db, "--web", f"tcp:{web}:interface=127.0.0.1")
        await self.play(host, 1)
        await until(lambda: len(stored_games(db)) == 1, interval=0.05)
        freeze(self, disk)
        await self.play(host, 2, first=2)  # games go on; their records wait in the store process

        asked = time.monotonic()
        overview = await get(f"http://127.0.0.1:{web}/api/overview")
        self.assertEqual(overview.status, 503)
        self.assertLess(time.monotonic() - asked, 5 + SLACK)  # the reader's limit is 5 s
        self.assertIn("the results store has not answered within 5 s", overview.json()["error"])
        logged = "the results store has not answered a read within 5 s"
        await self.logged(host, logged)  # the web view's process sends its log lines to the host's a batch at a time
        self.assertIn(logged, self.log(host))

        stopped = time.monotonic()
        host.process.send_signal(signal.SIGTERM)
        self.assertEqual(await threads.deferToThread(host.wait, 60), -signal.SIGTERM)
        self.assertLess(time.monotonic() - stopped, STOP_BOUND + SLACK)
        self.assertIn("has not finished within 5 s (is the disk of", self.log(host))

        thaw(disk)  # the store process finishes by itself; the next start waits for it if need be
        await self.restart(db)
        self.assertEqual([(game.id, game.outcome) for game in stored_games(db)],
                         [(k, "finished") for k in (1, 2, 3)])


class SmallDiskTests(FaultCase):
    """Where the journal's reserve cannot be had, the host does not start: before a game, one line says why."""

    async def refused(self, disk: Path, *options: str) -> str:
        """What ``twistd evolution`` on ``disk`` says on standard error as it refuses to start (status 1)."""
        command = [*twistd_command(), "--nodaemon", "--pidfile=", "--logfile=-", "evolution", "--port",
                   f"tcp:{free_port()}:interface=127.0.0.1", "--db", str(disk / "results.sqlite"), *GAMES, *options]
        done = await threads.deferToThread(subprocess.run, command, capture_output=True, text=True, timeout=120,
                                           stdin=subprocess.DEVNULL)
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertEqual(len(done.stderr.splitlines()), 1, done.stderr)
        return done.stderr

    async def test_a_disk_smaller_than_the_reserve_is_refused_before_a_game_is_played(self) -> None:
        disk = small_tmpfs(self, 8)
        log = await self.refused(disk)
        self.assertIn(f"cannot reserve 16 MiB for the journal {disk / 'results.sqlite.pending'} (No space left on "
                      "device;", log)
        self.assertIn("with the disk full, finished games could be lost. Free some room there, or give "
                      "--journal-reserve 4 (MiB, each about 50 games of 8 players)", log)
        self.assertFalse((disk / "results.sqlite").exists())

    async def test_a_nearly_full_disk_is_refused_too_and_a_reserve_that_fits_starts(self) -> None:
        disk = small_tmpfs(self, 40)
        filler = fill(disk)
        os.truncate(filler, filler.stat().st_size - 6 * 2**20)  # 6 MiB left
        self.assertIn("or give --journal-reserve 3 (MiB", await self.refused(disk))
        host = await self.start_host(disk / "results.sqlite", "--journal-reserve", "3")
        await self.play(host, 1)
        await until(lambda: len(stored_games(disk / "results.sqlite")) == 1, interval=0.05)
