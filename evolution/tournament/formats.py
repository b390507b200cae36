"""Tournament formats: small strategies that pick each round's games from the standings.

Offers ``Knockout`` and ``Swiss``, each with ``next_round(round, entrants)``
(the games of the next round, each a list of entrants in turn order, or
None when the tournament is over), ``round_over(round, reports, entrants)``,
``standings(entrants)`` (``[(rank, entrant)]``, failures last and unranked),
``game_over(report)`` (after each game), ``finish(entrants)`` (marks the
winners), ``rating(entrant)`` (``(mu, sigma)``; ``(None, None)`` in a
knockout) and ``rounds_expected(count)`` (for progress lines).

Knockout (tournament.md 2.3, without the reference's defects of 2.9): every
round splits the players still in, in sign-up order, into games
(``allocation``); everyone tied for first in a game advances. When a round
would leave fewer than the smallest game although more players finished
it, the best runners-up (place in their game, then score, then sign-up
order) advance until a final of at least the smallest size can be played.
Once the players still in fit one game, that game is the final: its first
place wins (ties are co-winners; a final whose players all failed has no
winner). A round that eliminates nobody (every game an all-way tie) ends the
tournament with those players as co-winners. A failing player is out for
good.

Swiss: a fixed number of rounds. Round 1 puts the players into games in a
seeded shuffle; later rounds sort them by points, then by rating (openskill
Plackett-Luce, updated after every game), and cut games from the top, so
players of similar standing meet ("pods"). Points per game: ``scoring``. A
failing player sits out the remaining rounds and keeps its points; the
standings list it after everyone who finished, unranked. The winners are the
players ranked first.
"""

from __future__ import annotations

import random
from typing import Sequence

from evolution.tournament.allocation import allocate, check_sizes
from evolution.tournament.ratings import Ratings
from evolution.tournament.standings import Entrant, GameReport, ranked

Games = list[list[Entrant]]
NEVER = 10**9


class Knockout:
    name = "knockout"

    def __init__(self, smallest: int, largest: int) -> None:
        check_sizes(smallest, largest)
        self.smallest, self.largest = smallest, largest
        self.final = False
        self.done = False
        self._winners: list[Entrant] = []

    def rounds_expected(self, count: int) -> int:
        """Rounds needed if each game has one winner (ties make it longer, failures shorter)."""
        rounds = 0
        while count > self.largest:
            count = max(len(allocate(range(count), self.smallest, self.largest)), self.smallest)
            rounds += 1
        return rounds + (1 if count >= self.smallest else 0)

    def next_round(self, round: int, entrants: Sequence[Entrant]) -> Games | None:
        if self.done:
            return None
        remaining = [entrant for entrant in entrants if entrant.active]
        if len(remaining) < self.smallest:  # failures left too few for a game: they win as they are
            self._winners = remaining
            self.done = True
            return None
        self.final = len(remaining) <= self.largest
        return allocate(remaining, self.smallest, self.largest)

    def game_over(self, report: GameReport) -> None:
        pass

    def round_over(self, round: int, reports: Sequence[GameReport], entrants: Sequence[Entrant]) -> None:
        started = [seat.entrant for report in reports for seat in report.seats]
        finished = [entrant for entrant in started if entrant.failure is None]
        advancing = [entrant for report in reports for entrant in report.first() if entrant.failure is None]
        if self.final:
            self._knock_out(finished, advancing, round)
            self._winners, self.done = advancing, True
            return
        if len(advancing) < self.smallest < len(finished):
            runners_up = sorted(
                (entrant for entrant in finished if entrant not in advancing),
                key=lambda e: (e.last_place or NEVER, -(e.last_score or 0), e.number),
            )
            advancing += runners_up[: self.smallest - len(advancing)]
        if len(advancing) == len(started):  # nobody eliminated: they are the winners
            self._winners, self.done = advancing, True
            return
        self._knock_out(finished, advancing, round)

    @staticmethod
    def _knock_out(finished: list[Entrant], advancing: list[Entrant], round: int) -> None:
        for entrant in finished:
            if entrant not in advancing:
                entrant.out_round = round

    def finish(self, entrants: Sequence[Entrant]) -> list[Entrant]:
        winners = [entrant for entrant in self._winners if entrant.failure is None]
        for entrant in winners:
            entrant.winner = True
        return winners

    def rating(self, entrant: Entrant) -> tuple[None, None]:
        """A knockout keeps no rating."""
        return None, None

    def standings(self, entrants: Sequence[Entrant]) -> list[tuple[int | None, Entrant]]:
        """Winners, then by the round a player reached, its place and score in its last game."""
        return ranked(
            entrants,
            lambda e: (not e.winner, -(e.out_round or NEVER), e.last_place or NEVER, -(e.last_score or 0)),
        )


class Swiss:
    name = "swiss"

    def __init__(self, smallest: int, largest: int, rounds: int, seed: int | None = None) -> None:
        check_sizes(smallest, largest)
        self.smallest, self.largest, self.rounds = smallest, largest, rounds
        self.random = random.Random(seed)
        self.ratings = Ratings()

    def rounds_expected(self, count: int) -> int:
        return self.rounds

    def next_round(self, round: int, entrants: Sequence[Entrant]) -> Games | None:
        active = [entrant for entrant in entrants if entrant.failure is None]
        if round > self.rounds or len(active) < self.smallest:
            return None
        if round == 1:
            order = self.random.sample(active, len(active))
        else:
            order = sorted(active, key=self._key)
        return allocate(order, self.smallest, self.largest)

    def _key(self, entrant: Entrant) -> tuple:
        return (-entrant.points, -round(self.ratings.ordinal(entrant), 9))

    def game_over(self, report: GameReport) -> None:
        """Every rating in the game moves at once (Plackett-Luce over its places)."""
        self.ratings.update(_places_with_failures_last(report))

    def round_over(self, round: int, reports: Sequence[GameReport], entrants: Sequence[Entrant]) -> None:
        pass

    def finish(self, entrants: Sequence[Entrant]) -> list[Entrant]:
        winners = [entrant for rank, entrant in self.standings(entrants) if rank == 1]
        for entrant in winners:
            entrant.winner = True
        return winners

    def standings(self, entrants: Sequence[Entrant]) -> list[tuple[int | None, Entrant]]:
        """By points, then rating (mu - 3 sigma)."""
        return ranked(entrants, self._key)

    def rating(self, entrant: Entrant) -> tuple[float, float]:
        return self.ratings.mu(entrant), self.ratings.sigma(entrant)


def _places_with_failures_last(report: GameReport) -> dict[Entrant, int]:
    """The game's places, and every removed player tied for last, below them all."""
    places = dict(report.places)
    last = len(report.seats)
    for seat in report.seats:
        if seat.failure is not None:
            places[seat.entrant] = last
    return places
