"""Reading the results store for the web view, on a thread of its own.

Offers ``StoreReader(path, reactor)`` and ``Busy``:

- ``start()`` / ``stop()`` (the web service calls them);
- ``read(function, *args)``: runs ``function(store, *args)`` on the reader's
  one thread, with a read connection of its own (``ResultsStore``, opened
  there on first use), and fires on the reactor thread with the result.
  Reads keep their order. At most ``max_waiting`` reads wait at once; one
  more fails at once with ``Busy`` (the page answers 503 and the browser
  tries again later), so a flood of requests cannot queue unbounded work;

and the reads the pages need, each a handful of small queries:
``recent_games(store, limit, before)``, ``game_and_log(store, id)``,
``tournament_and_games(store, id)``, ``all_tournaments(store)``.

SQLite in WAL mode lets this connection read while the store writer's
thread writes; the reactor never waits on the disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, TypeVar

from twisted.internet.defer import Deferred, fail
from twisted.internet.threads import deferToThreadPool
from twisted.python.threadpool import ThreadPool

from evolution.host.records import GameRecord, TournamentRecord
from evolution.host.store import ResultsStore

T = TypeVar("T")
MAX_WAITING = 32


class Busy(Exception):
    """Too many reads are waiting; try again later."""


class StoreReader:
    def __init__(self, path: str | Path, reactor: Any, max_waiting: int = MAX_WAITING) -> None:
        self.path = Path(path)
        self.reactor = reactor
        self.max_waiting = max_waiting
        self.waiting = 0
        self.pool = ThreadPool(minthreads=1, maxthreads=1, name="evolution-web-reader")
        self._store: ResultsStore | None = None  # touched only on the pool's thread

    def start(self) -> None:
        self.pool.start()

    def stop(self) -> None:
        """Close the connection (after the reads under way) and stop the thread."""
        if self.pool.started:
            self.pool.callInThread(self._close)
            self.pool.stop()

    def _close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def _run(self, function: Callable[..., T], args: tuple) -> T:
        if self._store is None:
            self._store = ResultsStore.open(self.path)
        return function(self._store, *args)

    def read(self, function: Callable[..., T], *args: Any) -> Deferred[T]:
        if self.waiting >= self.max_waiting:
            return fail(Busy(f"{self.waiting} reads of the results store are waiting"))
        self.waiting += 1
        done = deferToThreadPool(self.reactor, self.pool, self._run, function, args)
        done.addBoth(self._one_done)
        return done

    def _one_done(self, result: Any) -> Any:
        self.waiting -= 1
        return result


# -- reads (on the reader's thread) -------------------------------------------------


def recent_games(store: ResultsStore, limit: int, before: int | None = None) -> list[GameRecord]:
    """The newest ``limit`` stored games with ids below ``before``, newest first."""
    return store.recent_games(limit, before)


def game_and_log(store: ResultsStore, game_id: int) -> tuple[GameRecord | None, list | None]:
    game = store.game(game_id)
    return game, (store.game_log(game_id) if game is not None else None)


def tournament_and_games(store: ResultsStore, tournament_id: int) -> tuple[TournamentRecord | None, list[GameRecord]]:
    tournament = store.tournament(tournament_id)
    return tournament, (store.games(tournament_id) if tournament is not None else [])


def all_tournaments(store: ResultsStore) -> list[TournamentRecord]:
    return store.tournaments()
