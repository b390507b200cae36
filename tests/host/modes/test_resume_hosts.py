"""A resumed tournament is the resuming host's: stored under its name, so that its own restart finds it.

At the store, with two host names (``lab3`` began the tournament, ``lab4`` resumes it): on SQLite, which one host
writes, and on PostgreSQL, which several share and where each host's restart marks only its own tournaments
interrupted, and only that host may resume one still running.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evolution.host.modes.resumption import NotResumable, load_interrupted
from evolution.store.operations import tournament_begun, tournament_resumed
from evolution.store.records import TournamentRecord
from evolution.store.results_store import ResultsStore

FIRST, SECOND = "lab3:45678", "lab4:45678"
BEGUN, RESUMED = "2026-01-01T00:00:00.000+00:00", "2026-01-01T01:00:00.000+00:00"


def store_at(kind: str, folder: Path) -> str:
    if kind == "sqlite":
        return str(folder / "results.sqlite")
    from tests.support.postgres import database_url

    return database_url("a resumed tournament's host")


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_tournament_resumed_by_another_host_is_that_hosts(tmp_path: Path, kind: str) -> None:
    db = store_at(kind, tmp_path)
    store = ResultsStore.open(db)
    try:
        store.apply(tournament_begun(TournamentRecord(1, "swiss", "running", BEGUN, settings={"players": "3-5"},
                                                      host=FIRST)))
        assert store.mark_interrupted(FIRST) == [1]  # lab3 was killed, and started again
        store.apply(tournament_resumed(1, 2, RESUMED, SECOND))  # lab4 resumes it
        store.apply(tournament_resumed(1, 2, RESUMED, SECOND))  # (a journal may apply it twice)
        assert (store.tournament(1).status, store.tournament(1).host) == ("running", SECOND)
        if store.shared:  # lab3's next restart leaves lab4's live tournament alone; lab4's own restart finds it
            assert store.mark_interrupted(FIRST) == []
            assert store.tournament(1).status == "running"
            with pytest.raises(NotResumable, match=f"is running on the host '{SECOND}'"):
                load_interrupted(db, "1", FIRST)
        assert store.mark_interrupted(SECOND) == [1]
    finally:
        store.close()
    assert load_interrupted(db, "1", SECOND).record.host == SECOND


def test_a_resumption_from_an_older_journal_keeps_the_tournaments_host(tmp_path: Path) -> None:
    store = ResultsStore.open(tmp_path / "results.sqlite")
    try:
        store.apply(tournament_begun(TournamentRecord(1, "swiss", "interrupted", BEGUN, host=FIRST)))
        older = tournament_resumed(1, 2, RESUMED)
        del older["host"]  # written before the operation named its host
        store.apply(older)
        assert (store.tournament(1).status, store.tournament(1).host) == ("running", FIRST)
    finally:
        store.close()
