"""What a tournament writes down before acting on it, read back: each round's tables (``round-begun``), each
walkover, each entrant's failure outside a game (``entrant-failed``), through ``ResultsStore.tables()`` and
``failures()`` (what ``--resume`` and the resume soak's checker read), on SQLite and on PostgreSQL.

Each decision is kept as first written: written again (a journal applied twice after a crash), or decided
again differently, it changes nothing; a failure shows in its entrant's standing at once; each tournament reads
back its own decisions only, and a store opened again holds them all.
"""

from __future__ import annotations

from evolution.store.operations import entrant_failed, round_begun, tournament_begun, walkover
from evolution.store.records import EntrantRecord, FailureRecord, TableRecord, TournamentRecord
from evolution.store.results_store import ResultsStore

AT = "2026-11-28T20:00:00.000+00:00"
NAMES = ("ann", "bob", "cy", "dee", "eve", "fay")
ODD = "\ud800 evil \udfff"  # a reason UTF-8 cannot encode (what a bot sent, quoted): it comes back exactly


def begun(tournament_id: int) -> dict:
    entrants = tuple(EntrantRecord(number, name) for number, name in enumerate(NAMES, 1))
    return tournament_begun(TournamentRecord(tournament_id, "swiss", "running", AT, settings={
        "players": "3-5", "rounds": 3, "seed": 7}, entrants=entrants))


def at(second: int) -> str:
    return f"2026-11-28T20:00:{second:02d}.000+00:00"


ROUND_1 = [TableRecord(1, 1, (4, 1, 6), 7, at(1)), TableRecord(1, 2, (2, 5, 3), 8, at(1))]
ROUND_2 = [TableRecord(2, 1, (1, 2, 3), 9, at(5)), TableRecord(2, 2, (4, 5, 6), None, at(5))]
FAILURES = [
    FailureRecord(3, 0, FailureRecord.DURING, "failed the greeting: no reply to start within 3 s", at(0)),
    FailureRecord(5, 1, FailureRecord.AFTER, f"hung up between games: {ODD}", at(4)),
    FailureRecord(6, 2, FailureRecord.DURING, "did not come back within 60 s after the host stopped", at(6)),
    FailureRecord(1, 2, FailureRecord.END, "failed the tournament's end: disconnected", at(9)),
]


def decisions(tournament_id: int) -> list[dict]:
    """A tournament's decisions, in the order a host writes them."""
    return [
        begun(tournament_id),
        entrant_failed(tournament_id, FAILURES[0]),
        round_begun(tournament_id, ROUND_1),
        entrant_failed(tournament_id, FAILURES[1]),
        round_begun(tournament_id, ROUND_2),
        entrant_failed(tournament_id, FAILURES[2]),
        walkover(tournament_id, 2, 2, [4, 5]),  # 6 stayed away: too few for a game of 3
        entrant_failed(tournament_id, FAILURES[3]),
    ]


def read(store: ResultsStore, tournament_id: int) -> tuple:
    record = store.tournament(tournament_id)
    failed = {entrant.name: (entrant.failure, entrant.failed_round) for entrant in record.entrants if entrant.failure}
    return store.tables(tournament_id), store.failures(tournament_id), failed


EXPECTED_TABLES = ROUND_1 + [ROUND_2[0], TableRecord(2, 2, (4, 5, 6), None, at(5), walkover=(4, 5))]
EXPECTED_FAILED = {NAMES[failure.entrant - 1]: (failure.reason, failure.round) for failure in FAILURES}


def test_a_tournaments_tables_walkovers_and_failures_read_back_as_decided(db):
    store = ResultsStore.open(db)
    for operation in decisions(1):
        store.apply(operation)
    assert read(store, 1) == (EXPECTED_TABLES, FAILURES, EXPECTED_FAILED)
    store.close()
    store = ResultsStore.open(db)  # kept, not only in the connection that wrote them
    assert read(store, 1) == (EXPECTED_TABLES, FAILURES, EXPECTED_FAILED)
    store.close()


def test_each_decision_stands_as_first_written(db):
    store = ResultsStore.open(db)
    store.apply_all(decisions(1))
    store.apply_all(decisions(1)[1:])  # the journal applied again after a crash
    store.apply(round_begun(1, [TableRecord(2, 1, (6, 5, 4), 99, at(30))]))  # round 2 dealt again, otherwise
    store.apply(entrant_failed(1, FailureRecord(5, 3, FailureRecord.DURING, "failed again", at(31))))
    store.apply(entrant_failed(1, FailureRecord(2, 3, FailureRecord.DURING, "sent something while waiting", at(32))))
    tables, failures, failed = read(store, 1)
    assert tables == EXPECTED_TABLES
    late = FailureRecord(2, 3, FailureRecord.DURING, "sent something while waiting", at(32))
    assert failures == FAILURES + [late]
    assert failed == {**EXPECTED_FAILED, "bob": (late.reason, 3)}
    store.close()


def test_each_tournament_reads_back_its_own_decisions_only(db):
    store = ResultsStore.open(db)
    store.apply_all(decisions(1))
    other = [TableRecord(1, 1, (1, 2, 3), None, at(40)), TableRecord(1, 2, (4, 5, 6), None, at(40))]
    store.apply(begun(2))
    store.apply(round_begun(2, other))
    assert read(store, 2) == (other, [], {})
    assert read(store, 1) == (EXPECTED_TABLES, FAILURES, EXPECTED_FAILED)
    assert (store.tables(3), store.failures(3)) == ([], [])  # no such tournament: nothing decided
    store.close()
