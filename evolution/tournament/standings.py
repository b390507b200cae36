# -*- test-case-name: tests.tournament.test_formats, tests.games.fish.test_tournaments -*-
"""Who is in a tournament and how each stands.

Offers ``Entrant`` (one player: sign-up number, name, points, the round it
was knocked out or failed in, its last game's round, place and score),
``Seat`` (one entrant's result in one game, as a referee reports it),
``GameReport``, ``record_game`` (points and last-game facts from a report)
and ``ranked`` (standings: a rank per entrant, equal keys sharing a rank,
failures last and unranked); ``RANKED_BY``, what each format's standings
compare, in order, in words (for every page and table that shows them), and
a knockout's final tie-breaks (``FINAL_TIEBREAKS``, ``PLAYOFFS``).

A game counts for every entrant in it except a filler (``Entrant.filler``):
a player a knockout seats in a play-off only to make up the smallest game,
whose result there, failure included, changes nothing of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from evolution.tournament.scoring import places, points

FINAL_TIEBREAKS = ("co-winners", "playoff")  # how a knockout's final tied for first ends (formats.Knockout)
PLAYOFFS = 3  # play-offs of one tied final at most; then the players still tied are co-winners
RANKED_BY = {
    "knockout": ("winners first", "the round reached", "the place in that round's game", "the score in it"),
    "swiss": ("points", "the rating mu - 3 sigma"),
}


@dataclass(eq=False)
class Entrant:
    """One player of a tournament; the same object from sign-up to the end."""

    number: int  # 1, 2, ... in sign-up order
    name: str
    handle: Any = None  # what the referee plays with (the host: the connection)
    points: int = 0
    games: int = 0
    failure: str | None = None
    failed_round: int | None = None
    out_round: int | None = None  # knockout: the round that eliminated it
    last_round: int | None = None  # the round of the last game that counted for it
    last_place: int | None = None
    last_score: int | None = None
    winner: bool = False
    filler: bool = False  # seated in a knockout's play-off only to make up the game: it does not count for it

    @property
    def active(self) -> bool:
        """Still playing: neither failed nor knocked out."""
        return self.failure is None and self.out_round is None

    def fail(self, round: int, reason: str) -> None:
        if self.failure is None:
            self.failure, self.failed_round = reason, round

    def __repr__(self) -> str:
        return f"Entrant({self.number}, {self.name!r})"


@dataclass(frozen=True)
class Seat:
    """An entrant's result in one game: its score, or why it was removed."""

    entrant: Entrant
    score: int | None = None
    failure: str | None = None


@dataclass
class GameReport:
    """One game of a round: the seats in turn order, and (filled in by ``record_game``) the places."""

    seats: list[Seat]
    game_id: int | None = None
    places: dict[Entrant, int] = field(default_factory=dict)
    points: dict[Entrant, int] = field(default_factory=dict)  # what the game gave each entrant
    settled: bool = False

    def first(self) -> list[Entrant]:
        """The entrants tied for first, in sign-up order."""
        return sorted((e for e, place in self.places.items() if place == 1), key=lambda e: e.number)


def record_game(report: GameReport, round: int) -> GameReport:
    """Give each seat its place and points (kept in the report too); a removed seat fails its entrant for good.

    A filler's seat takes part in the places (it was in the game) but changes nothing of the filler's.
    """
    scores = {seat.entrant: seat.score for seat in report.seats if seat.failure is None and seat.score is not None}
    report.places = places(scores)
    size = len(report.seats)
    for seat in report.seats:
        entrant = seat.entrant
        if entrant.filler:
            continue
        entrant.games += 1
        entrant.last_round = round
        if seat.failure is not None:
            entrant.fail(round, seat.failure)
            entrant.last_place, entrant.last_score = None, None
            continue
        place = report.places.get(entrant)
        entrant.last_place, entrant.last_score = place, seat.score
        report.points[entrant] = points(place, size) if place is not None else 0
        entrant.points += report.points[entrant]
    return report


def ranked(
    entrants: Sequence[Entrant], key: Callable[[Entrant], tuple], first: int = 1
) -> list[tuple[int | None, Entrant]]:
    """(rank, entrant) best first: by ``key`` (smaller is better), equal keys sharing a rank; failures last, unranked.

    Ranks count from ``first`` (a knockout whose final had no winner leaves rank 1 to nobody).
    """
    standing = sorted((e for e in entrants if e.failure is None), key=lambda e: (key(e), e.number))
    failed = sorted((e for e in entrants if e.failure is not None), key=lambda e: (-(e.failed_round or 0), e.number))
    result: list[tuple[int | None, Entrant]] = []
    previous, rank = None, 0
    for index, entrant in enumerate(standing):
        if key(entrant) != previous:
            rank, previous = index + first, key(entrant)
        result.append((rank, entrant))
    return result + [(None, entrant) for entrant in failed]
