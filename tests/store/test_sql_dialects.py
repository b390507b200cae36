"""Each database's dialect: what the results store asks of SQLite and of PostgreSQL, and gets, on both."""

from __future__ import annotations

from dataclasses import replace

import pytest

from evolution.store.database import StoreError
from evolution.store.operations import game_operation
from evolution.store.records import SeatRecord
from evolution.store.results_store import ResultsStore, reading
from evolution.store.sql_dialects import POSTGRESQL, SQLITE, dialect_for, dialect_of
from tests.store.test_results_store import GAME

LADDER_GAME = replace(GAME, ladder=True)


def test_a_store_speaks_its_databases_dialect(db):
    store = ResultsStore.open(db)
    try:
        assert store.dialect is dialect_of(db) is dialect_for(store.connection)
        assert store.dialect is (POSTGRESQL if db.startswith("postgresql://") else SQLITE)
        assert store.shared == (store.dialect is POSTGRESQL)  # several hosts write only a PostgreSQL store
    finally:
        store.close()


def test_a_group_of_writes_one_of_which_the_database_refuses_stores_none_of_them(db):
    # The store process commits in groups (pipelined on PostgreSQL): a write the database refuses undoes the whole
    # group, a ladder game's ratings too, which the store process then writes one at a time.
    store = ResultsStore.open(db)
    try:
        refused = replace(GAME, players=(SeatRecord(1, "x", 1, 1), SeatRecord(1, "y", 2, 1))).with_id(3)  # seat 1 twice
        group = [game_operation(LADDER_GAME.with_id(1)), game_operation(GAME.with_id(2)), game_operation(refused)]
        with pytest.raises(Exception):
            store.apply_all(group)
        assert (store.games(), store.ladder()) == ([], [])
        store.apply_all(group[:2])
        assert [game.id for game in store.games()] == [1, 2]
        assert sorted(standing.name for _, standing in store.ladder()) == sorted(seat.name for seat in GAME.players)
    finally:
        store.close()


def test_a_missing_sqlite_file_is_not_made_by_reading_it(tmp_path):
    missing = tmp_path / "none.sqlite"
    assert not SQLITE.found(missing)
    with pytest.raises(StoreError, match="no results database"):
        reading(missing, lambda store: store.games())
    assert not missing.exists()
