"""A referee that plays each tournament game in this thread, with local players.

Offers ``LocalReferee(seed)``: an entrant's ``handle`` is a function that
makes its player (a strategy with the player interface), called afresh for
every game; game k of the tournament is dealt ``Deck.shuffled(seed + k)``.
With it, ``run_locally(TournamentManager(...).run())`` plays a whole
tournament with no event loop (tests, and the in-process figure the
benchmarks compare the host with).
"""

from __future__ import annotations

from evolution.rules.cards import Deck
from evolution.rules.local import play_local_game
from evolution.tournament.standings import Entrant, GameReport, Seat


class LocalReferee:
    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.games = 0

    def __call__(self, round: int, game: list[Entrant]) -> GameReport:
        self.games += 1
        result = play_local_game([entrant.handle() for entrant in game], Deck.shuffled(self.seed + self.games))
        scores = {entry.id: entry.score for entry in result.ranking}
        reasons = {removal.id: removal.reason for removal in result.removals}
        return GameReport(
            [Seat(entrant, scores.get(seat), reasons.get(seat)) for seat, entrant in enumerate(game, start=1)],
            self.games,
        )
