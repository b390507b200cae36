# -*- test-case-name: tests.tournament.test_formats -*-
"""From a game's scores to tournament places and points.

Offers ``places(scores)``: the place of each player in one game, equal
scores sharing the best place (competition ranking: 1, 1, 3); ``points(place,
players)``: the tournament points a place is worth in a game that began with
``players`` players (first 10, last 0, evenly between, rounded).

The table of points, and why they depend only on how many players a place
beats: docs/tournaments.md, "Running a tournament" (Swiss).
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
