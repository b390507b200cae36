# -*- test-case-name: tests.store.test_results_store, tests.store.test_writer -*-
"""The results store in PostgreSQL (``--db postgresql://USER@HOST:PORT/NAME``), through psycopg 3.

Offers ``is_url(db)``, ``shown(db)`` (the URL without its password, for log lines), ``connect(url)`` (a
``PgConnection``: what the store's SQL needs of a connection, as SQLite's gives it: ``execute`` and
``executemany`` with ``?`` placeholders, ``with connection:`` for one transaction (nested ones are
savepoints), reads outside one committed at once; on a database at the current version, created or upgraded
from ``sql/postgresql/``), ``unavailable()`` (the errors that mean the database cannot be reached now, which
the journal waits out), ``reserve_block(connection)`` (the first id of a block of ids of this host's own:
several hosts number their games in one store without meeting), ``BLOCK``, and ``hold_name(url, host)``
(a connection that holds the host's name while the host runs: a second host of that name is refused).

Text a bot sent (a name, a reason) may hold what PostgreSQL's text cannot (a NUL, a lone surrogate): such
text is kept as ``\\x01`` and its JSON, and read back as it was; how, and why: docs/store.md, "PostgreSQL".
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator

from evolution.store.database import CURRENT_VERSION, SCHEMA_DIR, StoreError, StoreUnreachable, SurrogateText

BLOCK = 1_000_000  # ids a host reserves at a time (games and tournaments alike)
SCHEMAS = SCHEMA_DIR / "postgresql"
LOCK = 0x45766F6C  # the advisory lock held while a schema is made: "Evol"
NAMES = 0x486F7374  # with the name's hash, the advisory lock a running host holds on its name: "Host"
KEEPALIVE = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5, "keepalives_count": 3}
ESCAPED = "\x01"
_PASSWORD = re.compile(r"(postgres(?:ql)?://[^:/@]*):[^@/]*@")



def _psycopg() -> Any:
    """psycopg, loaded when a PostgreSQL store is first used (an SQLite store never loads it)."""
    try:
        import psycopg
    except ImportError:
        raise StoreError("a PostgreSQL store needs psycopg: pip install 'evolution-host[postgresql]'") from None
    return psycopg


def unavailable() -> tuple[type[Exception], ...]:
    """The errors of a database that cannot be reached now (down, restarting, the network): waited out."""
    import sys

    psycopg = sys.modules.get("psycopg")  # loaded by now if a PostgreSQL store was ever opened
    return (psycopg.OperationalError, psycopg.InterfaceError) if psycopg is not None else ()


def is_url(db: str | Path) -> bool:
    return isinstance(db, str) and db.startswith(("postgresql://", "postgres://"))


def shown(db: str | Path) -> str:
    """``db`` as a log line may show it: a URL without its password."""
    return _PASSWORD.sub(r"\1:***@", str(db))


def _escaped(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return ESCAPED + json.dumps(text)
    return ESCAPED + json.dumps(text) if "\x00" in text or text.startswith(ESCAPED) else text


def _text_adapters(psycopg: Any) -> tuple[type, type]:
    """psycopg's dumper and loader of text, keeping what PostgreSQL's text cannot hold escaped."""
    from psycopg.adapt import Dumper, Loader

    class TextDumper(Dumper):
        oid = 0  # as psycopg sends text: the server decides its type

        def dump(self, obj: str) -> bytes:
            return _escaped(obj).encode("utf-8")

    class TextLoader(Loader):
        def load(self, data: Any) -> str:
            text = bytes(data).decode("utf-8")
            return json.loads(text[1:]) if text.startswith(ESCAPED) else text

    return TextDumper, TextLoader


class PgConnection:
    """A psycopg connection as the store's SQL uses one (SQLite's ``?`` placeholders and ``with`` transactions)."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self._sql: dict[str, str] = {}
        self._transactions: list[Any] = []
        self._pipeline: Any = None

    def _translated(self, sql: str) -> str:
        found = self._sql.get(sql)
        if found is None:
            found = self._sql[sql] = sql.replace("%", "%%").replace("?", "%s")
        return found

    @staticmethod
    def _values(params: Iterable[Any]) -> tuple:
        return tuple(value.decode("utf-8", "surrogatepass") if type(value) is SurrogateText else value
                     for value in params)

    def execute(self, sql: str, params: Iterable[Any] = ()) -> Any:
        cursor = self.raw.execute(self._translated(sql), self._values(params))
        return cursor if self._pipeline is None else _Queued(cursor, self._pipeline)

    @contextmanager
    def pipelined(self) -> Iterator[PgConnection]:
        """Statements sent without waiting for each one's answer (psycopg's pipeline mode) until a result is read:
        a group of writes in a few round trips, where each statement would wait for its own. An error is raised
        where a result is read, or at the end: the transaction is undone as ever."""
        with self.raw.pipeline() as pipeline:
            self._pipeline = pipeline
            try:
                yield self
            finally:
                self._pipeline = None

    def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> Any:
        cursor = self.raw.cursor()
        cursor.executemany(self._translated(sql), [self._values(row) for row in rows])
        return cursor

    def __enter__(self) -> PgConnection:
        transaction = self.raw.transaction()
        transaction.__enter__()
        self._transactions.append(transaction)
        return self

    def __exit__(self, *failure: Any) -> bool | None:
        return self._transactions.pop().__exit__(*failure)

    def close(self) -> None:
        self.raw.close()


