"""The results store: games and tournaments in one database (an SQLite file, or PostgreSQL), one API for both.

Offers ``ResultsStore``:

- ``open(db, busy_timeout_ms)`` (its dialect's ``connect``: refuses what is
  not ours, creates or upgrades the rest); where SQLite and PostgreSQL
  differ, the store asks its ``dialect`` (``sql_dialects``: how a group of
  writes is sent, the ladder rows' lock, whether several hosts share it);
- writes, each of which may be applied twice without harm (the journal,
  ``evolution.store.journal``, replays them after a failure):
  ``apply(operation)`` (one transaction) and ``apply_all(operations)`` (one
  transaction for them all: the store process commits in groups) for an
  operation made by ``game_begun``, ``game_operation``, ``tournament_begun``,
  ``round_begun``, ``walkover``, ``entrant_failed``, ``round_over``,
  ``tournament_resumed`` or ``tournament_over`` (plain data,
  JSON but for a game's log compressed already, bytes: each can wait in a
  journal file), and ``record(game, log)``, which gives the game the next
  free id. A finished ladder game moves its bots' ratings in its own
  transaction, their rows locked in name order (several hosts may write one
  ladder: ``_rated``);
- reads: ``games()``, ``recent_games(limit, before)``, ``games_by_id(ids)``,
  ``game(id)``, ``game_log(id)``, ``ladder(game)`` (a
  game's ladder, each bot's ``Standing`` by name: a ladder game's seats
  update it in the game's own transaction), ``tournaments()``,
  ``tournament(id)`` (each entrant with the round, place and score of its last
  game that counted, from the games), ``tables(id)`` and ``failures(id)`` (what
  a tournament decided, for a resume: ``evolution.store.tournament_decisions``
  stores and reads them); ``mark_interrupted(host)`` turns the
  tournaments a killed host left running into "interrupted",
  ``abort_running(host)`` stores the games it was playing as aborted;
- ``next_ids()``: the first free game and tournament ids (the host numbers
  its games itself, so a game keeps its id while it waits in the journal);

and ``reading(path, use)``, what the command-line tools do with a store:
open an existing one, use it, close it. The operations themselves are
``evolution.store.operations``.

The host never calls the write methods itself: they run in its store process
(``evolution.store.writer_process``). The command-line tools read on their own.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, TypeVar

from evolution.games import DEFAULT_GAME
from evolution.store import tournament_decisions as decided
from evolution.store.database import BUSY_TIMEOUT_MS, StoreError, stored
from evolution.store.operations import Operation, game_operation, log_blob, log_text
from evolution.store.records import (
    EntrantRecord,
    FailureRecord,
    GameRecord,
    Resumption,
    RoundRecord,
    SeatRecord,
    TableRecord,
    TournamentRecord,
)
from evolution.store.sql_dialects import Dialect, dialect_for, dialect_of
from evolution.tournament.ladder_standings import LadderSeat, Standing, Standings, ranked
from evolution.tournament.ratings import ESTABLISHED
from evolution.tournament.scoring import places

LOG_FORMAT = 1
_NEW_RATING = (Standings().standing("").rating_mu, Standings().standing("").rating_sigma)  # a bot new to a ladder
LADDER_TIER = "CASE WHEN games - removals >= ? THEN 0 WHEN games > removals THEN 1 ELSE 2 END"  # ratings.tier
T = TypeVar("T")


class ResultsStore:
    def __init__(self, connection: Any, db: str | Path | None = None, dialect: Dialect | None = None) -> None:
        self.connection = connection  # a sqlite3.Connection, or a postgres.PgConnection that speaks as one
        self.db = db
        self.dialect = dialect if dialect is not None else dialect_for(connection)

    @classmethod
    def open(cls, db: str | Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> ResultsStore:
        dialect = dialect_of(db)
        return cls(dialect.connect(db, busy_timeout_ms), db, dialect)

    @property
    def shared(self) -> bool:
        """Several hosts may write this store (PostgreSQL): each minds its own running games and tournaments."""
        return self.dialect.shared

    def close(self) -> None:
        self.connection.close()

    # -- writes ------------------------------------------------------------------

    def record(self, game: GameRecord, log: list | str | None = None) -> int:
        """Store a game under the next free id, at once, on this thread; return the id."""
        game_id = game.id if game.id is not None else self.next_ids()[0]
        self.apply(game_operation(game.with_id(game_id), log))
        return game_id

    def apply(self, operation: Operation) -> None:
        """Carry out one operation in one transaction (a second time changes nothing)."""
        self.apply_all([operation])

    def apply_all(self, operations: list[Operation]) -> None:
        """Carry out operations in order, in one transaction: all of them, or none."""
        with self.dialect.group(self.connection):  # on PostgreSQL pipelined: a game in two round trips
            for operation in operations:
                self._carry_out(operation)

    def _carry_out(self, operation: Operation) -> None:
        kind = operation["op"]
        if kind == "game":
            game = GameRecord.from_json(operation["game"])
            self._store_game(game, operation.get("log"), operation.get("entrants"))
        elif kind == "game-begun":
            self._begin_game(operation)
        elif kind == "tournament-begun":
            self._begin_tournament(operation["tournament"])
        elif kind == "round-begun":
            decided.store_tables(self.connection, operation["tournament"], operation["tables"])
        elif kind == "walkover":
            decided.store_walkover(self.connection, operation)
        elif kind == "entrant-failed":
            decided.store_failure(self.connection, operation["tournament"], operation["failure"])
        elif kind == "round-over":
            self._store_round(operation["tournament"], operation["round"], operation["entrants"])
        elif kind == "tournament-over":
            self._end_tournament(operation)
        elif kind == "tournament-resumed":
            self._resume_tournament(operation)
        else:
            raise ValueError(f"unknown store operation {kind!r}")

    def _store_game(self, game: GameRecord, log: list | str | bytes | None, entrants: list[dict] | None) -> None:
        execute = self.connection.execute
        inserted = execute(
            "INSERT INTO games (id, started_at, ended_at, deck, seed, turns, outcome, tournament_id, round, settings,"
            " game, ladder, host, table_no) VALUES (?, ?, ?, ?, ?, ?, CAST(? AS TEXT), ?, ?, ?, ?, ?, CAST(? AS TEXT), ?)"
            " ON CONFLICT (id) DO NOTHING",
            (
                game.id, game.started_at, game.ended_at, game.deck, game.seed, game.turns, stored(game.outcome),
                game.tournament_id, game.round, json.dumps(game.settings), game.game, int(game.ladder),
                stored(game.host), game.table,
            ),
        ).rowcount
        execute("DELETE FROM running_games WHERE id = ?", (game.id,))
        if not inserted:  # stored already (a journal applied twice): nothing more to do
            return
        if game.ladder and game.finished:
            game = self._rated(game)
        self.connection.executemany(
            "INSERT INTO players (game_id, seat, name, score, rank, removed_turn, removed_step, removed_reason,"
            " entrant, points, rating_mu, rating_sigma)"
            " VALUES (?, ?, CAST(? AS TEXT), ?, ?, ?, ?, CAST(? AS TEXT), ?, ?, ?, ?)",
            [
                (
                    game.id, p.seat, stored(p.name), p.score, p.rank, p.removed_turn, p.removed_step,
                    stored(p.removed_reason), p.entrant, p.points, p.rating_mu, p.rating_sigma,
                )
                for p in game.players
            ],
        )
        blob = log_blob(log)
        if blob is not None:
            execute("INSERT INTO game_logs (game_id, format, log) VALUES (?, ?, ?)", (game.id, LOG_FORMAT, blob))
        if entrants and game.tournament_id is not None:
            self._update_entrants(game.tournament_id, entrants)

    def _rated(self, game: GameRecord) -> GameRecord:
        """A finished ladder game moves its bots' ratings and counts in the store, each seat noted with its bot's
        rating after it: the rows of its bots locked in name order (another host may be rating one of them now),
        made first for a bot new to the ladder. Ratings move in the order the store takes the games; a game that
        waited in a host's journal moves them when it is taken, never undoing a later one.
        """
        unrated = set(game.settings.get("unrated", ()))
        if unrated:  # guests (--accounts roster) keep no standing: the game is rated among the other seats
            rated = replace(game, settings={}, players=tuple(s for s in game.players if s.name not in unrated))
            after = {s.seat: s for s in (self._rated(rated).players if len(rated.players) > 1 else ())}
            return replace(game, players=tuple(after.get(seat.seat, seat) for seat in game.players))
        names = sorted({seat.name for seat in game.players})
        execute, marks = self.connection.execute, ", ".join("CAST(? AS TEXT)" for _ in names)
        new = ", ".join(f"(?, {mark}, ?, ?)" for mark in marks.split(", "))  # one row per bot, in name order
        execute(f"INSERT INTO ladder (game, name, rating_mu, rating_sigma) VALUES {new} ON CONFLICT (game, name) DO"
                " NOTHING", [value for name in names for value in (game.game, stored(name), *_NEW_RATING)])
        found = execute(  # sorted by name, so locked in name order: two hosts lock any two bots in the same order
            "SELECT l.name, l.rating_mu, l.rating_sigma, l.games, l.wins, l.removals, l.last_game, g.ended_at"
            f" FROM ladder l LEFT JOIN games g ON g.id = l.last_game WHERE l.game = ? AND l.name IN ({marks})"
            f" ORDER BY l.name{self.dialect.for_update}", (game.game, *map(stored, names)),
        ).fetchall()
        rows = {row[0]: row for row in found}
        standings = Standings(Standing(*row[:6]) for row in rows.values())
        after = standings.game_over([LadderSeat(seat.name, None if seat.removed_reason is not None else seat.score)
                                     for seat in game.players])
        self.connection.executemany(
            "UPDATE ladder SET rating_mu = ?, rating_sigma = ?, games = ?, wins = ?, removals = ?, last_game = ?"
            " WHERE game = ? AND name = CAST(? AS TEXT)",
            [(s.rating_mu, s.rating_sigma, s.games, s.wins, s.removals,
              game.id if rows[s.name][6] is None or game.ended_at >= (rows[s.name][7] or "") else
              rows[s.name][6], game.game, stored(s.name)) for s in {s.name: s for s in after}.values()],
        )
        return replace(game, players=tuple(replace(seat, rating_mu=s.rating_mu, rating_sigma=s.rating_sigma)
                                           for seat, s in zip(game.players, after)))

    def _begin_game(self, operation: Operation) -> None:
        """A game begins: noted as running on its host until it is stored (``abort_running``)."""
        self.connection.execute(
            "INSERT INTO running_games (id, host, started_at, game, tournament_id, round, ladder, deck, seed,"
            " settings, names) VALUES (?, CAST(? AS TEXT), ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
            (operation["id"], stored(operation["host"]), operation["started_at"], operation["game"],
             operation["tournament"], operation["round"], int(operation["ladder"]), operation["deck"],
             operation["seed"], json.dumps(operation["settings"]), json.dumps(operation["names"])),
        )

    def abort_running(self, host: str | None, why: str) -> list[int]:
        """The games a host was playing when it stopped without storing them (it was killed): stored as aborted,
        counted for no one; the ids. ``host`` None: every host's (SQLite's store has one host)."""
        where, args = ("", ()) if host is None or not self.shared else (" WHERE host = CAST(? AS TEXT)", (stored(host),))
        with self.connection:
            rows = self.connection.execute(
                "SELECT id, host, started_at, game, tournament_id, round, ladder, deck, seed, settings, names"
                f" FROM running_games{where}", args,
            ).fetchall()
            for id, played_by, started, game, tournament, round, ladder, deck, seed, settings, names in rows:
                seats = tuple(SeatRecord(seat, name) for seat, name in enumerate(json.loads(names), start=1))
                self._store_game(GameRecord(started, started, deck, seed, 0, f"aborted: {why}", seats, id, tournament,
                                            round, json.loads(settings), game, bool(ladder), played_by), None, None)
        return [row[0] for row in rows]

    def _begin_tournament(self, data: dict[str, Any]) -> None:
        execute = self.connection.execute
        if execute("SELECT 1 FROM tournaments WHERE id = ?", (data["id"],)).fetchone():
            return
        execute(
            "INSERT INTO tournaments (id, format, status, started_at, ended_at, settings, game, host)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, CAST(? AS TEXT))",
            (data["id"], data["format"], data["status"], data["started_at"], data["ended_at"],
             json.dumps(data["settings"]), data.get("game", DEFAULT_GAME), stored(data.get("host"))),
        )
        self.connection.executemany(
            "INSERT INTO entrants (tournament_id, entrant, name) VALUES (?, ?, CAST(? AS TEXT))",
            [(data["id"], e["entrant"], stored(e["name"])) for e in data["entrants"]],
        )

    def _store_round(self, tournament_id: int, round: dict[str, Any], entrants: list[dict[str, Any]]) -> None:
        self.connection.execute(
            "INSERT INTO rounds (tournament_id, round, started_at, ended_at, summary)"
            " VALUES (?, ?, ?, ?, CAST(? AS TEXT)) ON CONFLICT (tournament_id, round) DO UPDATE SET"
            " started_at = excluded.started_at, ended_at = excluded.ended_at, summary = excluded.summary",
            (tournament_id, round["round"], round["started_at"], round["ended_at"], stored(round["summary"])),
        )
        self._update_entrants(tournament_id, entrants)

    def _end_tournament(self, operation: Operation) -> None:
        self.connection.execute(
            "UPDATE tournaments SET status = ?, ended_at = ? WHERE id = ?",
            (operation["status"], operation["ended_at"], operation["tournament"]),
        )
        self._update_entrants(operation["tournament"], operation["entrants"])

    def _resume_tournament(self, operation: Operation) -> None:
        self.connection.execute(
            "INSERT INTO resumptions (tournament_id, round, resumed_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (operation["tournament"], operation["round"], operation["resumed_at"]),
        )
        self.connection.execute(  # the resuming host's from now on (an operation of an older journal names none)
            "UPDATE tournaments SET status = 'running', ended_at = NULL, host = COALESCE(CAST(? AS TEXT), host)"
            " WHERE id = ?", (stored(operation.get("host")), operation["tournament"]),
        )

    def _update_entrants(self, tournament_id: int, entrants: list[dict[str, Any]]) -> None:
        self.connection.executemany(
            "UPDATE entrants SET rank = ?, points = ?, rating_mu = ?, rating_sigma = ?, winner = ?,"
            " failure = CAST(? AS TEXT), failed_round = ? WHERE tournament_id = ? AND entrant = ?",
            [
                (
                    e["rank"], e["points"], e["rating_mu"], e["rating_sigma"], int(e["winner"]),
                    stored(e["failure"]), e["failed_round"], tournament_id, e["entrant"],
                )
                for e in entrants
            ],
        )

    def mark_interrupted(self, host: str | None = None) -> list[int]:
        """Tournaments left running by a host that was killed become "interrupted"; return their ids.

        In a store several hosts share, only ``host``'s (and those of no host, from before version 7)."""
        where = " AND (host = CAST(? AS TEXT) OR host IS NULL)" if self.shared and host is not None else ""
        args = (stored(host),) if where else ()
        with self.connection:
            ids = [row[0] for row in self.connection.execute(
                f"SELECT id FROM tournaments WHERE status = 'running'{where}", args)]
            self.connection.execute(f"UPDATE tournaments SET status = 'interrupted' WHERE status = 'running'{where}",
                                    args)
        return ids

    def next_ids(self) -> tuple[int, int]:
        """The first free game id and tournament id."""
        game = self.connection.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM games").fetchone()[0]
        tournament = self.connection.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM tournaments").fetchone()[0]
        return game, tournament

    # -- reads -------------------------------------------------------------------

    _GAME_COLUMNS = (
        "id, started_at, ended_at, deck, seed, turns, outcome, tournament_id, round, settings, game, ladder, host,"
        " table_no"
    )
    _SEAT_COLUMNS = (
        "game_id, seat, name, score, rank, removed_turn, removed_step, removed_reason,"
        " entrant, points, rating_mu, rating_sigma"
    )

    def games(self, tournament_id: int | None = None) -> list[GameRecord]:
        """Every stored game (or a tournament's), oldest first, with its seats in seat order."""
        where, args = ("WHERE tournament_id = ?", (tournament_id,)) if tournament_id is not None else ("", ())
        rows = self.connection.execute(f"SELECT {self._GAME_COLUMNS} FROM games {where} ORDER BY id", args).fetchall()
        return self._with_seats(rows)

    def recent_games(self, limit: int, before: int | None = None) -> list[GameRecord]:
        """The ``limit`` games that ended last, before game ``before`` ended (default: any), newest first: of
        every host, whatever block its ids come from."""
        if before is None:
            rows = self.connection.execute(
                f"SELECT {self._GAME_COLUMNS} FROM games ORDER BY ended_at DESC, id DESC LIMIT ?", (limit,)
            ).fetchall()
        else:
            rows = self.connection.execute(
                f"SELECT {self._GAME_COLUMNS} FROM games WHERE ended_at < (SELECT ended_at FROM games WHERE id = ?)"
                " OR (ended_at = (SELECT ended_at FROM games WHERE id = ?) AND id < ?)"
                " ORDER BY ended_at DESC, id DESC LIMIT ?", (before, before, before, limit),
            ).fetchall()
        return self._with_seats(rows)

    def hosts(self) -> list[dict[str, Any]]:
        """Every host that stored a game or is playing one: ``host`` (None: games from before hosts had names),
        ``games`` (stored), ``running`` and ``last_ended`` (its latest stored game's end, or None); by name."""
        found: dict[Any, dict[str, Any]] = {}
        by_host = "SELECT host, COUNT(*), MAX(ended_at) FROM games GROUP BY host"
        for host, games, last in self.connection.execute(by_host):
            found[host] = {"host": host, "games": games, "running": 0, "last_ended": last}
        for host, running in self.connection.execute("SELECT host, COUNT(*) FROM running_games GROUP BY host"):
            found.setdefault(host, {"host": host, "games": 0, "running": 0, "last_ended": None})["running"] = running
        return sorted(found.values(), key=lambda row: (row["host"] is None, row["host"] or ""))

    def running_games(self) -> list[dict[str, Any]]:
        """The games being played now on every host (as each host noted them when they began), oldest first:
        ``id``, ``host``, ``started_at``, ``game``, ``tournament_id``, ``round``, ``ladder``, ``names``."""
        rows = self.connection.execute(
            "SELECT id, host, started_at, game, tournament_id, round, ladder, names FROM running_games"
            " ORDER BY started_at, id").fetchall()
        keys = ("id", "host", "started_at", "game", "tournament_id", "round", "ladder", "names")
        return [dict(zip(keys, row)) | {"ladder": bool(row[6]), "names": json.loads(row[7])} for row in rows]

    def game(self, game_id: int) -> GameRecord | None:
        rows = self.connection.execute(f"SELECT {self._GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchall()
        games = self._with_seats(rows)
        return games[0] if games else None

    def games_by_id(self, ids: list[int]) -> list[GameRecord]:
        """The stored games of ``ids`` (any of them, however far apart), newest first, with their seats."""
        if not ids:
            return []
        marks = ", ".join("?" * len(ids))
        rows = self.connection.execute(
            f"SELECT {self._GAME_COLUMNS} FROM games WHERE id IN ({marks}) ORDER BY id DESC", ids
        ).fetchall()
        seats: dict[int, list[SeatRecord]] = {row[0]: [] for row in rows}
        for row in self.connection.execute(
            f"SELECT {self._SEAT_COLUMNS} FROM players WHERE game_id IN ({marks}) ORDER BY game_id, seat", ids
        ):
            seats[row[0]].append(SeatRecord(*row[1:]))
        return self._records(rows, seats)

    def _with_seats(self, rows: list[tuple]) -> list[GameRecord]:
        if not rows:
            return []
        seats: dict[int, list[SeatRecord]] = {row[0]: [] for row in rows}
        if len(seats) <= 500:  # a page of games: by their ids (several hosts' ids lie far apart)
            marks = ", ".join("?" * len(seats))
            found = self.connection.execute(
                f"SELECT {self._SEAT_COLUMNS} FROM players WHERE game_id IN ({marks}) ORDER BY game_id, seat",
                tuple(seats))
        else:
            found = self.connection.execute(
                f"SELECT {self._SEAT_COLUMNS} FROM players WHERE game_id BETWEEN ? AND ? ORDER BY game_id, seat",
                (min(seats), max(seats)))
        for row in found:
            if row[0] in seats:
                seats[row[0]].append(SeatRecord(*row[1:]))
        return self._records(rows, seats)

    @staticmethod
    def _records(rows: list[tuple], seats: dict[int, list[SeatRecord]]) -> list[GameRecord]:
        return [
            GameRecord(
                started, ended, deck, seed, turns, outcome, tuple(seats[id]), id, tid, round, json.loads(settings), game,
                bool(ladder), host, table,
            )
            for id, started, ended, deck, seed, turns, outcome, tid, round, settings, game, ladder, host, table in rows
        ]

    def game_log(self, game_id: int) -> list | None:
        """The message log of a game (``evolution.net.game_log``), or None if it has none."""
        row = self.connection.execute("SELECT format, log FROM game_logs WHERE game_id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        if row[0] != LOG_FORMAT:
            raise StoreError(f"the log of game {game_id} is of format {row[0]}, which this program cannot read")
        return json.loads(log_text(row[1]))

    def ladder(self, game: str = DEFAULT_GAME, limit: int | None = None) -> list[tuple[int, Standing]]:
        """``game``'s ladder as ranked standings (``evolution.tournament.ladder_standings.ranked``), the first ``limit``."""
        rows = self.connection.execute(
            "SELECT name, rating_mu, rating_sigma, games, wins, removals FROM ladder WHERE game = ?"
            f" ORDER BY {LADDER_TIER}, rating_mu - 3 * rating_sigma DESC, name"
            + ("" if limit is None else " LIMIT ?"), (game, ESTABLISHED) + (() if limit is None else (limit,)),
        ).fetchall()
        return ranked(Standing(*row) for row in rows)

    def tournaments(self) -> list[TournamentRecord]:
        ids = [row[0] for row in self.connection.execute("SELECT id FROM tournaments ORDER BY id")]
        return [tournament for id in ids if (tournament := self.tournament(id)) is not None]

    def tournament(self, tournament_id: int) -> TournamentRecord | None:
        execute = self.connection.execute
        row = execute(
            "SELECT id, format, status, started_at, ended_at, settings, game, host FROM tournaments WHERE id = ?",
            (tournament_id,),
        ).fetchone()
        if row is None:
            return None
        last, counts = self._last_games(tournament_id)
        entrants = tuple(
            EntrantRecord(entrant, name, rank, points, mu, sigma, bool(winner), failure, failed_round,
                          *last.get(entrant, (None, None, None)), *counts.get(entrant, (0, 0)))
            for entrant, name, rank, points, mu, sigma, winner, failure, failed_round in execute(
                "SELECT entrant, name, rank, points, rating_mu, rating_sigma, winner, failure, failed_round"
                " FROM entrants WHERE tournament_id = ? ORDER BY entrant",
                (tournament_id,),
            )
        )
        games: dict[int, list[int]] = {}
        for game_id, round in execute("SELECT id, round FROM games WHERE tournament_id = ? ORDER BY id", (tournament_id,)):
            games.setdefault(round, []).append(game_id)
        rounds = [
            RoundRecord(number, started, ended, summary, tuple(games.pop(number, ())))
            for number, started, ended, summary in execute(
                "SELECT round, started_at, ended_at, summary FROM rounds WHERE tournament_id = ? ORDER BY round",
                (tournament_id,),
            )
        ]
        # Games of a round the host did not finish (it was killed): kept, in a round marked so.
        rounds += [RoundRecord(number, "", "", "unfinished", tuple(ids)) for number, ids in sorted(games.items())]
        resumptions = tuple(
            Resumption(round, at) for round, at in execute(
                "SELECT round, resumed_at FROM resumptions WHERE tournament_id = ? ORDER BY resumed_at",
                (tournament_id,),
            )
        )
        id, format, status, started, ended, settings, game, host = row
        return TournamentRecord(
            id, format, status, started, ended, json.loads(settings), entrants, tuple(rounds), game, resumptions, host
        )

    def tables(self, tournament_id: int) -> list[TableRecord]:
        """A tournament's tables as it decided them (``tournament_decisions.tables``)."""
        return decided.tables(self.connection, tournament_id)

    def failures(self, tournament_id: int) -> list[FailureRecord]:
        """A tournament's failures outside any game, in the order decided (``tournament_decisions.failures``)."""
        return decided.failures(self.connection, tournament_id)

    def _last_games(
        self, tournament_id: int
    ) -> tuple[dict[int, tuple[int, int | None, int | None]], dict[int, tuple[int, int]]]:
        """Each entrant's last game that counted for it: (round, place, score), no place or score if removed;
        and how many counted for it: (games, removals).

        A seat with no entrant (a play-off's filler) did not count for its player.
        """
        games: dict[tuple[int, int], dict[tuple[int, int | None], int | None]] = {}
        for game_id, round, seat, entrant, score in self.connection.execute(
            "SELECT games.id, games.round, players.seat, players.entrant, players.score FROM games JOIN players"
            " ON players.game_id = games.id WHERE games.tournament_id = ?",
            (tournament_id,),
        ):
            games.setdefault((round, game_id), {})[(seat, entrant)] = score
        last: dict[int, tuple[int, int | None, int | None]] = {}
        counts: dict[int, tuple[int, int]] = {}
        for (round, _), scores in sorted(games.items()):
            placed = places({seat: score for seat, score in scores.items() if score is not None})  # fillers too
            for (seat, entrant), score in scores.items():
                if entrant is not None:
                    last[entrant] = (round, placed.get((seat, entrant)), score)
                    played, removals = counts.get(entrant, (0, 0))
                    counts[entrant] = (played + 1, removals + (score is None))
        return last, counts


def reading(path: str | Path, use: Callable[[ResultsStore], T]) -> T:
    """``use(store)`` on the existing store at ``path`` (a file, or a PostgreSQL URL), closed afterwards;
    ``StoreError`` if there is none."""
    if not dialect_of(path).found(path):
        raise StoreError(f"no results database at {path}")
    store = ResultsStore.open(path)
    try:
        return use(store)
    finally:
        store.close()
