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
  of that name;
- ``tournaments(store, name, limit)``: its place and points in each of its
  latest ``limit`` tournaments, newest first;
- ``names(store, search, limit, after)``: the names of the store's players
  (those with a game stored) that hold ``search`` (any case of ASCII), in the
  store's order of names, ``limit`` of them after the name ``after``;
- ``last_seen(store, names, game)``: when the newest game of each of
  ``names`` ended (of ``game``'s ladder, if given).

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


def tournaments(store: ResultsStore, name: str, limit: int) -> list[Json]:
    """``{"tournament", "game", "format", "status", "started_at", "rank", "points", "entrants", "winner", "failure"}``
    for its latest ``limit`` tournaments, newest first (``points``: a Swiss's tournament points, else None)."""
    newest = "tournaments.started_at DESC, tournaments.id DESC" if store.shared else "tournaments.id DESC"
    rows = store.connection.execute(
        "SELECT tournaments.id, tournaments.game, tournaments.format, tournaments.status, tournaments.started_at,"
        " entrants.rank, entrants.points, entrants.winner, entrants.failure,"
        " (SELECT COUNT(*) FROM entrants AS others WHERE others.tournament_id = tournaments.id)"
        " FROM entrants JOIN tournaments ON tournaments.id = entrants.tournament_id"
        f" WHERE entrants.name = CAST(? AS TEXT) ORDER BY {newest} LIMIT ?",
        (stored(name), limit),
    )
    return [
        {"tournament": id, "game": game, "format": format, "status": status, "started_at": started, "rank": rank,
         "points": points if format == "swiss" else None, "entrants": count, "winner": bool(winner),
         "failure": failure}
        for id, game, format, status, started, rank, points, winner, failure, count in rows
    ]


def _like(search: str) -> str:
    """``search`` as a LIKE pattern that finds it anywhere (its own ``%``, ``_`` and ``\\`` taken literally)."""
    escaped = search.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def names(store: ResultsStore, search: str, limit: int, after: str | None = None) -> list[str]:
    """The names with a game stored that hold ``search``, ``limit`` of them after ``after``, in the store's order.

    It reads every name (the index on names, no table): a store of a million seats takes a second or so."""
    rows = store.connection.execute(
        "SELECT DISTINCT name FROM players WHERE name > CAST(? AS TEXT) AND LOWER(name) LIKE CAST(? AS TEXT) ESCAPE '\\'"
        " ORDER BY name LIMIT ?",
        (stored(after or ""), stored(_like(search)), limit),
    )
    return [row[0] for row in rows]


def last_seen(store: ResultsStore, names: list[str], game: str | None = None) -> dict[str, str]:
    """``{name: when its newest game ended}`` (of ``game``'s ladder, if given; a name with none is left out): one read
    a name, newest first through the index on names (by id where ids are in time order; in a store several hosts
    share, by when they ended: bounded by that player's games)."""
    newest = "games.ended_at DESC, games.id DESC" if store.shared else "players.game_id DESC"
    where, args = (" AND games.ladder = 1 AND games.game = ?", (game,)) if game is not None else ("", ())
    seen = {}
    for name in names:
        row = store.connection.execute(
            "SELECT games.ended_at FROM players JOIN games ON games.id = players.game_id"
            f" WHERE players.name = CAST(? AS TEXT){where} ORDER BY {newest} LIMIT 1",
            (stored(name), *args),
        ).fetchone()
        if row is not None:
            seen[name] = row[0]
    return seen
