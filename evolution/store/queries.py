# -*- test-case-name: tests.web.test_model, tests.web.test_tables -*-
"""The reads the web view makes of the results store, and the JSON of stored games they answer with.

Offers the read functions its read process runs (``evolution.web.read_process``;
each ``function(store, *args)``): ``recent_games(store, limit, before)``,
``game_and_log(store, id)``, ``stored_game(store, id)``,
``tournament_and_games(store, id)``, ``all_tournaments(store)``,
``ladder(store, game, limit)``, ``ladder_removals(store, game)`` (the
newest, with their reasons), ``player(store, name, game, limit, before)`` (a
player's page: its games a page at a time, removals, ratings over time;
``evolution.store.player_history``) and ``stored_overview(store, game)``;
and the JSON of what is stored (docs/web-view.md documents each shape):

- ``finished_game(record)``: a stored (or just finished) game: times, deck,
  outcome, turns, tournament (or whether it is a ladder game), how its ranks
  split equal scores (``tie_break``), and every seat with its score, rank and
  place (equal scores share one), or when and why it was removed
  (``seats_json``);
- ``player_game(record, name)``: one game of a player's page;
- ``leaderboard(tournaments)``: every player's Swiss rating from the latest
  stored Swiss tournament it played in, established ratings first
  (``ratings.tier``), then by ``mu - 3 sigma`` (the conservative value the
  Swiss standings sort by); equal values share a rank.

``Missing``: what a read was asked for does not exist (its message says what).
"""

from __future__ import annotations

from typing import Any, Iterable

from evolution.store import player_history as history
from evolution.store.records import GameRecord, TournamentRecord, tournament_place
from evolution.store.results_store import ResultsStore
from evolution.tournament.ladder_standings import shared_ranks
from evolution.tournament.ratings import provisional, tier

Json = Any
LEADERS = 50
RECENT = 10
REMOVALS = 50  # the newest removals a ladder's or a player's page lists
POINTS = 200  # points of a rating chart at most: a bot's ladder games, its Swiss tournaments


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
        "leaderboard": leaderboard(t for t in tournaments if t.game == game),
        "ladder": ladder(store, game, LEADERS),
    }


def ladder_removals(store: ResultsStore, game: str) -> list[Json]:
    """The newest ``REMOVALS`` removals of ``game``'s ladder games, with their reasons."""
    return history.removals(store, REMOVALS, game=game)


def player(store: ResultsStore, name: str, game: str, limit: int, before: int | None = None) -> Json | None:
    """A player's page (None if the store has no game or tournament entry of that name): how many games it sat in
    and was removed from; its newest ``limit`` games below ``before`` (``next``: the ``before`` of the page after,
    or None); its newest removals; its standing in ``game``'s ladder; its ratings over time (``game``'s ladder and
    Swiss tournaments)."""
    if not history.known(store, name):
        return None
    games, removed = history.counts(store, name)
    rows = [player_game(record, name) for record in store.games_by_id(history.game_ids(store, name, limit, before))]
    standing = history.ladder_standing(store, name, game)
    return {
        "name": name,
        "game": game,
        "counts": {"games": games, "removals": removed},
        "games": rows,
        "next": rows[-1]["id"] if len(rows) == limit else None,
        "removals": history.removals(store, REMOVALS, name=name),
        "ladder": None if standing is None else standing[1].to_json(standing[0]),
        "ratings": {
            "ladder": history.ladder_series(store, name, game, POINTS),
            "swiss": history.swiss_series(store, name, game, POINTS),
        },
    }


# -- the JSON of what is stored ----------------------------------------------------


def seats_json(record: GameRecord) -> list[Json]:
    """Each seat's summary with its place (``GameRecord.seat_summaries``), and in a Swiss its points."""
    return [
        data if seat.points is None else data | {"points": seat.points}
        for seat, data in zip(record.players, record.seat_summaries())
    ]


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
        "tie_break": record.tie_break(),
        "players": seats_json(record),
    }


def player_game(record: GameRecord, name: str) -> Json:
    """One game of a player's page: the game, and the player's seat in it with its score, rank and place (``tied``:
    its place is shared; ``tie_break``: how the game's ranks split the tie), points or removal."""
    seat = next(seat for seat in record.players if seat.name == name)
    placed = record.places()
    place = placed.get(seat.seat)
    tied = place is not None and list(placed.values()).count(place) > 1
    row = {
        "id": record.id, "game": record.game, "ended_at": record.ended_at, "outcome": record.outcome,
        "tournament": tournament_place(record.tournament_id, record.round), "ladder": record.ladder,
        "players": len(record.players), "seat": seat.seat, "score": seat.score, "rank": seat.rank, "place": place,
        "tied": tied, "tie_break": record.tie_break() if tied else None, "removed": seat.removal(),
    }
    if seat.points is not None:
        row["points"] = seat.points
    return row


def leaderboard(tournaments: Iterable[TournamentRecord], limit: int = LEADERS) -> list[Json]:
    """Each player's rating after its latest Swiss tournament: established first (``ratings.tier``), then by
    mu - 3 sigma; ``games`` and ``removals`` count its games in that tournament, which rated it."""
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
                "games": entrant.games,
                "removals": entrant.removals,
                "provisional": provisional(entrant.games, entrant.removals),
            }
    order = {name: (tier(row["games"], row["removals"]), -row["ordinal"]) for name, row in latest.items()}
    rows = sorted(latest.values(), key=lambda row: (order[row["name"]], row["name"]))[:limit]
    for row, rank in zip(rows, shared_ranks([order[row["name"]] for row in rows])):
        row["rank"] = rank
        row["tournaments"] = played[row["name"]]
    return rows
