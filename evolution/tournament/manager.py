# -*- test-case-name: tests.tournament.test_formats, tests.host.modes.test_tournament_mode -*-
"""The tournament manager: a loop over rounds that asks a referee to play each game.

Offers ``TournamentManager(format, entrants, referee, observer)`` and its
coroutine ``run()``, which returns the winners. Each round the format picks
the games (``formats``); the manager asks ``referee(round, game)`` for every
game of the round at once (so they run side by side) and awaits their
``GameReport``s; then the format settles the round. The referee is anything
that plays a list of entrants (in turn order) and reports their scores or
why each was removed: the host's game runner over the wire, or local
players in one thread. The manager awaits only what the referee hands back,
so with a referee that answers at once a whole tournament runs with no
event loop (``evolution.coroutines.run_locally``), and under Twisted's
``ensureDeferred`` with one that answers with Deferreds.

``decide`` (optional) takes each round's games as the format picked them
and gives back the games to play (awaited: the host writes them down first,
and a resumed tournament plays the ones it wrote before it stopped).
``observer`` (optional) hears ``round_begins(round, games)`` and
``round_over(round, reports)``. Between rounds, a player may fail outside
any game (the host: it disconnected while waiting): ``Entrant.fail`` marks
it, and the format leaves it out of the next round.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Sequence

from evolution.coroutines import value_of
from evolution.tournament.standings import Entrant, GameReport, record_game

Referee = Callable[[int, list[Entrant]], "Awaitable[GameReport] | GameReport"]
Decide = Callable[[int, list[list[Entrant]]], "Awaitable[list[list[Entrant]]] | list[list[Entrant]]"]


class _Silent:
    def round_begins(self, round: int, games: list[list[Entrant]]) -> None:
        pass

    def round_over(self, round: int, reports: list[GameReport]) -> None:
        pass


class TournamentManager:
    """Runs one tournament from its entrants to its winners."""

    def __init__(
        self, format: Any, entrants: Sequence[Entrant], referee: Referee, observer: Any = None,
        decide: Decide | None = None,
    ) -> None:
        self.format = format
        self.entrants = list(entrants)
        self.referee = referee
        self.observer = observer if observer is not None else _Silent()
        self.decide: Decide = decide if decide is not None else (lambda round, games: games)
        self.round = 0
        self.winners: list[Entrant] = []
        self.stopped = False

    async def run(self) -> list[Entrant]:
        while not self.stopped:
            games = self.format.next_round(self.round + 1, self.entrants)
            if games is None:
                break
            self.round += 1
            games = await value_of(self.decide(self.round, games))
            if self.stopped:
                break
            self.observer.round_begins(self.round, games)
            pending = [self.referee(self.round, game) for game in games]
            reports = [self.settle(await value_of(report), self.round) for report in pending]
            if self.stopped:
                break
            self.format.round_over(self.round, reports, self.entrants)
            self.observer.round_over(self.round, reports)
        if not self.stopped:
            self.winners = self.format.finish(self.entrants)
        return self.winners

    def stop(self) -> None:
        """End after the games under way: no more rounds, no winners (the tournament is interrupted)."""
        self.stopped = True

    def settle(self, report: GameReport, round: int) -> GameReport:
        """Score a finished game for the tournament (places, points, ratings), once.

        The manager settles each game as it collects the round; a referee may
        settle it earlier, the moment the game ends (the host does, to store
        the points and ratings with the game).
        """
        if not report.settled:
            record_game(report, round)
            self.format.game_over(report)
            report.settled = True
        return report

    def standings(self) -> list[tuple[int | None, Entrant]]:
        return self.format.standings(self.entrants)

