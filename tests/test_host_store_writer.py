"""The store never loses a game, and never holds the reactor: real games on loopback, a real database.

A database locked by another process, a full database, a name UTF-8 cannot
encode: in each case the game ends, its players are hung up, the host plays
on, and the record reaches the database (at once, on a retry, or from the
journal at the next start). The lock is held by another process, as it
would be in use; "full" is SQLite's own error, brought about with
``max_page_count``.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from twisted.internet import reactor
from twisted.internet.defer import gatherResults
from twisted.internet.endpoints import TCP4ClientEndpoint
from twisted.internet.protocol import Factory
from twisted.logger import globalLogPublisher
from twisted.trial import unittest

from evolution.host import store_writer
from evolution.host.records import RoundRecord
from evolution.host.store import GameRecord, ResultsStore, SeatRecord, game_operation, round_over
from evolution.host.store_writer import StoreWriter
from evolution.net.client import ClientProtocol, conversation
from evolution.games.evolution.rules.silly import SillyPlayer
from hosting import new_host, until

QUICK = ("--players", "3-3", "--timeout", "0.3", "--signup-window", "0.2")


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


def fill_to_the_brim(connection: sqlite3.Connection) -> None:
    """Let the database grow no more, and use up the room left in the pages a game is written to."""
    pages = connection.execute("PRAGMA page_count").fetchone()[0]
    connection.execute(f"PRAGMA max_page_count = {pages}")
    size, filler = 2048, FILLER_IDS
    while size >= 8:
        try:
            with connection:
                connection.execute(
                    "INSERT INTO games (id, started_at, ended_at, deck, turns, outcome) VALUES (?, '', '', '', 0, ?)",
                    (filler, "x" * size),
                )
                connection.execute("INSERT INTO players (game_id, seat, name) VALUES (?, 1, ?)", (filler, "x" * size))
                connection.execute("INSERT INTO game_logs VALUES (?, 1, ?)", (filler, b"x" * size))
            filler += 1
        except sqlite3.OperationalError:
            size //= 2


FILLER_IDS = 1_000_000


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
        host = new_host(self, *QUICK, busy_timeout_ms=1500, retry_delays=(0.2,))
        locker = Locker(host.options["db"])
        self.addCleanup(locker.release)
        # Game 1 ends while the lock is held: its write waits 1.5 s on the writer's thread.
        # Games 2 and 3 are played meanwhile with 0.3 s per answer: a reactor held by the
        # write would time their players out.
        records = await self.play_games(host, 3)
        self.assertTrue(all(seat.rank is not None for record in records for seat in record.players))
        await until(lambda: errors.lines)
        self.assertTrue(Path(host.options["db"] + ".pending").is_file())
        self.assertIn("the results database did not take game #1 (database is locked)", errors.lines[0])
        locker.release()
        await until(lambda: host.writer.waiting == 0)
        stored = (await host.stored()).games()
        self.assertEqual([game.id for game in stored], [1, 2, 3])
        self.assertEqual([game.players for game in stored], [record.players for record in records])
        self.assertFalse(Path(host.options["db"] + ".pending").exists())

    async def test_a_full_database_keeps_the_game_in_the_journal_until_it_has_room(self) -> None:
        errors = Errors(self)
        host = new_host(self, *QUICK, retry_delays=(0.1,))
        fill_to_the_brim(host.writer.store.connection)
        [record] = await self.play_games(host, 1)
        await until(lambda: errors.lines)
        self.assertIn("did not take game #1 (database or disk is full)", errors.lines[0])
        self.assertEqual(host.writer.waiting, 1)
        self.assertIsNone((await host.stored()).game(1))
        host.writer.store.connection.execute("PRAGMA max_page_count = 1000000")
        await until(lambda: host.writer.waiting == 0)
        self.assertEqual((await host.stored()).game(1), record)

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
        [stored] = ResultsStore(again.store.connection).games()
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


class JournalTests(unittest.TestCase):
    def new_store(self) -> Path:
        folder = Path(self.mktemp())
        folder.mkdir()
        db = folder / "results.sqlite"
        ResultsStore.open(db).close()
        return db

    def test_a_journal_that_cannot_be_rewritten_keeps_what_it_held(self) -> None:
        # The journal holds games 1 and 2; the database takes game 1 and refuses game 2, so the
        # journal is rewritten to hold game 2 alone; the disk fills up in the middle of that.
        db, game = self.new_store(), GAME
        operations = [game_operation(game.with_id(k), [[0, 1, "out", "ok"]]) for k in (1, 2)]
        journal = db.with_name(db.name + ".pending")
        journal.write_text("".join(json.dumps(operation) + "\n" for operation in operations), encoding="ascii")
        apply = ResultsStore.apply

        def refuse_game_2(store: ResultsStore, operation: dict) -> None:
            if operation["op"] == "game" and operation["game"]["id"] == 2:
                raise sqlite3.OperationalError("database is locked")
            apply(store, operation)

        class FullDisk:
            loads = staticmethod(json.loads)

            @staticmethod
            def dumps(*args, **kwargs):
                raise OSError(28, "No space left on device")

        self.patch(ResultsStore, "apply", refuse_game_2)
        self.patch(store_writer, "json", FullDisk)
        writer = StoreWriter(db, reactor)
        writer.open()
        self.assertEqual(writer.waiting, 1)
        held = [json.loads(line)["game"]["id"] for line in journal.read_text(encoding="ascii").splitlines()]
        self.assertIn(2, held)
        writer.store.close()
        ResultsStore.apply, store_writer.json = apply, json
        again = StoreWriter(db, reactor)
        again.open()
        self.addCleanup(again.close)
        self.assertEqual([stored.id for stored in again.store.games()], [1, 2])
        self.assertFalse(journal.exists())


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
        self.assertEqual([stored.id for stored in writer.store.games()], [1])
        self.assertEqual(writer.waiting, 0)
        [rejected] = db.with_name(db.name + ".rejected").read_text().splitlines()
        self.assertEqual(json.loads(rejected)["operation"], orphan)
        [line] = errors.lines
        self.assertIn("rejected round 1 of tournament #99 (FOREIGN KEY constraint failed)", line)


class RawNameClient(ClientProtocol):
    """A silly client whose sign-up is a JSON string with escapes UTF-8 cannot carry."""

    def __init__(self, name: str) -> None:
        super().__init__(conversation(name, SillyPlayer()))

    def connectionMade(self) -> None:
        super(ClientProtocol, self).connectionMade()
        escaped = "".join(f"\\u{ord(c):04x}" if ord(c) < 0x20 or 0xD800 <= ord(c) <= 0xDFFF else c for c in self.name)
        self.transport.write(f'"{escaped}"\n'.encode("utf-8"))
