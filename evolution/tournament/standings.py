"""Who is in a tournament and how each stands.

Offers ``Entrant`` (one player: sign-up number, name, points, the round it
was knocked out or failed in, its last game's place and score), ``Seat``
(one entrant's result in one game, as a referee reports it), ``GameReport``,
``record_game`` (points and last-game facts from a report) and ``ranked``
(standings: a rank per entrant, equal keys sharing a rank, failures last and
unranked).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from evolution.tournament.scoring import places, points


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
    last_place: int | None = None
    last_score: int | None = None
    winner: bool = False

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
    """Give each seat its place and points (kept in the report too); a removed seat fails its entrant for good."""
    scores = {seat.entrant: seat.score for seat in report.seats if seat.failure is None and seat.score is not None}
    report.places = places(scores)
    size = len(report.seats)
    for seat in report.seats:
        entrant = seat.entrant
        entrant.games += 1
        if seat.failure is not None:
            entrant.fail(round, seat.failure)
            entrant.last_place, entrant.last_score = None, None
            continue
        place = report.places.get(entrant)
        entrant.last_place, entrant.last_score = place, seat.score
        report.points[entrant] = points(place, size) if place is not None else 0
        entrant.points += report.points[entrant]
    return report


def ranked(entrants: Sequence[Entrant], key: Callable[[Entrant], tuple]) -> list[tuple[int | None, Entrant]]:
    """(rank, entrant) best first: by ``key`` (smaller is better), equal keys sharing a rank; failures last, unranked."""
    standing = sorted((e for e in entrants if e.failure is None), key=lambda e: (key(e), e.number))
    failed = sorted((e for e in entrants if e.failure is not None), key=lambda e: (-(e.failed_round or 0), e.number))
    result: list[tuple[int | None, Entrant]] = []
    previous, rank = None, 0
    for index, entrant in enumerate(standing):
        if key(entrant) != previous:
            rank, previous = index + 1, key(entrant)
        result.append((rank, entrant))
    return result + [(None, entrant) for entrant in failed]
