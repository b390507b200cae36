"""Tournament formats: small strategies that pick each round's games from the standings.

Offers ``Knockout`` and ``Swiss``, each with ``next_round(round, entrants)``
(the games of the next round, each a list of entrants in turn order, or
None when the tournament is over), ``round_over(round, reports, entrants)``,
``standings(entrants)`` (``[(rank, entrant)]``, failures last and unranked),
``ranked_by`` (what the standings compare, in order, in words:
``standings.RANKED_BY``), ``keeps_points`` (whether its games give tournament
points: a Swiss's do, a knockout's do not), ``game_over(report)`` (after each game),
``finish(entrants)`` (marks the winners), ``rating(entrant)`` (``(mu,
sigma)``; ``(None, None)`` in a knockout) and ``rounds_expected(count)`` (for
progress lines). ``Knockout`` takes ``final_tiebreak`` and ``runners_up``.

The rules of each format (who advances, finals and play-offs, points, pods,
standings): docs/tournaments.md, "Running a tournament".
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterable, Sequence

from evolution.tournament.allocation import allocate, check_sizes
from evolution.tournament.ratings import Ratings
from evolution.tournament.standings import FINAL_TIEBREAKS, PLAYOFFS, RANKED_BY, Entrant, GameReport, ranked

Games = list[list[Entrant]]
NEVER = 10**9


@dataclass
class Playoff:
    """A play-off of a tied final: the players tied for first, and the fillers that make up the game."""

    tied: list[Entrant]
    fillers: list[Entrant]
    number: int  # 1, 2, ... up to PLAYOFFS

    def seats(self) -> list[Entrant]:
        return self.tied + self.fillers


class Knockout:
    name = "knockout"
    ranked_by = RANKED_BY[name]
    keeps_points = False  # its games give no tournament points: who goes on is decided game by game

    def __init__(
        self, smallest: int, largest: int, final_tiebreak: str = "co-winners", runners_up: bool = True
    ) -> None:
        check_sizes(smallest, largest)
        if final_tiebreak not in FINAL_TIEBREAKS:
            raise ValueError(f"a final's tie-break is {' or '.join(FINAL_TIEBREAKS)}, not {final_tiebreak!r}")
        self.smallest, self.largest = smallest, largest
        self.final_tiebreak = final_tiebreak
        self.runners_up = runners_up
        self.final = False
        self.done = False
        self.playoff: Playoff | None = None  # the play-off to play next, if any
        self._winners: list[Entrant] = []

    @property
    def winners(self) -> list[Entrant]:
        """The winners decided so far (the final's, once it is over)."""
        return list(self._winners)

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
        if self.playoff is not None:
            return [self.playoff.seats()]
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
        if self.playoff is not None:
            self._playoff_over(round, self.playoff)
            return
        started = [seat.entrant for report in reports for seat in report.seats]
        finished = [entrant for entrant in started if entrant.failure is None]
        advancing = [entrant for report in reports for entrant in report.first() if entrant.failure is None]
        if self.final:
            self._knock_out(finished, advancing, round)
            self._decide(advancing, _by_last_game(e for e in finished if e not in advancing), 1)
            return
        if self.runners_up and len(advancing) < self.smallest < len(finished):
            runners_up = _by_last_game(entrant for entrant in finished if entrant not in advancing)
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

    def _decide(self, tied: list[Entrant], others: list[Entrant], playoff: int) -> None:
        """The final (or a play-off) is over with ``tied`` first: they win, or play-off ``playoff`` follows.

        ``others``: who may fill the play-off up to the smallest game, best first.
        """
        needed = max(0, self.smallest - len(tied))
        if self.final_tiebreak != "playoff" or len(tied) < 2 or playoff > PLAYOFFS or needed > len(others):
            self._winners, self.done = tied, True
            return
        self.playoff = Playoff(tied, others[:needed], playoff)
        for entrant in self.playoff.fillers:
            entrant.filler = True

    def _playoff_over(self, round: int, playoff: Playoff) -> None:
        """The tied player placed best in the play-off wins; the others are out in this round."""
        self.playoff = None
        for entrant in playoff.fillers:
            entrant.filler = False
        tied = [entrant for entrant in playoff.tied if entrant.failure is None]
        best = min((entrant.last_place or NEVER for entrant in tied), default=NEVER)
        leaders = [entrant for entrant in tied if (entrant.last_place or NEVER) == best]
        losers = _by_last_game(entrant for entrant in tied if entrant not in leaders)
        self._knock_out(losers, [], round)
        self._decide(leaders, playoff.fillers + losers, playoff.number + 1)

    def finish(self, entrants: Sequence[Entrant]) -> list[Entrant]:
        winners = [entrant for entrant in self._winners if entrant.failure is None]
        for entrant in winners:
            entrant.winner = True
        return winners

    def rating(self, entrant: Entrant) -> tuple[None, None]:
        """A knockout keeps no rating."""
        return None, None

    def standings(self, entrants: Sequence[Entrant]) -> list[tuple[int | None, Entrant]]:
        """Winners, then by the round a player reached, its place and score in its last game.

        Once over without a winner (every finalist failed), nobody is ranked first.
        """
        return ranked(
            entrants,
            lambda e: (not e.winner, -(e.out_round or NEVER), e.last_place or NEVER, -(e.last_score or 0)),
            first=2 if self.done and not self._winners else 1,
        )


class Swiss:
    name = "swiss"
    ranked_by = RANKED_BY[name]
    keeps_points = True

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


def _by_last_game(entrants: Iterable[Entrant]) -> list[Entrant]:
    """Best first: by place in the last game, then score in it, then sign-up order."""
    return sorted(entrants, key=lambda e: (e.last_place or NEVER, -(e.last_score or 0), e.number))


def _places_with_failures_last(report: GameReport) -> dict[Entrant, int]:
    """The game's places, and every removed player tied for last, below them all."""
    places = dict(report.places)
    last = len(report.seats)
    for seat in report.seats:
        if seat.failure is not None:
            places[seat.entrant] = last
    return places
