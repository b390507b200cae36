# -*- test-case-name: tests.tournament.test_formats, tests.tournament.test_matching -*-
"""A multiplayer rating, from the well-kept ``openskill`` package (Plackett-Luce).

Offers ``Ratings``: ``update(places)`` takes one game's places (entrant ->
place, 1 best, ties allowed; removed players ranked last together) and moves
every rating in it at once, as Plackett-Luce models a ranking of many
players; ``mu(e)`` and ``sigma(e)`` read a rating and its uncertainty
(everyone starts at 25 +- 8.33; ``set(e, mu, sigma)`` starts one where an
earlier run left it); ``ordinal(e)`` is ``mu - 3 sigma``, the
conservative value standings sort by, so a player with few games does not
lead on luck.

And what a rating is worth: ``ESTABLISHED``, the games a player must have
played to the end (not removed) before its rating is established;
``provisional(games, removals)``; ``tier(games, removals)``, what every
leaderboard sorts by first (0 established, 1 provisional, 2 removed from
every game it played), so a provisional rating comes after every established
one and a player removed from every game it played after every honest one.
Why 5 games: docs/tournaments.md, "Ratings".
"""

from __future__ import annotations

from typing import Hashable, Mapping

from openskill.models import PlackettLuce

ESTABLISHED = 5
"""Games played to the end before a rating is established. openskill's sigma says too little here: it starts at
25/3 and is still above 88% of that after 5 games of 3 to 8 players, so mu - 3 sigma cannot tell a bot with one
lucky (or removed) game from one with fifteen; a count must. Five is the host's default Swiss rounds (a whole
default Swiss establishes an entrant) and, in games of 3 to 8, 10 to 35 opponents met."""


def provisional(games: int, removals: int) -> bool:
    """Whether a rating from ``games`` games, ``removals`` of them removals, is still provisional."""
    return games - removals < ESTABLISHED


def tier(games: int, removals: int) -> int:
    """0: established; 1: provisional; 2: removed from every game it played (never above an honest player)."""
    if not provisional(games, removals):
        return 0
    return 1 if games > removals else 2


class Ratings:
    """Every entrant's rating, updated after each game."""

    def __init__(self) -> None:
        self.model = PlackettLuce()
        self._ratings: dict[Hashable, object] = {}

    def _rating(self, entrant: Hashable) -> object:
        rating = self._ratings.get(entrant)
        if rating is None:
            rating = self._ratings[entrant] = self.model.rating()
        return rating

    def set(self, entrant: Hashable, mu: float, sigma: float) -> None:
        """Start ``entrant`` at this rating (one kept from earlier games) instead of the default."""
        self._ratings[entrant] = self.model.rating(mu=mu, sigma=sigma)

    def update(self, places: Mapping[Hashable, int]) -> None:
        """One game's result: ``places[e]`` is 1 for the best; equal places are ties."""
        if len(places) < 2:
            return
        entrants = list(places)
        teams = [[self._rating(entrant)] for entrant in entrants]
        rated = self.model.rate(teams, ranks=[places[entrant] for entrant in entrants])
        for entrant, [rating] in zip(entrants, rated):
            self._ratings[entrant] = rating

    def mu(self, entrant: Hashable) -> float:
        return self._rating(entrant).mu

    def sigma(self, entrant: Hashable) -> float:
        return self._rating(entrant).sigma

    def ordinal(self, entrant: Hashable) -> float:
        return self._rating(entrant).ordinal()
