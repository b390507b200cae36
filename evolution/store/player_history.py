# -*- test-case-name: tests.store.test_player_history -*-
"""A player's history in the results store, by name: its games, its removals, its ratings over time.

Offers the reads the web view's player page and ladder page make
(``evolution.store.queries``), each bounded however many games the player
has played (the store's ``players_by_name`` and ``removals`` indexes, schema
version 5):

- ``counts(store, name)``: how many games the player sat in, and how many it
  was removed from;
- ``game_ids(store, name, limit, before)``: the ids of its newest ``limit``
  games older than game ``before``, newest first;
- ``removals(store, limit, name=None, game=None)``: the newest ``limit``
  removals of a player (by name) or of ``game``'s ladder: ``{"id" (the
  game's), "game", "ended_at", "seat", "name", "turn", "step", "reason"}``,
  newest first;
- ``ladder_series(store, name, game, points)``: the bot's rating after its
  ladder games of ``game``, at most ``points`` of them spread evenly over
  all (the first and the last always among them), oldest first;
- ``swiss_series(store, name, game, limit)``: its rating at the end of each
  of its latest ``limit`` Swiss tournaments of ``game``, oldest first;
- ``ladder_standing(store, name, game)``: its rank and ``Standing`` in
  ``game``'s ladder (ranked as ``ResultsStore.ladder`` ranks), or None;
- ``known(store, name)``: whether the store has any game or tournament entry
  of that name.

Names are compared exactly as stored (``database.stored``: any JSON string).

Newest means by time. In a store one host writes (SQLite's) its ids are
in time order, and the reads go by id, through the indexes alone; in one
several hosts share (PostgreSQL's) each host numbers its games and
tournaments in blocks of its own, so they go by when a game ended and a
tournament began (a player's games found by the index on names, then
sorted: bounded by the player's games, not the store's).
"""

from __future__ import annotations

from typing import Any

from evolution.store.database import stored
from evolution.store.results_store import LADDER_TIER, ResultsStore
from evolution.tournament.ladder_standings import Standing
from evolution.tournament.ratings import ESTABLISHED

Json = Any
NEWEST = 2**62


def counts(store: ResultsStore, name: str) -> tuple[int, int]:
    """(games it sat in, games it was removed from)."""
    execute = store.connection.execute
    [games] = execute("SELECT COUNT(*) FROM players WHERE name = CAST(? AS TEXT)", (stored(name),)).fetchone()
    [removed] = execute(
        "SELECT COUNT(*) FROM players WHERE name = CAST(? AS TEXT) AND removed_reason IS NOT NULL", (stored(name),)
    ).fetchone()
    return games, removed


def game_ids(store: ResultsStore, name: str, limit: int, before: int | None = None) -> list[int]:
    """The ids of its newest ``limit`` games, newest first: those that ended before game ``before`` (if given)."""
    if not store.shared:
        rows = store.connection.execute(
            "SELECT game_id FROM players WHERE name = CAST(? AS TEXT) AND game_id < ? ORDER BY game_id DESC LIMIT ?",
            (stored(name), NEWEST if before is None else before, limit),
        )
        return [row[0] for row in rows]
    where, args = _ended_before(before)
    rows = store.connection.execute(
        "SELECT players.game_id FROM players JOIN games ON games.id = players.game_id"
        f" WHERE players.name = CAST(? AS TEXT){where} ORDER BY games.ended_at DESC, games.id DESC LIMIT ?",
        (stored(name), *args, limit),
    )
    return [row[0] for row in rows]


def _ended_before(before: int | None) -> tuple[str, tuple]:
    """The condition (and its values) on ``games`` of ending before game ``before`` did (its id breaks a tie)."""
    if before is None:
        return "", ()
    end = "(SELECT ended_at FROM games WHERE id = ?)"
    return f" AND (games.ended_at < {end} OR (games.ended_at = {end} AND games.id < ?))", (before, before, before)


