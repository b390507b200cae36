# -*- test-case-name: tests.web.test_model, tests.web.test_tables -*-
"""The reads the web view makes of the results store, and the JSON of stored games they answer with.

Offers the read functions its read process runs (``evolution.web.read_process``;
each ``function(store, *args)``): ``recent_games(store, limit, before)`` (with
the end of game ``before``, which pages the games of every host by time),
``game_and_log(store, id)``, ``stored_or_running(store, id)`` (a stored
game, else one a host is playing now), ``tournament_and_games(store, id)``
(with those of its games hosts are playing now), ``all_tournaments(store)``,
``ladder(store, game, limit)``, ``ladder_removals(store, game)`` (the
newest, with their reasons), ``player(store, name, game, limit, before)`` (a
player's page: its games a page at a time with their opponents, its
tournaments, removals, ratings over time; ``evolution.store.player_history``),
``players(store, search, limit, after)`` (the players list: names holding
``search``, each with its games and when it was last seen), ``stored_overview(store, game)`` (with
the games every host is playing now) and ``hosts(store)``;
and the JSON of what is stored (docs/web-view.md documents each shape):

- ``finished_game(record)``: a stored (or just finished) game: times, deck,
  outcome, turns, tournament (or whether it is a ladder game), how its ranks
  split equal scores (``tie_break``), and every seat with its score, rank and
  place (equal scores share one), or when and why it was removed
  (``seats_json``);
- ``player_game(record, name)``: one game of a player's page;
- ``running_json(row)``: a game a host is playing now, as the store notes it
  (``ResultsStore.running_games``): who plays it, since when, on which host;
  no live picture (that is on its host's own web view);
- ``leaderboard(tournaments)``: every player's Swiss rating from the latest
  stored Swiss tournament it played in, established ratings first
  (``ratings.tier``), then by ``mu - 3 sigma`` (the conservative value the
  Swiss standings sort by); equal values share a rank.

``Missing``: what a read was asked for does not exist (its message says what).
"""

from __future__ import annotations

from typing import Any, Iterable

from evolution.store import player_history as history
from evolution.store.accounts import Accounts
from evolution.store.records import GameRecord, TournamentRecord, tournament_place
from evolution.store.results_store import ResultsStore
from evolution.tournament.ladder_standings import shared_ranks
from evolution.tournament.ratings import provisional, tier

Json = Any
LEADERS = 50
RECENT = 10
REMOVALS = 50  # the newest removals a ladder's or a player's page lists
TOURNAMENTS = 50  # the newest tournaments a player's page lists
POINTS = 200  # points of a rating chart at most: a bot's ladder games, its Swiss tournaments


class Missing(Exception):
    """What was asked for does not exist; the message says what."""


# -- reads (in the web view's read process) ----------------------------------------


def recent_games(
    store: ResultsStore, limit: int, before: int | None = None
) -> tuple[list[GameRecord], tuple[str, int] | None]:
    """The ``limit`` stored games that ended last, before game ``before`` ended (``ResultsStore.recent_games``: by
    time, whatever host played them), newest first; and game ``before``'s (end, id), None if it is not stored."""
    found = None if before is None else store.game(before)
    return store.recent_games(limit, before), None if found is None else (found.ended_at, found.id)


def game_and_log(store: ResultsStore, game_id: int) -> tuple[GameRecord | None, list | None]:
    game = store.game(game_id)
    return game, (store.game_log(game_id) if game is not None else None)


def stored_or_running(store: ResultsStore, game_id: int) -> GameRecord | Json | None:
    """Game ``game_id`` as stored, else as a host playing it now noted it (``running_json``), else None."""
    record = store.game(game_id)
    if record is not None:
        return record
    return next((running_json(row) for row in store.running_games() if row["id"] == game_id), None)


def tournament_and_games(
    store: ResultsStore, tournament_id: int
) -> tuple[TournamentRecord | None, list[GameRecord], list[Json]]:
    """A tournament, its stored games, and those of its games a host is playing now (``running_json``)."""
    tournament = store.tournament(tournament_id)
    if tournament is None:
        return None, [], []
    running = [running_json(row) for row in store.running_games() if row["tournament_id"] == tournament_id]
    return tournament, store.games(tournament_id), running


def all_tournaments(store: ResultsStore) -> list[TournamentRecord]:
    return store.tournaments()


def ladder(store: Any, game: str, limit: int | None = None) -> list[Json]:
    """``game``'s ladder, best first; each bot's ``last_seen``: when its newest ladder game ended."""
    rows = [standing.to_json(rank) for rank, standing in store.ladder(game, limit)]
    seen = history.last_seen(store, [row["name"] for row in rows], game)
    return [row | {"last_seen": seen.get(row["name"])} for row in rows]


