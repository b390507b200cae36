"""``twistd evolution --ladder``: a ladder that never stops, for any game the host serves.

Offers ``LadderService`` (the application service of ladder mode: a
``LadderLobby``, ``evolution.net.lobbies``, whose rounds of games follow
``evolution.tournament.matching`` and are played by the host's one
``GameRunner``, each stored with its seats' ratings and counted in the
ladder's standings in the same transaction) and ``kept_standings(db,
game)``, the standings an earlier run left in the store (a host started
again on the same ``--db`` goes on from them).

How bots come and go, how games form, ratings and names:
docs/tournaments.md, "Running a ladder".
"""

from __future__ import annotations

import weakref
from dataclasses import replace
from pathlib import Path

from twisted.application import service
from twisted.logger import Logger

from evolution.host.runner.game_runner import GameOutcome, GameRunner, Seating
from evolution.net.host_connection import CLOSED
from evolution.net.lag import LagProbe
from evolution.net.lobbies import LadderLobby
from evolution.store.records import GameRecord
from evolution.store.results_store import reading
from evolution.text import plural
from evolution.tournament.ladder_standings import LadderSeat, Standing, Standings
from evolution.tournament.matching import tables

log = Logger()


def kept_standings(db: str | Path, game: str) -> list[Standing]:
    """The standings of ``game``'s ladder that the store at ``db`` keeps (none for a new store)."""
    return [standing for _, standing in reading(db, lambda store: store.ladder(game))]


class LadderService(service.Service):
    """Forms the ladder's games from the bots waiting, plays them, rates them, and takes the players back."""

    def __init__(
        self, runner: GameRunner, standings: Standings, smallest: int, largest: int, window: float,
        lag: LagProbe | None = None,
    ) -> None:
        self.runner = runner
        self.standings = standings
        self.smallest, self.largest = smallest, largest
        self.policy = LadderLobby(window, self.form, lag)
        self.rounds = 0
        self._greeted: weakref.WeakSet = weakref.WeakSet()

    def startService(self) -> None:
        super().startService()
        log.info(
            "ladder of {game}: {count} rated so far; games of {smallest}-{largest} form every {window:g} s from the"
            " bots waiting", game=self.runner.game.title, count=plural(len(self.standings), "bot"),
            smallest=self.smallest, largest=self.largest, window=self.policy.window,
        )

    def stopService(self) -> None:
        """One line for the bots the host hangs up on (no failure of theirs); the lobby closes."""
        super().stopService()
        waiting = self.policy.factory.take_lobby()
        log.info(
            "the host is stopping: the ladder stops after {rounds}, hanging up on {waiting} waiting and {playing} in"
            " games (those games stored as aborted: the host stopped)", rounds=plural(self.rounds, "round"),
            waiting=plural(len(waiting), "bot"), playing=len(self.policy.playing),
        )
        self.policy.stop()
        for connection in waiting:
            connection.close()

    # -- forming and playing --------------------------------------------------------

    def form(self, players: list) -> None:
        """The lobby's callback: one round of games from the players it hands over."""
        self.rounds += 1
        games = tables(players, self.smallest, self.largest, lambda c: self.standings.skill(c.name),
                       lambda c, other: self.standings.met(c.name, other.name))
        log.info("ladder round {round}: {games} of {players}", round=self.rounds,
                 games=plural(len(games), "game"), players=plural(len(players), "bot"))
        for table in games:
            self._greet(table)

    def _greet(self, table: list) -> None:
        """The dialect's greeting to those at the table who have not heard it; then play with those still there."""
        new = [connection for connection in table if connection not in self._greeted]
        self.runner.greet(new).addCallback(lambda failures: self._play(table))

    def _play(self, table: list) -> None:
        ready = [connection for connection in table if connection.state != CLOSED]
        for connection in table:
            if connection.state == CLOSED:
                self.policy.gone(connection)
            else:
                self._greeted.add(connection)
        if len(ready) < self.smallest:  # some hung up before the game could start: the others wait again
            for connection in ready:
                self.policy.back(connection)
            return
        self.runner.play(ready, Seating(None, None, self._rated)).addCallback(self._over)

    def _rated(self, record: GameRecord) -> GameRecord:
        """The game as the store keeps it: a ladder game, each seat with its bot's rating after it (if finished)."""
        if not record.finished:
            return replace(record, ladder=True)
        standings = self.standings.game_over(
            [LadderSeat(seat.name, None if seat.removed_reason is not None else seat.score) for seat in record.players]
        )
        seats = tuple(
            replace(seat, rating_mu=standing.rating_mu, rating_sigma=standing.rating_sigma)
            for seat, standing in zip(record.players, standings)
        )
        return replace(record, ladder=True, players=seats)

    def _over(self, outcome: GameOutcome) -> None:
        for connection in outcome.connections:
            if connection.state == CLOSED:
                self.policy.gone(connection)
            else:
                self.policy.back(connection)
