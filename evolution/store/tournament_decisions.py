# -*- test-case-name: tests.host.modes.test_resume_hosts, tests.host.modes.test_resumed_runs, tests.host.modes.test_crash_at_every_write -*-
"""What a tournament decided, in the results store: each round's tables, its walkovers and its failures outside games.

Offers, on a store's connection (``evolution.store.results_store`` carries the operations out through these, and
answers its ``tables(id)`` and ``failures(id)`` with them): ``store_tables(connection, tournament_id, tables)``
(a ``round-begun`` operation's tables), ``store_walkover(connection, operation)``, ``store_failure(connection,
tournament_id, failure)`` (each may be applied twice without harm: the first decision stands), and the reads a
resume rebuilds the tournament from, ``tables(connection, tournament_id)`` and ``failures(connection,
tournament_id)`` (``evolution.host.modes.resumption``). The operations themselves: ``evolution.store.operations``;
what a resume does with them: docs/tournaments.md, "Resuming a tournament".
"""

from __future__ import annotations

import json
from typing import Any

from evolution.store.database import stored
from evolution.store.records import FailureRecord, TableRecord


def store_tables(connection: Any, tournament_id: int, tables: list[dict[str, Any]]) -> None:
    """A round's tables as decided (a second time changes nothing: the first decision stands)."""
    connection.executemany(
        "INSERT INTO tournament_tables (tournament_id, round, table_no, seats, seed, decided_at)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tournament_id, round, table_no) DO NOTHING",
        [(tournament_id, t["round"], t["table"], json.dumps(list(t["seats"])), t["seed"], t["decided_at"])
         for t in tables],
    )


def store_walkover(connection: Any, operation: dict[str, Any]) -> None:
    """Too few of a table came back: those who did, placed first with no game played."""
    connection.execute(
        "UPDATE tournament_tables SET walkover = ? WHERE tournament_id = ? AND round = ? AND table_no = ?",
        (json.dumps(operation["present"]), operation["tournament"], operation["round"], operation["table"]),
    )


def store_failure(connection: Any, tournament_id: int, failure: dict[str, Any]) -> None:
    """An entrant's failure outside any game (its first stands), and its standing says so at once."""
    connection.execute(
        "INSERT INTO tournament_failures (tournament_id, entrant, round, after_round, reason, failed_at)"
        " VALUES (?, ?, ?, ?, CAST(? AS TEXT), ?) ON CONFLICT (tournament_id, entrant) DO NOTHING",
        (tournament_id, failure["entrant"], failure["round"], failure["phase"], stored(failure["reason"]),
         failure["failed_at"]),
    )
    connection.execute(
        "UPDATE entrants SET failure = CAST(? AS TEXT), failed_round = ? WHERE tournament_id = ? AND entrant = ?"
        " AND failure IS NULL", (stored(failure["reason"]), failure["round"], tournament_id, failure["entrant"]),
    )


def tables(connection: Any, tournament_id: int) -> list[TableRecord]:
    """A tournament's tables as it decided them, by round and table (none for one stored before version 8)."""
    return [
        TableRecord(round, table, tuple(json.loads(seats)), seed, decided,
                    None if walkover is None else tuple(json.loads(walkover)))
        for round, table, seats, seed, decided, walkover in connection.execute(
            "SELECT round, table_no, seats, seed, decided_at, walkover FROM tournament_tables"
            " WHERE tournament_id = ? ORDER BY round, table_no", (tournament_id,))
    ]


def failures(connection: Any, tournament_id: int) -> list[FailureRecord]:
    """A tournament's failures outside any game, as decided, in the order they were decided."""
    return [
        FailureRecord(entrant, round, phase, reason, at)
        for entrant, round, phase, reason, at in connection.execute(
            "SELECT entrant, round, after_round, reason, failed_at FROM tournament_failures"
            " WHERE tournament_id = ? ORDER BY failed_at, entrant", (tournament_id,))
    ]
