"""The store's tests run against both of its databases: an SQLite file, and PostgreSQL (skipped, with what to
install, where it is missing)."""

from __future__ import annotations

import pytest

from tests.support import postgres

STORES = ["sqlite", "postgresql"]


@pytest.fixture(params=STORES)
def db(request: pytest.FixtureRequest, tmp_path) -> str:
    """A new store: a file in the test's folder, or a new database of the session's PostgreSQL cluster."""
    if request.param == "sqlite":
        return str(tmp_path / "r.sqlite")
    return postgres.database_url(request.node.name)
