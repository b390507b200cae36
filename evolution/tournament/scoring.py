# -*- test-case-name: tests.tournament.test_formats -*-
"""From a game's scores to tournament places and points.

Offers ``places(scores)``: the place of each player in one game, equal
scores sharing the best place (competition ranking: 1, 1, 3); ``points(place,
players)``: the tournament points a place is worth (the README shows the
table).

The points do not depend on the size of the game, only on how many of its
players a place beats: first is worth 10, last 0, and the places between are
spread evenly, rounded (``round(10 * (n - place) / (n - 1))``). In games of

    8 players: 10  9  7  6  4  3  1  0
    6 players: 10  8  6  4  2  0
    3 players: 10  5  0

so a knockout round of 8, 6 and 3 player games, or a Swiss round, treats
each game alike; ``players`` is how many the game began with. A player
removed from a game gets no points for it and counts as beaten by everyone
who stayed.

(Evolution's own ranking, rules.md 10.4, gives tied players different ranks
by turn order; a tournament treats equal scores as equal.)
"""

from __future__ import annotations

from typing import Hashable, Mapping, TypeVar

K = TypeVar("K", bound=Hashable)

TOP = 10


def places(scores: Mapping[K, int]) -> dict[K, int]:
    """Each player's place: 1 + the number of players with a higher score."""
    ordered = sorted(scores.values(), reverse=True)
    first_of = {}
    for index, score in enumerate(ordered):
        first_of.setdefault(score, index + 1)
    return {player: first_of[score] for player, score in scores.items()}


def points(place: int, players: int) -> int:
    """The points place ``place`` is worth in a game that began with ``players`` players."""
    if players <= 1:
        return TOP
    return round(TOP * (players - place) / (players - 1))
