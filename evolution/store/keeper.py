# -*- test-case-name: tests.store.test_writer, tests.store.test_faults -*-
"""Every write applied to the results database in order, or kept in the journal until it can be.

Offers ``Keeper(open_store, journal, report, rejected_path, now)``, the rules of the
store writer, run on one thread (the store process's, or the host's while it
starts), and ``describe(operation)`` (``game #7``, ``round 2 of tournament
#1`` ...) for log lines:

- ``start()`` takes up what the journal holds and applies what the database takes;
- ``write(operation)`` -> True once the database holds it, False once it is
  kept for later (in the journal, or in memory); ``write_all(operations)``,
  the same for each of several, in one transaction where the database takes
  them all (the store process commits in groups);
- ``retry()`` applies the waiting writes again; ``finish()`` once more,
  then reports what waits where; ``waiting``, the writes not taken yet;
- ``report(level, text)`` hears every line worth logging ("info", "warn",
  "error", "critical"): an outage of the database is a line when it begins
  (the first write it refused, and why), a line every ``OUTAGE_LINES``
  seconds while it lasts (how many writes wait, where) and one when it ends
  (how many it took, after how long); ``now()`` tells the time (seconds).

The rules (what goes to the journal, in what order, what is rejected):
docs/store.md, "Inside the store".
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Callable

from evolution.store import postgres
from evolution.store.journal import Journal, Operation, operation_text
from evolution.store.database import StoreError
from evolution.store.results_store import ResultsStore

Report = Callable[[str, str], None]
OUTAGE_LINES = 30.0  # seconds between the lines that say how many writes wait while the database refuses them


class Unavailable(Exception):
    """The database cannot take writes now (down, locked, full): they wait in the journal."""


def _unavailable() -> tuple[type[Exception], ...]:
    return (sqlite3.OperationalError, Unavailable, *postgres.unavailable())


def describe(operation: Operation) -> str:
    kind = operation["op"]
    if kind == "game":
        return f"game #{operation['game']['id']}"
    if kind == "tournament-begun":
        return f"the start of tournament #{operation['tournament']['id']}"
    if kind == "round-over":
        return f"round {operation['round']['round']} of tournament #{operation['tournament']}"
    if kind == "game-begun":
        return f"the start of game #{operation['id']}"
    if kind == "tournament-resumed":
        return f"the resumption of tournament #{operation['tournament']}"
    return f"the end of tournament #{operation['tournament']}"


class Keeper:
    """The database and its journal, written on one thread."""

    def __init__(
        self, open_store: Callable[[], ResultsStore], journal: Journal, report: Report, rejected_path: Path,
        now: Callable[[], float],
    ) -> None:
        self.open_store = open_store
        self.store: ResultsStore | None = None
        self.journal = journal
        self.report = report
        self.rejected_path = rejected_path
        self.waiting: list[Operation] = []  # not taken yet, in order; the journal holds the first `journaled`
        self.journaled = 0
        self._short_of_room = False
        self.now = now
        self._outage: tuple[float, float] | None = None  # while writes wait: (since when, when last said)
        self._taken = 0  # writes the database took since the outage began

    def start(self) -> None:
        try:
            self.store = self.open_store()  # now, while the disk may still have room for its -shm and -wal
        except StoreError:
            pass  # the first write tries again
        self.waiting = self.journal.read()
        self.journaled = len(self.waiting)
        if self.waiting:
            self.report("info", f"applying {len(self.waiting)} writes left in {self.journal.path}")
            self.drain()

    # -- writing ---------------------------------------------------------------------------

    def write(self, operation: Operation) -> bool:
        if self.waiting or self.journal.count:  # keep the order: behind what the journal holds
            self._keep(operation)
            rejected = self.drain()
            if any(waiting is operation for waiting in self.waiting):
                self._refused(operation, "earlier writes are still waiting")
                return False
            return not any(other is operation for other in rejected)
        try:
            self._apply(operation)
            return True
        except _unavailable() as error:
            self._lost_connection()
            self._keep(operation)
            self._refused(operation, " ".join(str(error).split()))
        except Exception as error:  # the database will never take it: do not let it block the rest
            self._reject(operation, error)
        return False

    def write_all(self, operations: list[Operation]) -> list[bool]:
        """``write`` each, in order: in one transaction where the database takes them all (one commit, however
        many), else one at a time (so that one it rejects holds back none of the others)."""
        if len(operations) > 1 and not (self.waiting or self.journal.count):
            try:
                self._apply_all(operations)
                return [True] * len(operations)
            except Exception:  # unavailable (each waits, below), or one it rejects (found below)
                self._lost_connection()
        return [self.write(operation) for operation in operations]

    def retry(self) -> None:
        """Apply the waiting writes again, in order, as far as the database takes them."""
        self.drain()

    def drain(self) -> list[Operation]:
        """Apply the waiting writes in order until one is refused; clear the journal once all are in.

        Returns the writes the database rejected for good (moved to the rejected file).
        """
        rejected = []
        while self.waiting:
            operation = self.waiting[0]
            try:
                self._apply(operation)
            except _unavailable() as error:
                self._lost_connection()
                self._refused(operation, " ".join(str(error).split()))
                break
            except Exception as error:
                self._reject(operation, error)
                rejected.append(operation)
            self.waiting.pop(0)
            self.journaled = max(0, self.journaled - 1)
            self._taken += 1
        if self.waiting:
            self._sync_journal()
            self._still_waiting()
        else:
            if self.journal.count:
                self._clear_journal()
            self._outage_over()
        return rejected

    def _still_waiting(self) -> None:
        """While an outage lasts, a line every OUTAGE_LINES s: how many writes wait, where, since when."""
        if self._outage is not None and self.now() - self._outage[1] >= OUTAGE_LINES:
            since = self._outage[0]
            self._outage = (since, self.now())
            self.report("warn", f"{len(self.waiting)} writes wait in {self._where()}: the results database has taken "
                        f"none for {self.now() - since:.0f} s; retrying")

    def _outage_over(self) -> None:
        if self._outage is not None:
            self.report("info", f"the results database took every waiting write ({self._taken}, "
                        f"after {self.now() - self._outage[0]:.0f} s)")
            self._outage = None

    def _apply(self, operation: Operation) -> None:
        self._apply_all([operation])

    def _apply_all(self, operations: list[Operation]) -> None:
        if self.store is None:
            try:
                self.store = self.open_store()
            except StoreError as error:  # a full disk, a missing file, a database down: it may pass
                raise Unavailable(str(error)) from None
        self.store.apply_all(operations)

    def _lost_connection(self) -> None:
        """A database that failed may have dropped the connection (PostgreSQL's): the next write opens another."""
        if self.store is not None and self.store.shared:
            try:
                self.store.close()
            except Exception:
                pass
            self.store = None

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None

    def _keep(self, operation: Operation) -> None:
        self.waiting.append(operation)
        self._sync_journal()

    def _sync_journal(self) -> None:
        """Append the waiting writes the journal does not hold yet."""
        if self.journaled >= len(self.waiting):
            return
        if self.journal.append(self.waiting[self.journaled:]):
            self.journaled = len(self.waiting)
            self._short_of_room = False
        elif not self._short_of_room:
            self._short_of_room = True
            self.report("critical", f"{self.journal.path} has no room left (the disk is full and its reserve used"
                        " up): writes are kept in memory until the database or the journal takes them")

    def _clear_journal(self) -> None:
        try:
            self.journal.clear()
        except OSError as error:  # the journal keeps writes applied already: later writes go behind them
            self.report("error", f"could not clear {self.journal.path} ({error.strerror}); writes go through it")

    # -- what cannot be stored ---------------------------------------------------------------

    def _where(self) -> str:
        return str(self.journal.path) if self.journaled >= len(self.waiting) else "memory only"

    def _refused(self, operation: Operation, reason: str) -> None:
        """The first write of an outage is said, with why; the later ones wait quietly behind it (``drain``)."""
        if self._outage is not None:
            return
        self._outage, self._taken = (self.now(), self.now()), 0
        kept = f"kept in {self.journal.path}" if self.journaled >= len(self.waiting) else "kept in memory only"
        self.report("error", f"the results database did not take {describe(operation)} ({reason}); {kept}, retrying")

    def _reject(self, operation: Operation, error: Exception) -> None:
        try:
            with open(self.rejected_path, "a", encoding="ascii") as rejected:
                rejected.write(operation_text({"error": str(error), "operation": operation}) + "\n")
        except OSError:
            pass
        self.report(
            "error",
            f"the results database rejected {describe(operation)} ({error}); it is kept in {self.rejected_path}",
        )

    def finish(self) -> None:
        """Apply what waits once more; report what is left, and where."""
        if self.waiting:
            self.drain()
        unkept = self.waiting[self.journaled:]
        for operation in unkept:
            self.report(
                "critical",
                f"could not keep {describe(operation)} anywhere (database and {self.journal.path} refused it);"
                f" here it is: {operation_text(operation)}",
            )
        if self.waiting and not unkept:
            self.report(
                "error",
                f"{len(self.waiting)} writes wait in {self.journal.path}; the next start with this --db applies them",
            )
