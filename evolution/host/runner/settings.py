# -*- test-case-name: tests.host.test_options, tests.host.workers.test_pool -*-
"""How the host plays its games: ``GameSettings`` (which game, set up how, in which dialect, with which limits).

The game runner (``evolution.host.runner.game_runner``) reads them in the host's process,
and a worker process gets them on its command line
(``evolution.host.workers.worker_process.worker_config``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evolution.games import DEFAULT_GAME, Dialect, Game, GameSetup
from evolution.games import game as game_named


@dataclass(frozen=True)
class GameSettings:
    """How the host plays its games: which game, set up how, in which dialect, with which limits."""

    game: str = DEFAULT_GAME
    setup: GameSetup | None = None  # None: the game's defaults
    timeout: float | None = None  # seconds for each answer; None: the game's default
    seed: int | None = None  # first game's seed; later games count up from it
    dialect: str | None = None  # None: the game's first (the course's)
    send_scores: bool = False  # the dialect's scores at every game's end (Evolution's score message)
    tell_removed: bool = False  # the dialect's word to a removed player before hanging up
    host_name: str | None = None  # this host's name, stored with each of its games (``--host-name``)

    @property
    def kind(self) -> Game:
        return game_named(self.game)

    def game_setup(self) -> GameSetup:
        return self.setup if self.setup is not None else self.kind.setup({})

    def speaking(self) -> Dialect:
        return self.kind.dialect(self.dialect or self.kind.dialects[0])

    def seconds(self) -> float:
        return self.timeout if self.timeout is not None else self.kind.default_timeout

    def recorded(self) -> dict[str, Any]:
        """What a stored game keeps of the settings it was played with (and needs to replay it)."""
        return {"timeout": self.seconds(), **self.game_setup().recorded(), "dialect": self.speaking().name}
