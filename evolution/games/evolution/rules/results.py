# -*- test-case-name: tests.games.evolution.rules.test_dealer -*-
"""The outcome of a game of Evolution: its ranking, in the values every game reports.

Offers ``rank`` (rules.md 10.3-10.4: score = bag + boards + traits; highest
first; every player its own rank; equal scores in the reverse of the final
turn order), and ``Ranked``, ``Removal`` and ``GameResult`` (``evolution.outcomes``).
"""

from __future__ import annotations

from typing import Sequence

from evolution.outcomes import GameResult, Ranked, Removal
from evolution.games.evolution.rules.player_state import PlayerState

__all__ = ["GameResult", "Ranked", "Removal", "rank"]


def rank(final_turn_order: Sequence[PlayerState]) -> tuple[Ranked, ...]:
    """Rank the remaining players (rules.md 10.4)."""
    scored = [(player.score(), player.id) for player in reversed(final_turn_order)]
    scored.sort(key=lambda entry: -entry[0])  # stable: ties keep the reversed order
    return tuple(Ranked(i + 1, id, score) for i, (score, id) in enumerate(scored))
