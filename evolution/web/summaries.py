"""Games, tournaments, the lobby and the rating leaderboard as the web view's JSON.

Offers pure functions from the host's values to JSON (the README's "Web
view" section documents each shape):

- ``finished_game(record)``: a stored (or just finished) game: times, deck,
  outcome, turns, tournament (or whether it is a ladder game), and every seat with its score and rank, or when
  and why it was removed;
- ``lobby_json(lobby, clock)``: who is waiting, and when the sign-up window
  starts a game (or, in tournament mode, which sign-up period runs and how
  long it has left);
- ``leaderboard(tournaments)``: every player's Swiss rating from the latest
  stored Swiss tournament it played in, best first by ``mu - 3 sigma`` (the
  conservative value the Swiss standings sort by); equal values share a rank.

A running game's JSON is made where the game runs, in the host's process or
a worker (``evolution.host.live_pictures``).
"""

from __future__ import annotations

from typing import Any, Iterable

from evolution.host.live_pictures import tournament_place
from evolution.host.records import GameRecord, SeatRecord, TournamentRecord

Json = Any
LEADERS = 50


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


def lobby_json(lobby: Any, clock: Any) -> Json:
    """The sign-up lobby (``SignupFactory.status``), with the countdown in seconds from now."""
    if lobby is None:
        return {"mode": "games", "waiting": [], "open": False, "starts_in": None}
    data = dict(lobby.status())
    for at, left in (("starts_at", "starts_in"), ("period_ends_at", "period_ends_in")):
        if at in data:
            when = data.pop(at)
            data[left] = None if when is None else round(max(0.0, when - clock.seconds()), 2)
    return data


def lobby_digest(lobby: Any) -> tuple:
    """What changes when the lobby's picture does (the countdown runs in the page)."""
    return () if lobby is None else tuple(sorted((key, str(value)) for key, value in lobby.status().items()))


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
