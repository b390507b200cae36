# -*- test-case-name: tests.games.evolution.rules.test_dealer, tests.games.fish.rules.test_referee -*-
"""What every game's referee reports, whatever the game: who ranked where, who was removed, when and why.

Offers the values the host reads of any game (``evolution.games`` names the
games; each game's referee makes these):

- ``Ranked(rank, id, score)``: a player still in the game at its end; ``id``
  is its seat (1, 2, ... in the order the players were handed to the
  referee); equal ranks are ties where the game's rules have ties;
- ``Removal(id, turn, step, reason)``: a player the referee removed: in which
  turn and step of the game (the game's own words, e.g. ``choose``,
  ``placement``) and why, in words its author understands;
- ``GameResult(ranking, removals, turns)``;
- ``PlayerFailure``: what a player (a strategy, or the proxy of a remote
  one) raises when it cannot answer; the referee removes it with the reason;
- ``competition_ranks(scores)``: ranks by score, highest first, equal scores
  sharing the best rank (1, 1, 3), in the order given among equals.

Pure values: no I/O, no Twisted, no JSON.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence


class Ranked(NamedTuple):
    rank: int
    id: int
    score: int


class Removal(NamedTuple):
    """A player removed from the game, when (turn, step) and why."""

    id: int
    turn: int
    step: str
    reason: str


class GameResult(NamedTuple):
    ranking: tuple[Ranked, ...]
    removals: tuple[Removal, ...]
    turns: int


class PlayerFailure(Exception):
    """A player could not answer: timeout, malformed reply, disconnect, ..."""

    @property
    def reason(self) -> str:
        return str(self)


def competition_ranks(scores: Sequence[tuple[int, int]]) -> tuple[Ranked, ...]:
    """``(id, score)`` pairs ranked highest score first; equal scores share a rank (1, 1, 3)."""
    ordered = sorted(scores, key=lambda entry: -entry[1])  # stable: equal scores keep the order given
    ranking: list[Ranked] = []
    for index, (id, score) in enumerate(ordered):
        tied = index and ordered[index - 1][1] == score
        ranking.append(Ranked(ranking[-1].rank if tied else index + 1, id, score))
    return tuple(ranking)