def players(store: ResultsStore, search: str, limit: int, after: str | None = None) -> Json:
    """The players list: ``{"players": [{"name", "games", "last_seen"}], "next"}`` (``next``: the ``after`` of the
    page after, or None), names holding ``search`` in the store's order of names."""
    names = history.names(store, search, limit, after)
    seen = history.last_seen(store, names)
    rows = [{"name": name, "games": history.counts(store, name)[0], "last_seen": seen.get(name)} for name in names]
    return {"players": rows, "next": names[-1] if len(names) == limit else None}


def stored_overview(store: Any, game: str) -> Json:
    """The overview's stored part: the newest games, the tournaments, the leaderboard and ladder of ``game``, and
    the games every host is playing now (``running_json``; the web view shows its own host's live instead)."""
    tournaments = all_tournaments(store)
    return {
        "recent_games": [finished_game(game) for game in store.recent_games(RECENT)],
        "tournaments": [tournament.to_json() for tournament in tournaments],
        "leaderboard": leaderboard(t for t in tournaments if t.game == game),
        "ladder": ladder(store, game, LEADERS),
        "running_games": [running_json(row) for row in store.running_games()],
    }


def hosts(store: ResultsStore) -> list[Json]:
    """Every host of the store (``ResultsStore.hosts``: its games stored, running now, when its last one ended).

    It counts every stored game (no index holds them by host): the web view reads it seldom (``model.HOSTS_MAX_AGE``).
    """
    return store.hosts()


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
    ids = history.game_ids(store, name, limit, before)
    records = {record.id: record for record in store.games_by_id(ids)}
    rows = [player_game(records[game_id], name) for game_id in ids if game_id in records]
    standing = history.ladder_standing(store, name, game)
    return {
        "name": name,
        "game": game,
        "counts": {"games": games, "removals": removed},
        "games": rows,
        "next": rows[-1]["id"] if len(rows) == limit else None,
        "removals": history.removals(store, REMOVALS, name=name),
        "tournaments": history.tournaments(store, name, TOURNAMENTS),
        "ladder": None if standing is None else standing[1].to_json(standing[0]),
        "account": Accounts(store.connection).mark(name),  # its owner and whether banned; a guest; None
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
        "host": record.host,
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
    its place is shared; ``tie_break``: how the game's ranks split the tie), points or removal, and its opponents
    (``{"name", "place", "score"}`` in seat order)."""
    seat = next(seat for seat in record.players if seat.name == name)
    placed = record.places()
    place = placed.get(seat.seat)
    tied = place is not None and list(placed.values()).count(place) > 1
    row = {
        "id": record.id, "game": record.game, "host": record.host, "ended_at": record.ended_at,
        "outcome": record.outcome,
        "tournament": tournament_place(record.tournament_id, record.round), "ladder": record.ladder,
        "players": len(record.players), "seat": seat.seat, "score": seat.score, "rank": seat.rank, "place": place,
        "tied": tied, "tie_break": record.tie_break() if tied else None, "removed": seat.removal(),
        "opponents": [{"name": other.name, "place": placed.get(other.seat), "score": other.score}
                      for other in record.players if other.seat != seat.seat],
    }
    if seat.points is not None:
        row["points"] = seat.points
    return row


def running_json(row: dict[str, Any]) -> Json:
    """A game a host is playing now, as the store notes it when it begins (``ResultsStore.running_games``): its
    seats' names, no score; ``live`` false: its live picture is on its host's own web view."""
    return {
        "id": row["id"], "game": row["game"], "host": row["host"], "status": "running", "live": False,
        "started_at": row["started_at"], "tournament": tournament_place(row["tournament_id"], row["round"]),
        "ladder": row["ladder"],
        "players": [{"seat": seat, "name": name, "score": None, "removed": None}
                    for seat, name in enumerate(row["names"], start=1)],
    }


def leaderboard(tournaments: Iterable[TournamentRecord], limit: int = LEADERS) -> list[Json]:
    """Each player's rating after its latest Swiss tournament (by when it began: tournaments of several hosts have
    ids of each host's own): established first (``ratings.tier``), then by mu - 3 sigma; ``games`` and ``removals``
    count its games in that tournament, which rated it."""
    latest: dict[str, Json] = {}
    played: dict[str, int] = {}
    for tournament in sorted(tournaments, key=lambda t: (t.started_at, t.id)):
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
