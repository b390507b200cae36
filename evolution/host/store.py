"""The results store: every finished game in SQLite.

Offers ``ResultsStore`` (``open(path)`` creates or upgrades the database from
the versioned files in ``store_schemas/``; ``record(game)`` writes one game
in one transaction; ``games()`` reads them back) and the ``GameRecord`` /
``SeatRecord`` values it stores; ``seat_records`` makes the seats of a game
from the dealer's ranking and removals.

Writes are synchronous on the calling thread: one small transaction per
finished game, so the reactor is held for about a millisecond per game.
"""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

from evolution.rules.results import Ranked, Removal

SCHEMA_DIR = Path(__file__).resolve().parent / "store_schemas"
CURRENT_VERSION = 1


@dataclass(frozen=True)
class SeatRecord:
    seat: int
    name: str
    score: int | None = None
    rank: int | None = None
    removed_turn: int | None = None
    removed_step: str | None = None
    removed_reason: str | None = None


def seat_records(names: Sequence[str], ranking: Sequence[Ranked], removals: Sequence[Removal]) -> tuple[SeatRecord, ...]:
    """One record per seat; seat k is the player with id k (the k-th handed to the dealer)."""
    ranked = {entry.id: entry for entry in ranking}
    removed = {removal.id: removal for removal in removals}
    seats = []
    for seat, name in enumerate(names, start=1):
        entry, removal = ranked.get(seat), removed.get(seat)
        seats.append(
            SeatRecord(
                seat,
                name,
                entry.score if entry else None,
                entry.rank if entry else None,
                removal.turn if removal else None,
                removal.step if removal else None,
                removal.reason if removal else None,
            )
        )
    return tuple(seats)


@dataclass(frozen=True)
class GameRecord:
    started_at: str
    ended_at: str
    deck: str
    seed: int | None
    turns: int
    outcome: str
    players: tuple[SeatRecord, ...] = ()
    id: int | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["players"] = [asdict(player) for player in self.players]
        return data


class StoreError(Exception):
    """The database cannot be opened or is of an unknown version."""


class ResultsStore:
    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    @classmethod
    def open(cls, path: str | Path) -> ResultsStore:
        try:
            connection = sqlite3.connect(str(path))
            connection.execute("PRAGMA foreign_keys = ON")
            _upgrade(connection)
        except sqlite3.Error as error:
            raise StoreError(f"cannot use the results database {path}: {error}") from None
        return cls(connection)

    def close(self) -> None:
        self.connection.close()

    def record(self, game: GameRecord) -> int:
        """Store one game and its seats in one transaction; return its id."""
        with self.connection:
            cursor = self.connection.execute(
                "INSERT INTO games (started_at, ended_at, deck, seed, turns, outcome) VALUES (?, ?, ?, ?, ?, ?)",
                (game.started_at, game.ended_at, game.deck, game.seed, game.turns, game.outcome),
            )
            game_id = cursor.lastrowid
            self.connection.executemany(
                "INSERT INTO players (game_id, seat, name, score, rank, removed_turn, removed_step, removed_reason)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (game_id, p.seat, p.name, p.score, p.rank, p.removed_turn, p.removed_step, p.removed_reason)
                    for p in game.players
                ],
            )
        return game_id

    def games(self) -> list[GameRecord]:
        """Every stored game, oldest first, with its seats in seat order."""
        rows = self.connection.execute(
            "SELECT id, started_at, ended_at, deck, seed, turns, outcome FROM games ORDER BY id"
        ).fetchall()
        seats: dict[int, list[SeatRecord]] = {row[0]: [] for row in rows}
        for row in self.connection.execute(
            "SELECT game_id, seat, name, score, rank, removed_turn, removed_step, removed_reason"
            " FROM players ORDER BY game_id, seat"
        ):
            seats[row[0]].append(SeatRecord(*row[1:]))
        return [
            GameRecord(started, ended, deck, seed, turns, outcome, tuple(seats[id]), id)
            for id, started, ended, deck, seed, turns, outcome in rows
        ]


def _version(connection: sqlite3.Connection) -> int:
    exists = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'version'").fetchone()
    if not exists:
        return 0
    return connection.execute("SELECT version FROM version").fetchone()[0]


def _upgrade(connection: sqlite3.Connection) -> None:
    """Create the database, or upgrade it step by step to CURRENT_VERSION."""
    version = _version(connection)
    if version > CURRENT_VERSION:
        raise sqlite3.DatabaseError(f"it is of version {version}, newer than this program's {CURRENT_VERSION}")
    if version == 0:
        connection.executescript((SCHEMA_DIR / f"v{CURRENT_VERSION}.sql").read_text())
        return
    for step in range(version, CURRENT_VERSION):
        connection.executescript((SCHEMA_DIR / f"upgrade-v{step}-to-v{step + 1}.sql").read_text())
