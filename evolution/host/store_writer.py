"""Writing to the results store off the reactor thread, and never losing a write.

Offers ``StoreWriter``. ``open()`` (at start-up, before the reactor runs)
opens the database, first applies what the journal of an earlier run still
holds, marks tournaments a killed host left running as interrupted, and
numbers games and tournaments on from there. ``write(operation)`` (an
operation of ``evolution.host.store``) returns a ``Deferred`` that fires on
the reactor thread with ``True`` once the database holds the write, or
``False`` once the write is kept in the journal for later; it never fails.
``close()`` waits for the writes under way, tries the journal once more and
closes.

One thread of its own runs every database call, so a slow disk, a lock held
by another process (SQLite waits up to ``busy_timeout`` for it) or a long
commit never holds the reactor. Writes keep their order.

Never lost. When the database refuses a write for a reason that may pass
(locked, full, I/O error), the write goes to the journal, a file of JSON
lines beside the database (``<db>.pending``, synced to disk), and so does
every later write while the journal is not empty (order matters: a game
refers to its tournament). The writer retries the journal with growing
pauses and logs an error for each refusal; a later start applies what is
left. If even the journal cannot be written (a full disk), the write stays
in memory until one of them takes it, and ``close()`` logs what could not
be kept at all. A write the database will never take (a bug: it breaks a
constraint) is moved to ``<db>.rejected`` with the reason and logged, so it
cannot block the writes behind it.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from twisted.internet.defer import Deferred, succeed
from twisted.internet.threads import deferToThreadPool
from twisted.logger import Logger
from twisted.python.threadpool import ThreadPool

from evolution.host.database import BUSY_TIMEOUT_MS, connect
from evolution.host.store import Operation, ResultsStore, operation_text

log = Logger()

RETRY_DELAYS = (1.0, 2.0, 5.0, 10.0, 30.0)


def _describe(operation: Operation) -> str:
    kind = operation["op"]
    if kind == "game":
        return f"game #{operation['game']['id']}"
    if kind == "tournament-begun":
        return f"the start of tournament #{operation['tournament']['id']}"
    if kind == "round-over":
        return f"round {operation['round']['round']} of tournament #{operation['tournament']}"
    return f"the end of tournament #{operation['tournament']}"


class StoreWriter:
    """The results database, written on a thread of its own through a journal that keeps every write."""

    def __init__(
        self,
        path: str | Path,
        reactor: Any,
        retry_delays: tuple[float, ...] = RETRY_DELAYS,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    ) -> None:
        self.path = Path(path)
        self.journal_path = self.path.with_name(self.path.name + ".pending")
        self.rejected_path = self.path.with_name(self.path.name + ".rejected")
        self.reactor = reactor
        self.retry_delays = retry_delays
        self.busy_timeout_ms = busy_timeout_ms
        self.store: ResultsStore | None = None
        self.interrupted: list[int] = []
        self._waiting: list[Operation] = []  # refused so far, in order; the journal mirrors it
        self._journaled = 0  # how many of them the journal file holds
        self._next_game = self._next_tournament = 1
        self._pool = ThreadPool(1, 1, name="evolution-store")
        self._retry: Any = None
        self._failures = 0
        self._pending: set[Deferred] = set()
        self._closing = False
        self._rejections: list[tuple[Operation, str]] = []  # moved to <db>.rejected, not logged yet

    # -- start and stop ------------------------------------------------------------------

    def open(self) -> None:
        """Open the database and bring it up to date with the journal; raises ``StoreError``."""
        self.store = ResultsStore(connect(self.path, self.busy_timeout_ms), self.path)
        self._waiting = self._read_journal()
        self._journaled = len(self._waiting)
        if self._waiting:
            log.info("applying {count} writes left in {journal}", count=len(self._waiting), journal=self.journal_path)
            self._drain()
            self._report_rejections()
        self.interrupted = self.store.mark_interrupted()
        self._next_game, self._next_tournament = self._first_free_ids()

    def _start_thread(self) -> None:
        """Start the writer's thread on the first write (a host that fails to listen never starts it)."""
        if not self._pool.started:
            self._pool.start()
            self.reactor.addSystemEventTrigger("during", "shutdown", self._stop_thread)

    def _stop_thread(self) -> None:
        if self._pool.started:
            self._pool.stop()

    def close(self) -> Deferred[None]:
        """Wait for the writes under way, try the journal once more, close the database (once)."""
        if self.store is None or self._closing:
            return succeed(None)
        self._closing = True
        if self._retry is not None and self._retry.active():
            self._retry.cancel()

        def finish(_: Any) -> None:
            self._stop_thread()
            if self._waiting:
                self._drain()
            self._report_rejections()
            self._report_unkept()
            if self.store is not None:
                self.store.close()
                self.store = None

        return self.idle().addCallback(finish)

    # -- ids -----------------------------------------------------------------------------

    def _first_free_ids(self) -> tuple[int, int]:
        game, tournament = self.store.next_ids()
        for operation in self._waiting:
            if operation["op"] == "game":
                game = max(game, operation["game"]["id"] + 1)
            elif operation["op"] == "tournament-begun":
                tournament = max(tournament, operation["tournament"]["id"] + 1)
        return game, tournament

    def new_game_id(self) -> int:
        game_id, self._next_game = self._next_game, self._next_game + 1
        return game_id

    def new_tournament_id(self) -> int:
        tournament_id, self._next_tournament = self._next_tournament, self._next_tournament + 1
        return tournament_id

    # -- writing ---------------------------------------------------------------------------

    def write(self, operation: Operation) -> Deferred[bool]:
        """Store ``operation`` on the writer's thread; fires True (stored) or False (kept for later)."""
        if self.store is None:
            raise RuntimeError("the results store is not open")
        self._start_thread()
        d = deferToThreadPool(self.reactor, self._pool, self._write, operation)
        self._pending.add(d)
        d.addBoth(self._written, d, operation)
        return d

    def _written(self, outcome: Any, d: Deferred, operation: Operation) -> bool:
        self._pending.discard(d)
        self._report_rejections()
        if not isinstance(outcome, tuple):  # an error on the writer's thread: keep nothing back
            log.failure("writing {what} failed", outcome, what=_describe(operation))
            return False
        stored, reason = outcome
        if reason is not None:
            self._refused(operation, reason)
        return stored

    def _write(self, operation: Operation) -> tuple[bool, str | None]:
        """On the writer's thread: store, or keep in the journal; answer (stored, why it waits, if it does)."""
        if self._waiting:  # keep the order: this write goes behind the waiting ones
            self._keep(operation)
            rejected = self._drain()
            if any(waiting is operation for waiting in self._waiting):
                return False, "earlier writes are still waiting"
            return not any(other is operation for other in rejected), None
        try:
            self.store.apply(operation)
            return True, None
        except sqlite3.OperationalError as error:
            self._keep(operation)
            return False, str(error)
        except Exception as error:  # the database will never take it: do not let it block the rest
            self._reject(operation, error)
            return False, None

    def _keep(self, operation: Operation) -> None:
        self._waiting.append(operation)
        self._sync_journal()

    def _drain(self) -> list[Operation]:
        """Apply the waiting writes in order until one is refused; rewrite the journal to match.

        Returns the writes the database rejected for good (moved to the rejected file).
        """
        rejected: list[Operation] = []
        if self.store is None:
            return rejected
        while self._waiting:
            operation = self._waiting[0]
            try:
                self.store.apply(operation)
            except sqlite3.OperationalError:
                break
            except Exception as error:
                self._reject(operation, error)
                rejected.append(operation)
            self._waiting.pop(0)
            self._journaled = max(0, self._journaled - 1)
        self._sync_journal(rewrite=True)
        return rejected

    # -- the journal ------------------------------------------------------------------------

    def _read_journal(self) -> list[Operation]:
        try:
            lines = self.journal_path.read_text(encoding="ascii").splitlines()
        except FileNotFoundError:
            return []
        operations = []
        for line in lines:
            try:
                operations.append(json.loads(line))
            except ValueError:  # a line cut short by a crash while it was written
                log.warn("skipping a damaged line of {journal}", journal=self.journal_path)
        return operations

    def _sync_journal(self, rewrite: bool = False) -> None:
        """Make the journal file hold exactly the waiting writes (appending when it can)."""
        try:
            if rewrite or self._journaled > len(self._waiting):
                if not self._waiting:
                    self.journal_path.unlink(missing_ok=True)
                    self._journaled = 0
                    return
                # A new file put in place of the old one: never a journal cut short by a crash
                # or a full disk in the middle of rewriting it (the old one holds the waiting
                # writes, and maybe some stored since, which a second apply leaves unchanged).
                fresh = self.journal_path.with_name(self.journal_path.name + ".new")
                self._write_lines(fresh, self._waiting, "w")
                os.replace(fresh, self.journal_path)
                self._journaled = len(self._waiting)
            elif self._journaled < len(self._waiting):
                self._write_lines(self.journal_path, self._waiting[self._journaled:], "a")
                self._journaled = len(self._waiting)
        except OSError:
            pass  # kept in memory; _refused reports it, close() logs what is still unkept

    @staticmethod
    def _write_lines(path: Path, operations: list[Operation], mode: str) -> None:
        with open(path, mode, encoding="ascii") as journal:
            for operation in operations:
                journal.write(operation_text(operation) + "\n")
            journal.flush()
            os.fsync(journal.fileno())

    def _reject(self, operation: Operation, error: Exception) -> None:
        self._rejections.append((operation, str(error)))  # logged on the reactor thread
        try:
            with open(self.rejected_path, "a", encoding="ascii") as rejected:
                rejected.write(operation_text({"error": str(error), "operation": operation}) + "\n")
        except OSError:
            pass

    # -- on the reactor thread: report and retry --------------------------------------------------

    def _report_rejections(self) -> None:
        while self._rejections:
            operation, reason = self._rejections.pop(0)
            log.error(
                "the results database rejected {what} ({reason}); it is kept in {file}",
                what=_describe(operation), reason=reason, file=self.rejected_path,
            )

    def _refused(self, operation: Operation, reason: str) -> None:
        kept = f"kept in {self.journal_path}" if self._journaled >= len(self._waiting) else "kept in memory only"
        log.error(
            "the results database did not take {what} ({reason}); {kept}, retrying",
            what=_describe(operation), reason=reason, kept=kept,
        )
        self._schedule_retry()

    def _schedule_retry(self) -> None:
        if self._closing or (self._retry is not None and self._retry.active()):
            return
        delay = self.retry_delays[min(self._failures, len(self.retry_delays) - 1)]
        self._failures += 1
        self._retry = self.reactor.callLater(delay, self._try_again)

    def _try_again(self) -> None:
        self._retry = None
        self._start_thread()
        d = deferToThreadPool(self.reactor, self._pool, self._drain_and_count)
        self._pending.add(d)
        d.addBoth(self._retried, d)

    def _drain_and_count(self) -> int:
        self._drain()
        return len(self._waiting)

    def _retried(self, remaining: Any, d: Deferred) -> None:
        self._pending.discard(d)
        self._report_rejections()
        if remaining == 0:
            log.info("the results database took every waiting write")
            self._failures = 0
        else:
            self._schedule_retry()

    def _report_unkept(self) -> None:
        unkept = self._waiting[self._journaled:]
        for operation in unkept:
            log.critical(
                "could not keep {what} anywhere (database and {journal} refused it); here it is: {data}",
                what=_describe(operation), journal=self.journal_path, data=operation_text(operation),
            )
        if self._waiting and not unkept:
            log.error(
                "{count} writes wait in {journal}; the next start with this --db applies them",
                count=len(self._waiting), journal=self.journal_path,
            )

    def idle(self) -> Deferred[None]:
        """Fires once every write handed over so far is done (stored, or kept in the journal)."""
        pending = list(self._pending)
        if not pending:
            return succeed(None)
        done: Deferred = Deferred()
        left = [len(pending)]

        def one_done(result: Any) -> Any:
            left[0] -= 1
            if left[0] == 0:
                done.callback(None)
            return result

        for d in pending:
            d.addBoth(one_done)
        return done

    @property
    def waiting(self) -> int:
        """How many writes the database has not taken yet."""
        return len(self._waiting)
