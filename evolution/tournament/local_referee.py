# -*- test-case-name: tests.tournament.test_formats, tests.games.fish.test_tournaments -*-
"""A referee that plays each tournament game in this thread, with local players, of any game.

Offers ``LocalReferee(seed, game="evolution", setup=None)``: an entrant's
``handle`` is a function that makes its player (a strategy with the game's
player interface), called afresh for every game; game k of the tournament
is dealt with seed ``seed + k`` (where the game deals from a seed). With it,
``run_locally(TournamentManager(...).run())`` plays a whole tournament with
no event loop (tests, ``evolution-local --tournament``, and the in-process
figure the benchmarks compare the host with).
"""

from __future__ import annotations

from typing import Any

from evolution.coroutines import run_locally
from evolution.games import DEFAULT_GAME, game as game_named
from evolution.tournament.standings import Entrant, GameReport, Seat


class LocalReferee:
    def __init__(self, seed: int = 0, game: str = DEFAULT_GAME, setup: Any = None) -> None:
        self.seed = seed
        self.game = game_named(game)
        self.setup = setup if setup is not None else self.game.setup({})
        self.games = 0

    def __call__(self, round: int, game: list[Entrant]) -> GameReport:
        self.games += 1
        seed = self.seed + self.games if self.setup.seeded else None
        referee = self.game.new_referee([entrant.handle() for entrant in game], self.setup, seed)
        result = run_locally(referee.play())
        scores = {entry.id: entry.score for entry in result.ranking}
        reasons = {removal.id: removal.reason for removal in result.removals}
        return GameReport(
            [Seat(entrant, scores.get(seat), reasons.get(seat)) for seat, entrant in enumerate(game, start=1)],
            self.games,
        )
