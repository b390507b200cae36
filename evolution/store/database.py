# -*- test-case-name: tests.store.test_results_store, tests.store.test_faults -*-
"""Opening the results database: refuse what is not ours, create or upgrade what is.

Offers ``connect(path)``, a ``sqlite3.Connection`` on an Evolution results
database at the current version (created if the file is new or empty,
upgraded step by step from the versioned files in ``sql/``; WAL mode),
``check_path(path)`` (the path alone: a folder, or a missing folder, is
refused before anything is made beside it), ``StoreError`` (one sentence
saying what is wrong with the file), ``stored`` (a text value as the
database takes it, a lone surrogate too) and ``CURRENT_VERSION``. The
bottom of the store: PostgreSQL's (``evolution.store.postgres``) imports
what it shares from here, never the other way; either database is opened
through its dialect (``evolution.store.sql_dialects.open_database``).

What is refused, several processes opening one new file, durability, and
how text with lone surrogates is kept: docs/store.md, "Inside the store".
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

SCHEMA_DIR = Path(__file__).resolve().parent / "sql"
CURRENT_VERSION = 8
APPLICATION_ID = 0x45766F6C  # "Evol"
BUSY_TIMEOUT_MS = 5000
_V1_TABLES = {"version", "games", "players"}


class StoreError(Exception):
    """The results database cannot be used; the message is one sentence."""


class StoreUnreachable(StoreError):
    """The results database cannot be reached now (a PostgreSQL server down, restarting, or the network)."""


class SurrogateText(bytes):
    """Text with a lone surrogate, as ``surrogatepass`` bytes: SQLite keeps them as TEXT (the SQL casts them);
    PostgreSQL's connection sends them as the text they are (``evolution.store.postgres``)."""


def stored(text: str | None) -> str | bytes | None:
    """``text`` as the database takes it: as is, or as ``SurrogateText`` (cast to TEXT in the SQL)."""
    if text is None:
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return SurrogateText(text.encode("utf-8", "surrogatepass"))
    return text


def _read_text(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


def connect(path: str | Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    """A connection to the results database at ``path``, created or upgraded to ``CURRENT_VERSION``."""
    path = Path(path)
    check_path(path)
    try:
        connection = sqlite3.connect(str(path), timeout=busy_timeout_ms / 1000, check_same_thread=False)
    except sqlite3.Error as error:
        raise StoreError(f"cannot open the results database {path}: {error}") from None
    try:
        connection.text_factory = _read_text
        _prepare(connection, path, busy_timeout_ms / 1000)
    except sqlite3.Error as error:
        connection.close()
        raise StoreError(f"cannot use the results database {path}: {_sentence(error)}") from None
    except StoreError:
        connection.close()
        raise
    return connection


def check_path(path: Path) -> None:
    if path.is_dir():
        raise StoreError(f"the results database {path} is a folder, not a file")
    if not path.parent.is_dir():
        raise StoreError(f"the results database {path} cannot be created: the folder {path.parent} does not exist")


def _sentence(error: sqlite3.Error) -> str:
    text = str(error)
    if text == "file is not a database":
        return "it is not an SQLite database"
    return text


def _prepare(connection: sqlite3.Connection, path: Path, patience: float) -> None:
    connection.execute("BEGIN")  # one snapshot: another process may be creating the schema right now
    try:
        version = _version(connection, path)
    finally:
        connection.rollback()
    if version > CURRENT_VERSION:
        raise StoreError(
            f"the results database {path} is of version {version}, newer than this program's {CURRENT_VERSION};"
            " use a newer evolution-host"
        )
    _write_ahead_log(connection, patience)
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute("PRAGMA foreign_keys = ON")
    if version < CURRENT_VERSION:
        _create_or_upgrade(connection, path)


def _write_ahead_log(connection: sqlite3.Connection, patience: float) -> None:
    """WAL mode; SQLite may refuse it at once while another process opens the same new file: try again."""
    deadline = time.monotonic() + patience
    while True:
        try:
            connection.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _create_or_upgrade(connection: sqlite3.Connection, path: Path) -> None:
    """Create or upgrade the schema in one transaction that holds the write lock, looking again inside it.

    Another process may be doing the same at the same moment (a second host, ``evolution-results``):
    whoever comes second waits for the lock and then finds the work done.
    """
    connection.execute("BEGIN IMMEDIATE")
    try:
        version = _version(connection, path)
        if version < CURRENT_VERSION:
            for statement in _statements(_script(version)):
                connection.execute(statement)
            connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        connection.commit()
    except BaseException:
        connection.rollback()
        raise


def _script(version: int) -> str:
    """The SQL that takes a store of ``version`` (0: a new file) to ``CURRENT_VERSION``."""
    if version == 0:
        return (SCHEMA_DIR / f"v{CURRENT_VERSION}.sql").read_text()
    return "".join(
        (SCHEMA_DIR / f"upgrade-v{step}-to-v{step + 1}.sql").read_text() for step in range(version, CURRENT_VERSION)
    )


def _statements(script: str) -> list[str]:
    """The statements of a script, each whole (``executescript`` would commit the transaction first)."""
    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current)
            current = ""
    return statements


def _version(connection: sqlite3.Connection, path: Path) -> int:
    """0 for a new (empty) database, else the version of our store; refuses anything else."""
    application_id = connection.execute("PRAGMA application_id").fetchone()[0]
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if application_id == APPLICATION_ID:
        return _version_row(connection, path)
    if application_id == 0 and not tables:
        return 0
    if application_id == 0 and tables == _V1_TABLES and _version_row(connection, path) == 1:
        return 1
    what = f"application id {application_id:#x}" if application_id else "tables " + ", ".join(sorted(tables))
    raise StoreError(
        f"{path} is not an Evolution results database (it holds {what}); refusing to touch it:"
        " give --db a new file"
    )


def _version_row(connection: sqlite3.Connection, path: Path) -> int:
    try:
        rows = connection.execute("SELECT version FROM version").fetchall()
    except sqlite3.Error:
        rows = []
    if len(rows) != 1 or type(rows[0][0]) is not int:
        raise StoreError(f"{path} has a damaged version table (it must hold one whole number); refusing to touch it")
    return rows[0][0]
