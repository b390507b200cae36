"""Fish's house players: the reference's greedy player, the course's maximin strategy, and failing players.

Offers ``BY_NAME``: ``greedy`` (the reference's player: most fish first),
``maximin`` (the course's depth-2 strategy of ``xstrategy``), and two that
fail on purpose to show what the host does with them: ``cheater`` (moves a
penguin onto its own tile) and ``hole-placer`` (places a penguin on a hole).
"""

from __future__ import annotations

from typing import Any, Callable

from evolution.games.fish.strategies.faulty import HolePlacer, IllegalMover
from evolution.games.fish.strategies.greedy import GreedyPlayer
from evolution.games.fish.strategies.maximin import MaximinPlayer

BY_NAME: dict[str, Callable[[], Any]] = {
    "greedy": GreedyPlayer,
    "maximin": MaximinPlayer,
    "cheater": IllegalMover,
    "hole-placer": HolePlacer,
}
"""The names ``evolution-client --game fish --strategy`` and ``evolution-local --game fish`` take."""