def removals(store: ResultsStore, limit: int, name: str | None = None, game: str | None = None) -> list[Json]:
    """The newest ``limit`` removals of the player ``name`` (any game), or else of ``game``'s ladder."""
    if name is not None:
        where, args = "players.name = CAST(? AS TEXT)", (stored(name),)
    else:
        where, args = "games.ladder = 1 AND games.game = ?", (game,)
    newest = "games.ended_at DESC, games.id DESC" if store.shared else "players.game_id DESC"
    rows = store.connection.execute(
        "SELECT players.game_id, games.game, games.ended_at, players.seat, players.name, players.removed_turn,"
        " players.removed_step, players.removed_reason FROM players JOIN games ON games.id = players.game_id"
        f" WHERE players.removed_reason IS NOT NULL AND {where} ORDER BY {newest}, players.seat LIMIT ?",
        (*args, limit),
    )
    return [
        {"id": game_id, "game": kind, "ended_at": ended, "seat": seat, "name": who, "turn": turn, "step": step,
         "reason": reason}
        for game_id, kind, ended, seat, who, turn, step, reason in rows
    ]


def ladder_series(store: ResultsStore, name: str, game: str, points: int) -> list[Json]:
    """``{"id", "ended_at", "rating", "rating_sigma"}`` after its ladder games, oldest first: ``points`` + 1 at
    most, spread evenly."""
    order = "games.ended_at, players.game_id" if store.shared else "players.game_id"
    rows = store.connection.execute(
        "WITH series AS (SELECT players.game_id AS id, games.ended_at AS ended, players.rating_mu AS mu,"
        f" players.rating_sigma AS sigma, ROW_NUMBER() OVER (ORDER BY {order}) AS k,"
        " COUNT(*) OVER () AS n FROM players JOIN games ON games.id = players.game_id"
        " WHERE players.name = CAST(? AS TEXT) AND games.ladder = 1 AND games.game = ? AND players.rating_mu IS NOT NULL)"
        " SELECT id, ended, mu, sigma FROM series WHERE (k - 1) % ((n + ? - 1) / ?) = 0 OR k = n ORDER BY k",
        (stored(name), game, points, points),
    )
    return [{"id": id, "ended_at": ended, "rating": round(mu, 3), "rating_sigma": round(sigma, 3)}
            for id, ended, mu, sigma in rows]


def swiss_series(store: ResultsStore, name: str, game: str, limit: int) -> list[Json]:
    """``{"tournament", "ended_at", "rating", "rating_sigma", "rank"}`` at the end of its latest Swiss tournaments."""
    newest = "tournaments.started_at DESC, tournaments.id DESC" if store.shared else "tournaments.id DESC"
    rows = store.connection.execute(
        "SELECT tournaments.id, tournaments.ended_at, entrants.rating_mu, entrants.rating_sigma, entrants.rank"
        " FROM entrants JOIN tournaments ON tournaments.id = entrants.tournament_id"
        " WHERE entrants.name = CAST(? AS TEXT) AND tournaments.format = 'swiss' AND tournaments.game = ?"
        f" AND entrants.rating_mu IS NOT NULL ORDER BY {newest} LIMIT ?",
        (stored(name), game, limit),
    ).fetchall()
    return [{"tournament": id, "ended_at": ended, "rating": round(mu, 3), "rating_sigma": round(sigma, 3),
             "rank": rank} for id, ended, mu, sigma, rank in reversed(rows)]


def ladder_standing(store: ResultsStore, name: str, game: str) -> tuple[int, Standing] | None:
    """Its rank in ``game``'s ladder (1 + the bots ranked above it) and its standing; None if it has none."""
    execute = store.connection.execute
    row = execute(
        "SELECT name, rating_mu, rating_sigma, games, wins, removals FROM ladder WHERE game = ?"
        " AND name = CAST(? AS TEXT)",
        (game, stored(name)),
    ).fetchone()
    if row is None:
        return None
    standing = Standing(*row)
    [above] = execute(
        f"SELECT COUNT(*) FROM ladder WHERE game = ? AND ({LADDER_TIER} < ? OR ({LADDER_TIER} = ?"
        " AND ROUND(CAST(rating_mu - 3 * rating_sigma AS NUMERIC), 3) > ?))",
        (game, ESTABLISHED, standing.tier, ESTABLISHED, standing.tier, round(standing.ordinal, 3)),
    ).fetchone()
    return above + 1, standing


def known(store: ResultsStore, name: str) -> bool:
    execute = store.connection.execute
    found = execute("SELECT 1 FROM players WHERE name = CAST(? AS TEXT) LIMIT 1", (stored(name),)).fetchone()
    return found is not None or execute(
        "SELECT 1 FROM entrants WHERE name = CAST(? AS TEXT) LIMIT 1", (stored(name),)
    ).fetchone() is not None
