"""``twistd evolution --ladder``: a ladder that never stops, for any game the host serves.

Offers ``LadderService`` (the application service of ladder mode: a
``LadderLobby``, ``evolution.net.lobbies``, whose rounds of games follow
``evolution.tournament.matching`` and are played by the host's one
``GameRunner``, each stored with its seats' ratings and counted in the
ladder's standings in the same transaction; ``pause(who)`` and ``resume(who)``:
no new games form meanwhile, those running finish; ``withdraw(name, reason)``) and ``kept_standings(db,
game)``, the standings an earlier run left in the store (a host started
again on the same ``--db`` goes on from them).

How bots come and go, how games form, ratings and names:
docs/tournaments.md, "Running a ladder".
"""

from __future__ import annotations

import weakref
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from twisted.application import service
from twisted.logger import Logger

from evolution.host.runner.game_runner import GameOutcome, GameRunner, Seating
from evolution.net.host_connection import CLOSED
from evolution.net.lag import LagProbe
from evolution.net.lobbies import BATCH_TABLES, LadderLobby
from evolution.store.records import GameRecord
from evolution.store.results_store import reading
from evolution.text import escape, plural, quoted
from evolution.tournament.allocation import apart, spread
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
        self.owner_of: Callable[[Any], str | None] = lambda connection: None  # --accounts: whose bot it is
        self.unrated: Callable[[str], bool] = lambda name: False  # --accounts roster: a guest's name
        self.runner = runner
        self.standings = standings
        self.smallest, self.largest = smallest, largest
        self.policy = LadderLobby(window, self.form, lag, self._choose)
        self.rounds = 0
        self.withdrawn: dict[str, str] = {}  # name: why, for the bots in games the organiser withdrew
        self.paused = False  # by the organiser (the operator port) or a drain: the games running finish, none form
        self._greeted: weakref.WeakSet = weakref.WeakSet()

    def startService(self) -> None:
        super().startService()
        log.info(
            "ladder of {game}: {count} rated so far; games of {smallest}-{largest} form as soon as {batch} full"
            " tables of bots wait, else {window:g} s after enough do", game=self.runner.game.title,
            count=plural(len(self.standings), "bot"), smallest=self.smallest, largest=self.largest,
            batch=BATCH_TABLES, window=self.policy.window,
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

    def pause(self, who: str) -> bool:
        """No new games form (those running finish; their bots wait); False if paused already."""
        if self.paused:
            return False
        self.paused = True
        self.policy.holding = True  # the lobby starts no timer for the next round
        log.info("the ladder is paused by {who}: the {running} running finish, no new games form",
                 who=who, running=plural(len(self.runner.running), "game"))
        return True

    def resume(self, who: str) -> bool:
        """Games form again from the bots waiting; False if it was not paused."""
        if not self.paused:
            return False
        self.paused = self.policy.holding = False
        log.info("the ladder is resumed by {who}: games form again from the {waiting} waiting", who=who,
                 waiting=plural(len(self.policy.factory.lobby), "bot"))
        self.policy.joined()
        return True

    def withdraw(self, name: str, reason: str) -> str | None:
        """The organiser withdraws the bot ``name``: hung up on now if it waits, after its game if it plays one
        (which goes on). What happens, or None: no such bot here."""
        why = f"withdrawn by the organiser: {reason}"
        waiting = next((c for c in self.policy.factory.lobby if c.name == name), None)
        if waiting is not None:
            self.policy.factory.leave(waiting, why)
            waiting.close()
            return "hung up on now"
        if name in self.policy.playing.values():
            self.withdrawn[name] = why
            log.info("ladder: {name} is withdrawn by the organiser ({reason}): hung up on after its game",
                     name=quoted(name), reason=escape(reason))
            return "hung up on once its game is over"
        return None

    def form_later(self, players: list) -> None:
        """Paused: the players handed over wait in the lobby again (and no round is due until the ladder resumes)."""
        self.policy.holding = True
        for connection in players:
            if connection.state == CLOSED:
                self.policy.gone(connection)
            else:
                self.policy.back(connection)

    def form(self, players: list) -> None:
        """The lobby's callback: one round of games from the players it hands over (none while paused)."""
        if self.paused:  # a round due as the pause began (or the lobby's lag probe let it go): they wait again
            self.form_later(players)
            return
        self.rounds += 1
        games = apart(tables(players, self.smallest, self.largest, lambda c: self.standings.skill(c.name),
                             lambda c, other: self.standings.met(c.name, other.name) + self._kin(c, other)),
                      self.owner_of)
        log.info("ladder round {round}: {games} of {players}", round=self.rounds,
                 games=plural(len(games), "game"), players=plural(len(players), "bot"))
        for table in games:
            self._greet(self._one_per_owner(table))

    def _choose(self, waiting: list, count: int) -> list:
        """The bots to seat: as many as tables can hold with each owner's bots apart (--accounts)."""
        return spread(waiting, count, self.smallest, self.largest, self.owner_of)

    def _kin(self, one: Any, other: Any) -> int:
        """A large count for two bots of one owner (--accounts), so that the matching seats them apart."""
        owner = self.owner_of(one)
        return 1000 if owner is not None and owner == self.owner_of(other) else 0

    def _one_per_owner(self, table: list) -> list:
        """The table with at most one bot of each owner (``_choose`` and ``apart`` see to it; a guard): another
        waits for the next round."""
        owners: set[str] = set()
        seated = []
        for connection in table:
            owner = self.owner_of(connection)
            if owner is not None and owner in owners:
                self.policy.back(connection)
                continue
            if owner is not None:
                owners.add(owner)
            seated.append(connection)
        return seated

    def _greet(self, table: list) -> None:
        """The dialect's greeting to those at the table who have not heard it; then play with those still there."""
        new = [connection for connection in table if connection not in self._greeted]
        self.runner.greet(new).addCallback(lambda failures: self._play(table))

    def _play(self, table: list) -> None:
        if self.paused:  # paused while the table was greeted: its bots wait again
            self.form_later(table)
            return
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
        guests = [seat.name for seat in record.players if self.unrated(seat.name)]
        if guests:  # the store rates the game among the others too (ResultsStore)
            record = replace(record, settings={**record.settings, "unrated": guests})
        if not record.finished:
            return replace(record, ladder=True)
        rated = [seat for seat in record.players if seat.name not in guests]
        standings = self.standings.game_over(
            [LadderSeat(seat.name, None if seat.removed_reason is not None else seat.score) for seat in rated]
        ) if len(rated) > 1 else []
        after = {seat.seat: replace(seat, rating_mu=standing.rating_mu, rating_sigma=standing.rating_sigma)
                 for seat, standing in zip(rated, standings)}
        return replace(record, ladder=True, players=tuple(after.get(seat.seat, seat) for seat in record.players))

    def _over(self, outcome: GameOutcome) -> None:
        for connection in outcome.connections:
            why = self.withdrawn.pop(connection.name, None)
            if why is not None and connection.state != CLOSED:
                log.info("{name} left the ladder: {reason}", name=quoted(connection.name), reason=escape(why))
                connection.close()
            if connection.state == CLOSED or why is not None:
                self.policy.gone(connection)
            else:
                self.policy.back(connection)
