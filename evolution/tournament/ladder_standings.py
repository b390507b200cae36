# -*- test-case-name: tests.tournament.test_matching, tests.host.modes.test_ladder_mode -*-
"""A ladder's standings: each bot's rating and counts, by name, after every game, and whom it met lately.

Offers:

- ``Standing``: one bot of a ladder (its name, openskill rating mu and
  sigma, finished games, wins, removals), with ``ordinal`` (mu - 3 sigma),
  ``provisional`` (fewer than ``ratings.ESTABLISHED`` games played to the
  end) and ``to_json(rank)``, the form ``evolution-results --ladder --json``
  and the web view show: ``name``, ``rank``, ``rating``, ``rating_sigma``,
  ``games``, ``wins``, ``removals``, ``provisional``;
- ``ranked(standings)``: established ratings first, then provisional ones,
  then the bots removed from every game they played (``ratings.tier``); in
  each, best first by mu - 3 sigma (the cautious value), then name; equal
  values (to 3 decimals, as shown) share a rank; ``shared_ranks(keys)``,
  the ranks of keys in order, equal keys sharing the best (the Swiss
  leaderboard's too);
- ``Standings(kept=(), recent=RECENT)``: the standings of a running
  ladder, starting from those an earlier run kept (a bot that comes back
  under its name goes on from there); ``game_over(seats)`` takes one
  finished game, seat by seat (``LadderSeat``: name, score, or None for a
  removed player), moves every rating in it at once (Plackett-Luce over its
  places: equal scores share a place, removed players share the last, below
  everyone who stayed; ``ratings.Ratings``) and counts the game for each
  seat (a first place, ties included, is a win; a removal, a removal); it
  returns the seats' new standings. ``skill(name)`` is the rating's mu, what
  matching compares; ``met(a, b)``, in how many of a's last ``RECENT`` games
  b sat (``matching.tables`` avoids rematches with it).

Pure values and arithmetic: no I/O. A name is one entry: the host keeps
names unique among the bots connected to a ladder, so two bots never share
one at once.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Iterable, NamedTuple, Sequence

from evolution.tournament.ratings import Ratings, provisional, tier
from evolution.tournament.scoring import places

RECENT = 3
"""Games of each bot remembered for matching: whom it met in its last RECENT games."""


@dataclass(frozen=True)
class Standing:
    name: str
    rating_mu: float
    rating_sigma: float
    games: int = 0
    wins: int = 0
    removals: int = 0

    @property
    def ordinal(self) -> float:
        return self.rating_mu - 3 * self.rating_sigma

    @property
    def provisional(self) -> bool:
        return provisional(self.games, self.removals)

    @property
    def tier(self) -> int:
        return tier(self.games, self.removals)

    def to_json(self, rank: int) -> dict[str, Any]:
        return {
            "name": self.name, "rank": rank, "rating": round(self.rating_mu, 3),
            "rating_sigma": round(self.rating_sigma, 3), "games": self.games, "wins": self.wins,
            "removals": self.removals, "provisional": self.provisional,
        }


def ranked(standings: Iterable[Standing]) -> list[tuple[int, Standing]]:
    """(rank, standing): by tier (established, provisional, removed from every game), then mu - 3 sigma, then name;
    equal tiers and values (to 3 decimals) share a rank."""
    ordered = sorted(standings, key=lambda standing: (standing.tier, -round(standing.ordinal, 3), standing.name))
    ranks = shared_ranks([(standing.tier, -round(standing.ordinal, 3)) for standing in ordered])
    return list(zip(ranks, ordered))


def shared_ranks(keys: Sequence[tuple]) -> list[int]:
    """Ranks of keys in order, best first: equal keys share the best rank (1, 1, 3)."""
    ranks: list[int] = []
    for index, key in enumerate(keys):
        ranks.append(ranks[-1] if index and keys[index - 1] == key else index + 1)
    return ranks


class LadderSeat(NamedTuple):
    """One seat of a finished ladder game: the bot's name and its score, or None when it was removed."""

    name: str
    score: int | None


class Standings:
    """A running ladder's standings, by name."""

    def __init__(self, kept: Iterable[Standing] = (), recent: int = RECENT) -> None:
        self.ratings = Ratings()
        self.counts: dict[str, tuple[int, int, int]] = {}  # name -> (games, wins, removals)
        self.recent = recent
        self._met: dict[str, deque[frozenset[str]]] = {}
        for standing in kept:
            self.ratings.set(standing.name, standing.rating_mu, standing.rating_sigma)
            self.counts[standing.name] = (standing.games, standing.wins, standing.removals)

    def __len__(self) -> int:
        return len(self.counts)

    def standing(self, name: str) -> Standing:
        games, wins, removals = self.counts.get(name, (0, 0, 0))
        return Standing(name, self.ratings.mu(name), self.ratings.sigma(name), games, wins, removals)

    def skill(self, name: str) -> float:
        return self.ratings.mu(name)

    def met(self, name: str, other: str) -> int:
        return sum(1 for game in self._met.get(name, ()) if other in game)

    def game_over(self, seats: Sequence[LadderSeat]) -> list[Standing]:
        """Rate one finished game and count it for every seat; the seats' new standings, in seat order."""
        placed = places({seat.name: seat.score for seat in seats if seat.score is not None})
        last = len(seats)
        self.ratings.update({seat.name: placed.get(seat.name, last) for seat in seats})
        names = frozenset(seat.name for seat in seats)
        for seat in seats:
            games, wins, removals = self.counts.get(seat.name, (0, 0, 0))
            removed = seat.score is None
            self.counts[seat.name] = (games + 1, wins + (not removed and placed[seat.name] == 1), removals + removed)
            self._met.setdefault(seat.name, deque(maxlen=self.recent)).append(names - {seat.name})
        return [self.standing(seat.name) for seat in seats]
