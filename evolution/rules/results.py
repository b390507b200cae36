"""The outcome of a game: ranking of the players still in it, and who was removed why.

Offers ``Ranked``, ``Removal``, ``GameResult`` and ``rank`` (rules.md 10.3-10.4:
score = bag + boards + traits; highest first; every player its own rank; equal
scores in the reverse of the final turn order).
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from evolution.rules.player_state import PlayerState


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


def rank(final_turn_order: Sequence[PlayerState]) -> tuple[Ranked, ...]:
    """Rank the remaining players (rules.md 10.4)."""
    scored = [(player.score(), player.id) for player in reversed(final_turn_order)]
    scored.sort(key=lambda entry: -entry[0])  # stable: ties keep the reversed order
    return tuple(Ranked(i + 1, id, score) for i, (score, id) in enumerate(scored))
