"""Writing to the results store from the reactor, through a process of its own, and never losing a write.

Offers ``StoreWriter``: ``open()`` (at start-up, before the reactor runs: the
lock, the journal's room, the database, what an earlier run left; problems
are one ``StoreError``); ``write(operation)`` (an operation of
``evolution.store.results_store``), a ``Deferred`` that fires with ``True``
once the database holds the write, or ``False`` once it is kept for later,
and never fails; ``idle()``, which fires once every write handed over so far
is done; ``waiting``, the writes the database has not taken yet; ``close()``,
which ends the store process and waits for it, ``stop_limit`` seconds at
most.

Every write is done by the store process (``evolution.store.writer_process``).
Why, and how no write is lost: docs/store.md, "Inside the store".
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from twisted.internet.defer import Deferred, succeed
from twisted.logger import Logger, LogLevel

from evolution.processes.child import ChildProcess
from evolution.store import postgres
from evolution.store.database import BUSY_TIMEOUT_MS, StoreError, check_path
from evolution.store.journal import LOCK_WAIT, RESERVE, InUse, Journal, operation_text
from evolution.store.operations import Operation
from evolution.store.results_store import ResultsStore
from evolution.store.keeper import Keeper, describe
from evolution.store.sql_dialects import dialect_of

log = Logger()
KILLED = "its host stopped before it did (killed?): found at the host's next start"

RETRY_DELAYS = (1.0, 2.0, 5.0, 10.0, 30.0)
STOP_LIMIT = 5.0  # seconds close() waits for the store process before the host goes on stopping
RESTART_DELAY = 1.0
JOURNAL_FD = 3
LEVELS = {"info": LogLevel.info, "warn": LogLevel.warn, "error": LogLevel.error, "critical": LogLevel.critical}


def _log_line(level: str, text: str) -> None:
    log.emit(LEVELS.get(level, LogLevel.error), "{text}", text=text)


class StoreWriter:
    """The results database, written by a child process through a journal that keeps every write."""

    def __init__(
        self,
        path: str | Path,
        reactor: Any,
        retry_delays: tuple[float, ...] = RETRY_DELAYS,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        reserve: int = RESERVE,
        stop_limit: float = STOP_LIMIT,
        lock_wait: float = LOCK_WAIT,
        host: str | None = None,
        journal: str | Path | None = None,
    ) -> None:
        self.db = str(path)
        self.shared = dialect_of(self.db).shared  # PostgreSQL: several hosts may write it
        self.path = Path(path) if not self.shared else None
        self.host = host
        self.journal_path = Path(journal) if journal is not None else default_journal(self.db, host)
        self.rejected_path = self.journal_path.with_name(self.journal_path.name.removesuffix(".pending") + ".rejected")
        self.reactor = reactor
        self.retry_delays = retry_delays
        self.busy_timeout_ms = busy_timeout_ms
        self.reserve = reserve
        self.stop_limit = stop_limit
        self.lock_wait = lock_wait
        self.interrupted: list[int] = []  # the tournaments a killed host left running, marked interrupted
        self.aborted: list[int] = []  # the games it was playing, stored as aborted
        self.journal: Journal | None = None
        self._child: ChildProcess | None = None
        self._unconfirmed: dict[int, tuple[Operation, Deferred[bool]]] = {}  # handed over, in order
        self._handed = 0  # writes handed over so far (each numbered)
        self._idle_waiters: list[tuple[int, Deferred[None]]] = []
        self._waiting = 0
        self._next_game = self._next_tournament = 1
        self._block_ends = 0  # with a PostgreSQL store: the end of this host's block of ids (reserve_block)
        self._closing = False
        self._closed = False
        self._name: Any = None  # with a PostgreSQL store: the connection that holds this host's name

    # -- start ----------------------------------------------------------------------------

    def open(self) -> None:
        """Lock, reserve, open and bring the database up to date with the journal; raises ``StoreError``."""
        if self.path is not None:
            check_path(self.path)  # before anything is made beside it
        journal = Journal(self.journal_path, self.reserve)
        try:
            journal.open(self.lock_wait)
        except InUse as error:
            raise StoreError(str(error)) from None
        except OSError as error:
            raise StoreError(f"cannot open the journal {self.journal_path}: {error.strerror}") from None
        try:
            self._bring_up_to_date(journal)
        except BaseException:
            journal.close()
            if self._name is not None:
                self._name.close()
                self._name = None
            raise
        self.journal = journal

    def _bring_up_to_date(self, journal: Journal) -> None:
        # Older hosts rewrote their journal through <db>.pending.new and a rename; one a full disk or a
        # crash left behind holds nothing the journal does not (the rename came last): not needed.
        self.journal_path.with_name(self.journal_path.name + ".new").unlink(missing_ok=True)
        problem = journal.reserve_room()
        if problem is not None:
            raise StoreError(self._no_reserve(problem))
        if self.shared and self.host is not None:
            self._name = postgres.hold_name(self.db, self.host)  # before its games are aborted by that name
        store = ResultsStore.open(self.db, self.busy_timeout_ms)
        try:
            keeper = Keeper(lambda: store, journal, _log_line, self.rejected_path, self.reactor.seconds)
            keeper.start()
            self.interrupted = store.mark_interrupted(self.host)
            self.aborted = store.abort_running(self.host, KILLED)
            if self.shared:
                self._next_game = self._next_tournament = postgres.reserve_block(store.connection)
                self._block_ends = self._next_game + postgres.BLOCK
            else:
                self._next_game, self._next_tournament = _first_free_ids(store, keeper.waiting)
            self._waiting = len(keeper.waiting)
        except (sqlite3.Error, *postgres.unavailable()) as error:  # locked, or gone, for longer than we wait
            raise StoreError(f"cannot use the results database {postgres.shown(self.db)}: {error}") from None
        finally:
            store.close()

    def _no_reserve(self, problem: str) -> str:
        """Why the host does not start where the journal's reserve cannot be had, and what to do."""
        try:
            stats = os.statvfs(self.journal_path.parent)
            free = stats.f_bavail * stats.f_frsize
        except OSError:
            free = 0
        fits = free // 2**20 // 2  # half of what is free: the database needs room too
        advice = (f", or give --journal-reserve {fits} (MiB, each about 50 games of 8 players)" if fits >= 1
                  else ": that disk is full")
        return (f"cannot reserve {self.reserve / 2**20:g} MiB for the journal {self.journal_path} ({problem}; "
                f"{free / 2**20:.1f} MiB free there): with the disk full, finished games could be lost. Free some "
                f"room there{advice}")

    # -- ids --------------------------------------------------------------------------------

    def new_game_id(self) -> int:
        self._in_block(self._next_game)
        game_id, self._next_game = self._next_game, self._next_game + 1
        return game_id

    def new_tournament_id(self) -> int:
        self._in_block(self._next_tournament)
        tournament_id, self._next_tournament = self._next_tournament, self._next_tournament + 1
        return tournament_id

    def _in_block(self, next_id: int) -> None:
        """With a PostgreSQL store, this host's ids come from a block of its own: at its end, another one."""
        if not self.shared or next_id < self._block_ends:
            return
        try:
            store = ResultsStore.open(self.db, self.busy_timeout_ms)
            try:
                start = postgres.reserve_block(store.connection)
            finally:
                store.close()
        except (StoreError, *postgres.unavailable()) as error:
            log.critical("this host has used its block of ids and cannot reserve another ({error}); it goes on "
                         "beyond it, which another host may use too", error=str(error))
            self._block_ends = next_id + postgres.BLOCK
            return
        self._next_game = self._next_tournament = start
        self._block_ends = start + postgres.BLOCK

    # -- writing ------------------------------------------------------------------------------

    def write(self, operation: Operation) -> Deferred[bool]:
        """Store ``operation`` in the store process; fires True (stored) or False (kept for later)."""
        if self.journal is None or self._closing:
            raise RuntimeError("the results store is not open")
        self._handed += 1
        done: Deferred[bool] = Deferred()
        self._unconfirmed[self._handed] = (operation, done)
        if self._child is None:
            self._start_child()  # it is handed every unconfirmed write, this one too
        else:
            self._child.send(("write", self._handed, operation))
        return done

    def start(self) -> None:
        """Start the store process (else it starts with the first write); once the reactor runs."""
        if self._child is None and self.journal is not None and not self._closing:
            self._start_child()

    def _start_child(self) -> None:
        args = [
            self.db, "--journal", str(self.journal_path), "--rejected", str(self.rejected_path),
            "--journal-fd", str(JOURNAL_FD), "--reserve", str(self.reserve),
            "--busy-timeout-ms", str(self.busy_timeout_ms), "--retry-delays", ",".join(map(str, self.retry_delays)),
        ] + (["--host", self.host] if self.host is not None else [])
        child = ChildProcess(self.reactor, "store process", "evolution.store.writer_process", args, self._heard,
                             descriptors={JOURNAL_FD: self.journal.fd})
        self._child = child
        child.start()
        child.ended.addCallback(self._ended, child)
        for number, (operation, _) in self._unconfirmed.items():
            child.send(("write", number, operation))

    def _heard(self, message: tuple) -> None:
        kind = message[0]
        if kind == "done":
            _, number, stored, self._waiting = message
            entry = self._unconfirmed.pop(number, None)
            if entry is not None:
                entry[1].callback(stored)
            self._wake()
        elif kind == "waiting":
            self._waiting = message[1]
        elif kind == "log":
            _log_line(message[1], message[2])

    def _ended(self, status: int, child: ChildProcess) -> None:
        if child is not self._child:
            return
        self._child = None
        if self._closing or not self._unconfirmed:
            return
        log.error(
            "the store process ended (status {status}) before confirming {count} writes; another takes them over",
            status=status, count=len(self._unconfirmed),
        )
        self.reactor.callLater(RESTART_DELAY, self._restart)

    def _restart(self) -> None:
        if self._child is None and not self._closing and self._unconfirmed:
            self._start_child()

    # -- waiting ------------------------------------------------------------------------------

    def idle(self) -> Deferred[None]:
        """Fires once every write handed over so far is done (stored, or kept for later)."""
        if not self._unconfirmed:
            return succeed(None)
        waiter: Deferred[None] = Deferred()
        self._idle_waiters.append((self._handed, waiter))
        return waiter

    def _wake(self) -> None:
        """Fire the idle() waiters whose writes are all done."""
        first = min(self._unconfirmed, default=self._handed + 1)
        ready = [entry for entry in self._idle_waiters if entry[0] < first]
        for entry in ready:
            self._idle_waiters.remove(entry)
            entry[1].callback(None)

    @property
    def waiting(self) -> int:
        """How many writes the database has not taken yet (in the journal, or in the store process's memory)."""
        return self._waiting

    # -- stop ---------------------------------------------------------------------------------

    def close(self) -> Deferred[None]:
        """End the store process and wait for it to finish, at most ``stop_limit`` seconds (once)."""
        if self.journal is None or self._closing:
            return succeed(None)
        self._closing = True
        if self._child is None and self._unconfirmed:
            self._start_child()  # the last one died: one more takes the writes it left
        child = self._child
        if child is None:
            self._release()
            return succeed(None)
        return child.finish(self.stop_limit).addCallback(self._finished, child)

    def _finished(self, exited: bool, child: ChildProcess) -> None:
        if exited:
            self._report_unconfirmed()
        else:
            log.error(
                "the store process (pid {pid}) has not finished within {limit:g} s (is the disk of {db} hung?):"
                " {count} writes are not confirmed; it goes on by itself and keeps them, in the database or in"
                " {journal}, when the disk answers; a host started on this --db meanwhile waits for it",
                pid=child.pid, limit=self.stop_limit, db=postgres.shown(self.db), count=len(self._unconfirmed),
                journal=self.journal_path,
            )
            for _operation, done in self._unconfirmed.values():
                done.callback(False)
            self._unconfirmed.clear()
        self._release()

    def _report_unconfirmed(self) -> None:
        """The store process ended without confirming these: say what they were (the last resort)."""
        for operation, done in self._unconfirmed.values():
            log.critical(
                "the store process ended before keeping {what}; here it is: {data}",
                what=describe(operation), data=operation_text(operation),
            )
            done.callback(False)
        self._unconfirmed.clear()

    def _release(self) -> None:
        self._wake()
        name, self._name = self._name, None
        if name is not None:
            name.close()
        if self.journal is not None:
            self.journal.close()  # the lock stays with a store process that still runs
            self.journal = None


def _first_free_ids(store: ResultsStore, waiting: list[Operation]) -> tuple[int, int]:
    game, tournament = store.next_ids()
    for operation in waiting:
        if operation["op"] == "game":
            game = max(game, operation["game"]["id"] + 1)
        elif operation["op"] == "tournament-begun":
            tournament = max(tournament, operation["tournament"]["id"] + 1)
    return game, tournament


def default_journal(db: str, host: str | None) -> Path:
    """Where a store's journal is kept: ``<db>.pending`` beside an SQLite file; for a PostgreSQL store, on this
    host's disk, named after the host (several hosts of one machine each keep their own)."""
    if not postgres.is_url(db):
        return Path(db).with_name(Path(db).name + ".pending")
    name = "".join(char if char.isalnum() or char in "-._" else "-" for char in (host or "host"))
    return Path(f"evolution-{name}.pending")