class _Queued:
    """A statement sent in pipeline mode: its rows, or the rows it changed, read (and waited for) when asked."""

    def __init__(self, cursor: Any, pipeline: Any) -> None:
        self.cursor, self.pipeline = cursor, pipeline

    @property
    def rowcount(self) -> int:
        self.pipeline.sync()
        return self.cursor.rowcount

    def fetchone(self) -> Any:
        return self.cursor.fetchone()

    def fetchall(self) -> list[Any]:
        return self.cursor.fetchall()

    def __iter__(self) -> Iterator[Any]:
        return iter(self.cursor.fetchall())


def connect(url: str, timeout: float = 5.0) -> PgConnection:
    """A connection to the store at ``url``, created or upgraded to ``CURRENT_VERSION``; ``StoreError`` if not."""
    psycopg = _psycopg()
    try:
        raw = psycopg.connect(url, autocommit=True, connect_timeout=max(1, round(timeout)))
    except psycopg.Error as error:
        raise StoreUnreachable(f"cannot reach the results database {shown(url)}: {_sentence(error)}") from None
    dumper, loader = _text_adapters(psycopg)
    raw.adapters.register_dumper(str, dumper)
    raw.adapters.register_loader("text", loader)
    connection = PgConnection(raw)
    try:
        _prepare(connection, url)
    except psycopg.Error as error:
        raw.close()
        raise StoreError(f"cannot use the results database {shown(url)}: {_sentence(error)}") from None
    except StoreError:
        raw.close()
        raise
    return connection


def _sentence(error: Exception) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def _prepare(connection: PgConnection, url: str) -> None:
    version = _version(connection, url)
    if version > CURRENT_VERSION:
        raise StoreError(f"the results database {shown(url)} is of version {version}, newer than this program's "
                         f"{CURRENT_VERSION}; use a newer evolution-host")
    if version < CURRENT_VERSION:
        with connection:  # one transaction, under a lock: another host may be making the schema right now
            connection.execute("SELECT pg_advisory_xact_lock(?)", (LOCK,))
            version = _version(connection, url)
            if version < CURRENT_VERSION:
                connection.raw.execute(_script(version))


def _script(version: int) -> str:
    if version == 0:
        return (SCHEMAS / f"v{CURRENT_VERSION}.sql").read_text()
    return "".join(
        (SCHEMAS / f"upgrade-v{step}-to-v{step + 1}.sql").read_text() for step in range(version, CURRENT_VERSION)
    )


def _version(connection: PgConnection, url: str) -> int:
    """0 for a database with no tables, else the version of our store; refuses anything else."""
    tables = {row[0] for row in connection.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")}
    if not tables:
        return 0
    if "version" not in tables or "games" not in tables:
        raise StoreError(f"{shown(url)} is not an Evolution results database (it holds tables "
                         f"{', '.join(sorted(tables)[:5])}); refusing to touch it: give --db a new database")
    rows = connection.execute("SELECT version FROM version").fetchall()
    if len(rows) != 1 or not isinstance(rows[0][0], int):
        raise StoreError(f"{shown(url)} has a damaged version table (it must hold one whole number); refusing to "
                         "touch it")
    return rows[0][0]


def reserve_block(connection: PgConnection) -> int:
    """The first id of a block of ``BLOCK`` ids no other host will number games or tournaments with."""
    [block] = connection.execute("SELECT nextval('id_blocks')").fetchone()
    return (block - 1) * BLOCK + 1


def hold_name(url: str, host: str) -> Any:
    """A connection holding ``host``'s name in the store at ``url`` until it is closed (or its process ends; a
    machine that dies lets it go within about 25 s, by TCP keepalives); ``StoreError`` if another host holds it.

    A host's start stores what it left running as aborted, by its name: two hosts of one name would abort each
    other's games. The lock is PostgreSQL's (an advisory lock on the name's hash, held by the session)."""
    psycopg = _psycopg()
    try:
        raw = psycopg.connect(url, autocommit=True, connect_timeout=5, **KEEPALIVE)
        [[held]] = raw.execute("SELECT pg_try_advisory_lock(%s, hashtext(%s))", (NAMES, host)).fetchall()
    except psycopg.Error as error:
        raise StoreUnreachable(f"cannot reach the results database {shown(url)}: {_sentence(error)}") from None
    if not held:
        raw.close()
        raise StoreError(f"another host named {host!r} is using the results database {shown(url)}: each host "
                         f"that shares it needs a name of its own (--host-name)")
    return raw
