"""The store never loses a game, and never holds the reactor: real games on loopback, a real database.

A database locked by another process, a full disk, a name UTF-8 cannot
encode: in each case the game ends, its players are hung up, the host plays
on, and the record reaches the database (at once, on a retry, or from the
journal at the next start). The lock is held by another process, as it
would be in use; the full disk is a small tmpfs the test fills (skipped
where it cannot mount one). The journal itself: ``JournalTests``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from twisted.internet import reactor
from twisted.internet.defer import gatherResults
from twisted.internet.endpoints import TCP4ClientEndpoint
from twisted.internet.protocol import Factory
from twisted.logger import globalLogPublisher
from twisted.trial import unittest

from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.net.client import ClientProtocol, conversation
from evolution.store.journal import Journal
from evolution.store.journal import held as journal_held
from evolution.store.operations import compressed_log, game_operation, round_over
from evolution.store.records import GameRecord, RoundRecord, SeatRecord
from evolution.store.results_store import ResultsStore
from evolution.store.writer import StoreWriter
from tests.support.disks import fill, small_tmpfs
from tests.support.hosting import ANSWER_LIMIT, new_host, until

QUICK = ("--players", "3-3", "--timeout", ANSWER_LIMIT)


class Locker:
    """Another process that holds the database's write lock until it is released."""

    def __init__(self, db: str) -> None:
        script = textwrap.dedent(
            f"""
            import sqlite3, sys
            connection = sqlite3.connect({db!r}, isolation_level=None)
            connection.execute("BEGIN IMMEDIATE")
            print("locked", flush=True)
            sys.stdin.readline()
            connection.execute("ROLLBACK")
            """
        )
        self.process = subprocess.Popen(
            [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout.readline().strip() == "locked"

    def release(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.write("\n")
            self.process.stdin.flush()
            self.process.wait(timeout=10)


def read(db: str | Path, query: Any) -> Any:
    store = ResultsStore.open(db)
    try:
        return query(store)
    finally:
        store.close()


class Errors:
    """The host's error log lines while a test runs."""

    def __init__(self, test: unittest.TestCase) -> None:
        self.lines: list[str] = []
        globalLogPublisher.addObserver(self._observe)
        test.addCleanup(globalLogPublisher.removeObserver, self._observe)

    def _observe(self, event: dict) -> None:
        level = event.get("log_level")
        if level is not None and level.name in ("error", "critical"):
            self.lines.append(event.get("log_format", "").format(**event))


class WriterTests(unittest.TestCase):
    timeout = 60

    async def play_games(self, host, count: int, name: str = "bot") -> list:
        for game in range(count):
            await gatherResults([host.client(f"{name} {game}.{i}") for i in range(3)])
        return await host.runner.when_games_over(count)

    async def test_a_locked_database_holds_neither_the_game_nor_the_reactor(self) -> None:
        errors = Errors(self)
        host = new_host(self, *QUICK, busy_timeout_ms=4000, retry_delays=(0.2,))
        locker = Locker(host.options["db"])
        self.addCleanup(locker.release)
        # Game 1 ends while the lock is held: its write waits 4 s in the store process.
        # Games 2 and 3 are played meanwhile with 3 s per answer: a reactor held by the
        # write would time their players out.
        records = await self.play_games(host, 3)
        self.assertTrue(all(seat.rank is not None for record in records for seat in record.players))
        await until(lambda: errors.lines)
        journal = host.writer.journal_path
        self.assertIn(1, [operation["game"]["id"] for operation in journal_held(journal) if operation["op"] == "game"])
        self.assertIn("the results database did not take the start of game #1 (database is locked)", errors.lines[0])
        locker.release()
        await until(lambda: host.writer.waiting == 0)
        stored = (await host.stored()).games()
        self.assertEqual([game.id for game in stored], [1, 2, 3])
        self.assertEqual([game.players for game in stored], [record.players for record in records])
        self.assertEqual(journal_held(journal), [])

    async def test_a_full_disk_keeps_every_game_in_the_reserved_journal_until_there_is_room(self) -> None:
        errors = Errors(self)
        disk = small_tmpfs(self, 24)
        host = new_host(self, *QUICK, folder=disk, retry_delays=(0.2,), reserve=4 * 2**20)
        filler = fill(disk)
        records = await self.play_games(host, 4)
        await until(lambda: host.writer.waiting == 8)  # each game's start (noted as running), and its end
        journal = host.writer.journal_path
        self.assertIn("the results database did not take the start of game #1 (", errors.lines[0])  # full, or I/O
        self.assertTrue(errors.lines[0].endswith(f"; kept in {journal}, retrying"), errors.lines[0])
        self.assertFalse([line for line in errors.lines if "memory" in line], errors.lines)
        self.assertEqual([operation["game"]["id"] for operation in journal_held(journal) if operation["op"] == "game"],
                         [1, 2, 3, 4])
        filler.unlink()
        await until(lambda: host.writer.waiting == 0)
        stored = (await host.stored()).games()
        self.assertEqual([(game.id, game.players) for game in stored], [(r.id, r.players) for r in records])
        self.assertEqual(journal_held(journal), [])
        self.assertEqual(sorted(path.name for path in disk.iterdir() if "pending" in path.name), [journal.name])

    async def test_the_journal_is_applied_at_the_next_start(self) -> None:
        host = new_host(self, *QUICK, busy_timeout_ms=200, retry_delays=(30,))
        locker = Locker(host.options["db"])
        self.addCleanup(locker.release)
        [record] = await self.play_games(host, 1)
        await until(lambda: host.writer.waiting == 1)
        await host.writer.close()  # the lock is still held: the game stays in the journal
        await host.writer.close()  # closing again changes nothing
        self.assertFalse(Path(host.options["db"] + ".rejected").exists())
        locker.release()
        again = StoreWriter(host.options["db"], reactor)
        again.open()
        self.addCleanup(again.close)
        self.assertEqual(again.waiting, 0)
        [stored] = read(host.options["db"], ResultsStore.games)
        self.assertEqual(stored, record)
        self.assertEqual(again.new_game_id(), 2)

    async def test_any_json_string_is_a_name_stored_as_sent_and_shown_escaped(self) -> None:
        host = new_host(self, *QUICK)
        evil = "\ud800 evil\x1b[2J\u202e"
        endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1", host.port)
        client = await endpoint.connect(Factory.forProtocol(lambda: RawNameClient(evil)))
        await gatherResults([client.done, host.client("good 1"), host.client("good 2")])
        [record] = await host.runner.when_games_over(1)
        self.assertEqual(record.outcome, "finished")
        [stored] = (await host.stored()).games()
        self.assertIn(evil, [seat.name for seat in stored.players])
        self.assertTrue(all(seat.rank is not None for seat in stored.players))


GAME = GameRecord("2026-01-01T00:00:00.000+00:00", "2026-01-01T00:00:01.000+00:00", "sorted", None, 1, "finished",
                  (SeatRecord(1, "a", 1, 1), SeatRecord(2, "b", 0, 2), SeatRecord(3, "c", 0, 2)))


def operation(game_id: int, log_text: str = "ok") -> dict:
    return json.loads(json.dumps(game_operation(GAME.with_id(game_id), [[0, 1, "out", log_text]])))


class JournalTests(unittest.TestCase):
    def new_store(self) -> Path:
        folder = Path(self.mktemp())
        folder.mkdir()
        db = folder / "results.sqlite"
        ResultsStore.open(db).close()
        return db

    def journal(self, path: Path, reserve: int = 1 << 16) -> Journal:
        journal = Journal(path, reserve)
        journal.open()
        self.addCleanup(journal.close)
        self.assertIsNone(journal.reserve_room())
        return journal

    def test_the_journal_reads_back_in_order_and_a_line_cut_short_ends_it(self) -> None:
        path = self.new_store().with_name("results.sqlite.pending")
        journal = self.journal(path)
        self.assertTrue(journal.append([operation(1), operation(2)]))
        self.assertTrue(journal.append([operation(3)]))
        os.pwrite(journal.fd, b"0123456789abcdef 3 {\"op\":\"ga", journal.end)  # a crash in the middle of a line
        self.assertEqual([held["game"]["id"] for held in journal_held(path)], [1, 2, 3])

    def test_what_a_cleared_journal_held_is_never_read_again(self) -> None:
        # Lines of the same length: the new first line ends exactly where the old second began.
        path = self.new_store().with_name("results.sqlite.pending")
        journal = self.journal(path)
        self.assertTrue(journal.append([operation(1, "a" * 20), operation(2), operation(3)]))
        journal.clear()
        self.assertTrue(journal.append([operation(4, "b" * 20)]))
        self.assertIn(b'"id":2', path.read_bytes())  # still on the disk: cleared is one zero byte
        self.assertEqual([held["game"]["id"] for held in journal_held(path)], [4])

    def test_a_log_compressed_already_comes_back_as_it_went_in_and_is_stored(self) -> None:
        # A worker process sends a game's log compressed (bytes): the journal holds it as text,
        # gives the bytes back, and the next start stores them as the game's log.
        db = self.new_store()
        path = db.with_name(db.name + ".pending")
        entries = [[0, 1, "out", "ok"], [1, 1, "in", "fine"]]
        blob = compressed_log(json.dumps(entries, separators=(",", ":")))
        journal = self.journal(path)
        self.assertTrue(journal.append([game_operation(GAME.with_id(1), blob)]))
        [held] = journal_held(path)
        self.assertEqual(held["log"], blob)
        journal.close()  # the lock: the writer below takes it
        writer = StoreWriter(db, reactor)
        writer.open()
        self.addCleanup(writer.close)
        self.assertEqual(read(db, lambda store: store.game_log(1)), entries)

    def test_a_reserve_used_up_on_a_full_disk_takes_nothing_until_there_is_room(self) -> None:
        disk = small_tmpfs(self, 4)
        journal = self.journal(disk / "r.sqlite.pending", reserve=1 << 14)
        filler = fill(disk)
        written = 0
        while journal.append([operation(written + 1, "x" * 1000)]):
            written += 1
        self.assertGreater(written, 4)  # the reserve held these
        self.assertEqual(len(journal_held(journal.path)), written)
        filler.unlink()
        self.assertTrue(journal.append([operation(written + 1)]))
        self.assertEqual(len(journal_held(journal.path)), written + 1)

    def test_a_journal_of_an_older_host_is_applied_at_start(self) -> None:
        # Plain JSON lines, as hosts wrote it before the reserve.
        db = self.new_store()
        journal = db.with_name(db.name + ".pending")
        journal.write_text("".join(json.dumps(operation(k)) + "\n" for k in (1, 2)), encoding="ascii")
        db.with_name(db.name + ".pending.new").write_bytes(b"")  # what a full disk left behind then
        writer = StoreWriter(db, reactor)
        writer.open()
        self.addCleanup(writer.close)
        self.assertEqual([stored.id for stored in read(db, ResultsStore.games)], [1, 2])
        self.assertEqual((writer.waiting, journal_held(journal)), (0, []))
        self.assertEqual(writer.new_game_id(), 3)
        self.assertEqual(sorted(path.name for path in db.parent.glob("*.pending*")), [journal.name])

    def test_a_write_the_database_never_takes_is_set_aside_and_logged(self) -> None:
        # A round of a tournament the database does not hold breaks a foreign key: it must
        # neither block the game behind it nor go unreported.
        errors = Errors(self)
        db, game = self.new_store(), GAME
        orphan = json.loads(json.dumps(round_over(99, RoundRecord(1, "", "", "a round of nothing"), [])))
        journal = db.with_name(db.name + ".pending")
        journal.write_text(json.dumps(orphan) + "\n" + json.dumps(game_operation(game.with_id(1))) + "\n")
        writer = StoreWriter(db, reactor)
        writer.open()
        self.addCleanup(writer.close)
        self.assertEqual([stored.id for stored in read(db, ResultsStore.games)], [1])
        self.assertEqual(writer.waiting, 0)
        [rejected] = db.with_name(db.name + ".rejected").read_text().splitlines()
        self.assertEqual(json.loads(rejected)["operation"], orphan)
        [line] = errors.lines
        self.assertIn("rejected round 1 of tournament #99 (FOREIGN KEY constraint failed)", line)


class RawNameClient(ClientProtocol):
    """A silly client whose sign-up is a JSON string with escapes UTF-8 cannot carry."""

    def __init__(self, name: str) -> None:
        super().__init__(conversation("stand-in", SillyPlayer()))  # a client refuses such a name (not UTF-8 text)
        self.name = name  # written by hand, below

    def connectionMade(self) -> None:
        super(ClientProtocol, self).connectionMade()
        escaped = "".join(f"\\u{ord(c):04x}" if ord(c) < 0x20 or 0xD800 <= ord(c) <= 0xDFFF else c for c in self.name)
        self.transport.write(f'"{escaped}"\n'.encode("utf-8"))
