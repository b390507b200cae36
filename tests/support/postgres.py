"""The tests' PostgreSQL: a fresh database of the session's cluster per test, or a cluster of a test's own.

Offers ``Cluster(folder)`` (``evolution.stock_servers.PostgresCluster``, or the
test skipped, saying what to install, where PostgreSQL or psycopg is missing),
``database_url(name)`` (a new database of the session's cluster, started at the
first call) and ``stop_session_cluster()`` (stopped by its process id at the
session's end: the conftest calls it).
"""

from __future__ import annotations

import re
from pathlib import Path
from unittest import SkipTest

from evolution.stock_servers import PostgresCluster, postgres_missing


def Cluster(folder: Path | None = None, durable: bool = False) -> PostgresCluster:
    """A cluster of the test's own (not started), or ``SkipTest`` saying what to install."""
    why = postgres_missing()
    if why is not None:
        raise SkipTest(why)
    return PostgresCluster(folder, durable)


_session: PostgresCluster | None = None
_count = 0


def database_url(name: str) -> str:
    """A new database of the session's cluster (started now if need be), named after ``name``."""
    global _session, _count
    if _session is None:
        cluster = Cluster()
        cluster.start()
        _session = cluster
    _count += 1
    return _session.create(f"t{_count}_" + re.sub(r"[^a-z0-9]+", "_", name.lower())[:40])


def stop_session_cluster() -> None:
    global _session
    if _session is not None:
        _session.remove()
        _session = None
