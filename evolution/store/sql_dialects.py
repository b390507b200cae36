# -*- test-case-name: tests.store.test_sql_dialects, tests.store.test_results_store -*-
"""What the results store asks of its database where SQLite and PostgreSQL differ: a dialect object each.

Offers ``Dialect`` (the questions: ``name``; ``shared``, whether several hosts write the store;
``for_update``, the clause that locks the ladder's rows a transaction reads; ``connect(db, busy_timeout_ms)``,
how it opens, created or upgraded; ``group(connection)``, how a group of writes is sent: one transaction,
pipelined on PostgreSQL; ``found(db)``, whether a store is there to read), ``SQLITE`` and ``POSTGRESQL``
(the answers), ``dialect_of(db)`` (a store's, from its ``--db``), ``dialect_for(connection)`` (an open
connection's) and ``open_database(db)``. ``ResultsStore`` and ``Accounts`` ask their dialect rather than
branch on the database.

The store's modules import one way: ``database`` (SQLite's, and what both share) <- ``postgres`` <- this
module <- ``results_store``, ``accounts``, ``writer`` (``tests/test_architecture.py`` checks: no cycle).
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, ContextManager, Iterator, Protocol

from evolution.store import database, postgres


class Dialect(Protocol):
    """What ``ResultsStore`` asks of its database."""

    name: str
    shared: bool  # several hosts may write it: each minds its own running games, tournaments, ids and name
    for_update: str  # appended to a SELECT of the ladder's rows (``l``): locks them until the transaction ends

    def connect(self, db: str | Path, busy_timeout_ms: int) -> Any:
        """A connection to the store ``db`` at the current version (made or upgraded); ``StoreError`` if not."""

    def group(self, connection: Any) -> ContextManager[Any]:
        """A group of writes sent in one transaction: all of them, or none."""

    def found(self, db: str | Path) -> bool:
        """Whether a store may be there to read (without opening it: reading must not make one)."""


class _SQLite:
    """An SQLite file: one host writes it, one writer at a time (its lock is the whole file's)."""

    name = "SQLite"
    shared = False
    for_update = ""  # SQLite's one writer locks the whole file

    def connect(self, db: str | Path, busy_timeout_ms: int) -> Any:
        return database.connect(db, busy_timeout_ms)

    def group(self, connection: Any) -> ContextManager[Any]:
        return connection  # a sqlite3.Connection's ``with``: one transaction

    def found(self, db: str | Path) -> bool:
        return Path(db).is_file()


class _PostgreSQL:
    """A PostgreSQL database several hosts write at once, through psycopg 3 (``evolution.store.postgres``)."""

    name = "PostgreSQL"
    shared = True
    for_update = " FOR UPDATE OF l"  # another host may be rating the same bots: their rows locked, in name order

    def connect(self, db: str | Path, busy_timeout_ms: int) -> Any:
        return postgres.connect(str(db), busy_timeout_ms / 1000)

    @contextmanager
    def group(self, connection: Any) -> Iterator[Any]:
        """One transaction, its statements pipelined (``PgConnection.pipelined``): sent without waiting for each
        answer, so that a ladder game costs two round trips where it cost about ten."""
        with connection.pipelined(), connection:
            yield connection

    def found(self, db: str | Path) -> bool:
        return True  # connecting tells


SQLITE: Dialect = _SQLite()
POSTGRESQL: Dialect = _PostgreSQL()


def dialect_of(db: str | Path) -> Dialect:
    """The dialect of the store ``db``: a PostgreSQL URL's, or an SQLite file's."""
    return POSTGRESQL if postgres.is_url(db) else SQLITE


def dialect_for(connection: Any) -> Dialect:
    """The dialect of an open connection (one ``open_database`` gave)."""
    return POSTGRESQL if isinstance(connection, postgres.PgConnection) else SQLITE


def open_database(db: str | Path, busy_timeout_ms: int = database.BUSY_TIMEOUT_MS) -> Any:
    """A connection to the results store ``db`` (an SQLite file, or a PostgreSQL URL) at the current version,
    created or upgraded; ``StoreError`` if it cannot be had."""
    return dialect_of(db).connect(db, busy_timeout_ms)
