# -*- test-case-name: tests.web.test_model, tests.web.test_tables -*-
"""The reads the web view makes of the results store, and the JSON of stored games they answer with.

Offers the read functions its read process runs (``evolution.web.read_process``;
each ``function(store, *args)``): ``recent_games(store, limit, before)``,
``game_and_log(store, id)``, ``stored_game(store, id)``,
``tournament_and_games(store, id)``, ``all_tournaments(store)``,
``ladder(store, game, limit)`` and ``stored_overview(store, game)``; and the
JSON of what is stored (the README's web API documents each shape):

- ``finished_game(record)``: a stored (or just finished) game: times, deck,
  outcome, turns, tournament (or whether it is a ladder game), and every seat
  with its score and rank, or when and why it was removed (``seat_json``);
- ``leaderboard(tournaments)``: every player's Swiss rating from the latest
  stored Swiss tournament it played in, best first by ``mu - 3 sigma`` (the
  conservative value the Swiss standings sort by); equal values share a rank.

``Missing``: what a read was asked for does not exist (its message says what).
"""

from __future__ import annotations

from typing import Any, Iterable

from evolution.store.records import GameRecord, SeatRecord, TournamentRecord, tournament_place
from evolution.store.results_store import ResultsStore

Json = Any
LEADERS = 50
RECENT = 10


class Missing(Exception):
    """What was asked for does not exist; the message says what."""


# -- reads (in the web view's read process) ----------------------------------------


def recent_games(store: ResultsStore, limit: int, before: int | None = None) -> list[GameRecord]:
    """The newest ``limit`` stored games with ids below ``before``, newest first."""
    return store.recent_games(limit, before)


def game_and_log(store: ResultsStore, game_id: int) -> tuple[GameRecord | None, list | None]:
    game = store.game(game_id)
    return game, (store.game_log(game_id) if game is not None else None)


def stored_game(store: ResultsStore, game_id: int) -> GameRecord | None:
    return store.game(game_id)


def tournament_and_games(store: ResultsStore, tournament_id: int) -> tuple[TournamentRecord | None, list[GameRecord]]:
    tournament = store.tournament(tournament_id)
    return tournament, (store.games(tournament_id) if tournament is not None else [])


def all_tournaments(store: ResultsStore) -> list[TournamentRecord]:
    return store.tournaments()


def ladder(store: Any, game: str, limit: int | None = None) -> list[Json]:
    return [standing.to_json(rank) for rank, standing in store.ladder(game, limit)]


def stored_overview(store: Any, game: str) -> Json:
    tournaments = all_tournaments(store)
    return {
        "recent_games": [finished_game(game) for game in recent_games(store, RECENT)],
        "tournaments": [tournament.to_json() for tournament in tournaments],
        "leaderboard": leaderboard(tournaments),
        "ladder": ladder(store, game, LEADERS),
    }


# -- the JSON of what is stored ----------------------------------------------------


def seat_json(seat: SeatRecord) -> Json:
    data = seat.summary()
    if seat.points is not None:
        data["points"] = seat.points
    return data


def finished_game(record: GameRecord) -> Json:
    return {
        "id": record.id,
        "game": record.game,
        "status": "finished",
        "outcome": record.outcome,
        "started_at": record.started_at,
        "ended_at": record.ended_at,
        "turns": record.turns,
        "deck": record.deck,
        "seed": record.seed,
        "tournament": tournament_place(record.tournament_id, record.round),
        "ladder": record.ladder,
        "players": [seat_json(seat) for seat in record.players],
    }


def leaderboard(tournaments: Iterable[TournamentRecord], limit: int = LEADERS) -> list[Json]:
    latest: dict[str, Json] = {}
    played: dict[str, int] = {}
    for tournament in sorted(tournaments, key=lambda t: t.id):
        if tournament.format != "swiss":
            continue
        for entrant in tournament.entrants:
            if entrant.rating_mu is None or entrant.rating_sigma is None:
                continue
            played[entrant.name] = played.get(entrant.name, 0) + 1
            latest[entrant.name] = {
                "name": entrant.name,
                "rating": round(entrant.rating_mu, 3),
                "rating_sigma": round(entrant.rating_sigma, 3),
                "ordinal": round(entrant.rating_mu - 3 * entrant.rating_sigma, 3),
                "tournament": tournament.id,
            }
    rows = sorted(latest.values(), key=lambda row: (-row["ordinal"], row["name"]))[:limit]
    for index, row in enumerate(rows):
        tied = index and rows[index - 1]["ordinal"] == row["ordinal"]
        row["rank"] = rows[index - 1]["rank"] if tied else index + 1
        row["tournaments"] = played[row["name"]]
    return rows
