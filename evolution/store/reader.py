# -*- test-case-name: tests.web.test_model, tests.web.test_read_process, tests.store.test_faults -*-
"""Reading the results store for the web view, in a process of its own, with a time limit.

Offers ``StoreReader(path, reactor, program, max_waiting, read_limit)``,
``Busy``, ``Unanswered`` and ``Unreachable`` (each a ``Busy``: its message
is the sentence a page shows with its 503), and ``read_only(db)`` (the store as a web view
that plays no games opens it: a PostgreSQL one refuses it any write):

- ``start()`` / ``stop()`` (the web service calls them; ``stop()`` fires
  once the read process has ended, or after ``STOP_LIMIT`` seconds);
- ``read(name, *args)``: the read function ``name`` of the read process
  (``python -m PROGRAM DB``: the web view's is ``evolution.web.read_process``),
  firing on the reactor with the result; ``Busy`` when ``max_waiting`` wait
  already, ``Unanswered`` when a read is not answered within ``read_limit``
  seconds, ``Unreachable`` while the database cannot be reached (a PostgreSQL
  server down or restarting: the read process connects again at the next
  read; the log says so once, and again when it answers).

Why a process, and what a read may wait for: docs/store.md,
"Inside the store".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from twisted.internet.defer import Deferred, fail, succeed
from twisted.logger import Logger

from evolution.processes.child import ChildProcess
from evolution.store.postgres import is_url, shown

log = Logger()
MAX_WAITING = 32
READ_LIMIT = 5.0
STOP_LIMIT = 2.0  # seconds stop() waits for the read process to end (it ends by itself later if its disk hangs)


READ_ONLY = "options=-c%20default_transaction_read_only%3Don"  # libpq: every transaction of the session read-only


def read_only(db: str | Path) -> str | Path:
    """``db`` as a web view that plays no games (``twistd evolution --view-only``) opens it: a PostgreSQL URL whose
    sessions refuse every write, even to make or upgrade the store's tables (a host does that); an SQLite file as
    it is."""
    if not is_url(db):
        return db
    return f"{db}{'&' if '?' in str(db) else '?'}{READ_ONLY}"


class Busy(Exception):
    """Too many reads are waiting; try again later."""


class Unanswered(Busy):
    """The results store did not answer in time (its disk may hang); try again later."""


class Unreachable(Busy):
    """The results database cannot be reached now: ``Unreachable(why)``, shown to a page as one sentence."""

    SAID = "the results database cannot be reached now; try again in a moment"

    def __str__(self) -> str:
        return self.SAID

    @property
    def why(self) -> str:
        return str(self.args[0]) if self.args else ""


class StoreReader:
    def __init__(
        self, path: str | Path, reactor: Any, program: str, max_waiting: int = MAX_WAITING,
        read_limit: float = READ_LIMIT,
    ) -> None:
        self.path = str(path)  # a file, or a PostgreSQL URL
        self.reactor = reactor
        self.program = program
        self.max_waiting = max_waiting
        self.read_limit = read_limit
        self.running = False
        self.overdue_since: float | None = None
        self.unreachable_since: float | None = None
        self._child: ChildProcess | None = None
        self._calls: dict[int, tuple[Deferred, Any]] = {}  # number: (its Deferred, its time limit)
        self._count = 0

    @property
    def waiting(self) -> int:
        return len(self._calls)

    @property
    def pid(self) -> int | None:
        """The read process's id, while it runs."""
        return self._child.pid if self._child is not None else None

    @property
    def started(self) -> bool:
        """Whether the read process runs."""
        return self._child is not None

    def start(self) -> None:
        """Start the read process now (once the reactor runs), so the first page does not wait for it."""
        self.running = True
        self.reactor.callWhenRunning(self._warm)

    def _warm(self) -> None:
        if self.running and self._child is None:
            self._start_child()

    def stop(self) -> Deferred[bool]:
        """Fail the reads under way and end the read process; fires once it has ended, or after ``STOP_LIMIT`` s."""
        self.running = False
        for number in list(self._calls):
            self._fail(number, Unanswered("the web view is stopping"))
        child, self._child = self._child, None
        return child.finish(STOP_LIMIT) if child is not None else succeed(True)

    def read(self, name: str, *args: Any) -> Deferred[Any]:
        if self.overdue_since is not None:
            return fail(self._unanswered())
        if len(self._calls) >= self.max_waiting:
            return fail(Busy("the web view is busy; try again in a moment"))
        if self._child is None:
            self._start_child()
        self._count += 1
        done: Deferred = Deferred()
        self._calls[self._count] = (done, self.reactor.callLater(self.read_limit, self._overdue, self._count))
        self._child.send((self._count, name, args))
        return done

    def _start_child(self) -> None:
        child = ChildProcess(self.reactor, "read process", self.program, [str(self.path)],
                             self._answered)
        self._child = child
        child.start()
        child.ended.addCallback(self._ended, child)

    def _answered(self, message: tuple) -> None:
        number, ok, value = message
        if self.overdue_since is not None:
            log.info("the results store answers again, after {seconds:.1f} s",
                     seconds=self.reactor.seconds() - self.overdue_since)
            self.overdue_since = None
        entry = self._calls.pop(number, None)
        if entry is None:  # answered too late: its page was answered 503 already
            return
        done, limit = entry
        limit.cancel()
        self._reachable(ok, value)
        if ok:
            done.callback(value)
        else:
            done.errback(value)

    def _reachable(self, ok: bool, value: Any) -> None:
        """Say once that the database cannot be reached (and why), and once that it answers again."""
        if not ok and isinstance(value, Unreachable):
            if self.unreachable_since is None:
                self.unreachable_since = self.reactor.seconds()
                log.error("the web view cannot reach the results database ({why}); pages that need it answer 503 "
                          "until it can", why=value.why)
        elif ok and self.unreachable_since is not None:
            log.info("the web view reaches the results database again, after {seconds:.0f} s",
                     seconds=self.reactor.seconds() - self.unreachable_since)
            self.unreachable_since = None

    def _overdue(self, number: int) -> None:
        if self.overdue_since is None:
            self.overdue_since = self.reactor.seconds()
            log.error(
                "the results store has not answered a read within {limit:g} s (is the disk of {db} hung?);"
                " pages that need it answer 503 until it does",
                limit=self.read_limit, db=shown(self.path),
            )
        done, _limit = self._calls.pop(number)
        done.errback(self._unanswered())

    def _unanswered(self) -> Unanswered:
        return Unanswered(f"the results store has not answered within {self.read_limit:g} s; try again in a moment")

    def _fail(self, number: int, error: Exception) -> None:
        done, limit = self._calls.pop(number)
        if limit.active():
            limit.cancel()
        done.errback(error)

    def _ended(self, status: int, child: ChildProcess) -> None:
        if child is not self._child:
            return
        self._child = None
        if self._calls:
            log.error("the read process of the web view ended (status {status}); the next read starts another",
                      status=status)
        for number in list(self._calls):
            self._fail(number, RuntimeError("the read process ended"))
