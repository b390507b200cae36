# -*- test-case-name: tests.host.modes.test_resumption, tests.host.workers.test_pool -*-
"""A tournament's players coming back: after a restart (``--resume``), or a game the host lost (a worker's death).

Offers ``Comebacks``, the part of ``TournamentRun`` (``evolution.host.modes.tournament_run``) that handles them:
``resume()`` (the rounds and games the store holds played again from it, the entrants awaited back by name);
``claim(name)``, ``names_held()``, ``awaiting()`` and ``returned(connection)``, what the lobby's policy asks of
a run while it awaits its entrants; and, for the referee, ``_replayed`` (a table the store holds), ``_lost`` (a
game the host lost: counted for no one, played again with the same table once its players are back) and
``_walkover`` (too few of a table came back); ``report_of(record, seated, table)``, a stored game as the
tournament sees it. How it goes: docs/tournaments.md, "Resuming a tournament".
"""

from __future__ import annotations

from typing import Any

from twisted.internet.defer import Deferred, ensureDeferred
from twisted.logger import Logger

from evolution.host.modes.resumption import StoredTournament
from evolution.host.modes.returns import Returns
from evolution.host.runner.game_runner import GameOutcome, GameRunner, now
from evolution.net.host_connection import CLOSED
from evolution.store.operations import tournament_resumed
from evolution.store.records import GameRecord, Resumption, TournamentRecord
from evolution.text import escape, plural, quoted
from evolution.tournament.manager import TournamentManager
from evolution.tournament.standings import Entrant, GameReport, Seat

log = Logger()


class Comebacks:
    """Entrants coming back to a tournament run (a mixin of ``TournamentRun``, which holds what it uses)."""

    id: int
    settings: Any
    runner: GameRunner
    writer: Any
    manager: TournamentManager
    entrants: list[Entrant]
    returns: Returns
    stored: StoredTournament | None
    rejoining: set[str]
    status: str
    games_done: int
    round_games: list[int]
    resumptions: tuple[Resumption, ...] = ()

    def resume(self) -> Deferred[TournamentRecord]:
        """Go on with the tournament the store holds interrupted; fires with its stored form once it is over.

        The rounds and games it finished are played again from the store (no game is played twice), and the
        entrants still in are awaited back, each by its name, for the ``Returns`` window; a table of the round it
        stopped in that had not finished waits for its entrants (``referee``).
        """
        stored = self.stored
        assert stored is not None
        resumed_at = now()
        self.resumptions = stored.record.resumptions + (Resumption(stored.round, resumed_at),)
        self.writer.write(tournament_resumed(self.id, stored.round, resumed_at))
        for entrant in self.entrants:
            round, reason = stored.outside.get(entrant.number, (None, None))
            if round == 0:  # failed the greeting
                entrant.fail(0, reason)
        awaited = [entrant for entrant in self.entrants if entrant.failure is None]
        self.returns.wait_for(awaited, "the host stopped")
        log.info(
            "tournament {id} ({kind}) resumes in round {round}, with {games} of it finished; its {count} still in "
            "sign up again by name within {window:g} s: {names}",
            id=self.id, kind=self.settings.format, round=stored.round,
            games=plural(sum(1 for table in stored.games if table[0] == stored.round), "game"),
            count=plural(len(awaited), "entrant"), window=self.returns.window,
            names=", ".join(quoted(e.name) for e in awaited),
        )
        self.tell("begin")
        return ensureDeferred(self.manager.run()).addCallback(lambda _: self._farewells()).addCallback(
            lambda _: self._over()
        )

    # -- entrants coming back -------------------------------------------------------------

    def claim(self, name: str) -> str | None:
        """The name of the awaited entrant a sign-up named ``name`` takes the place of (None: no place for it).

        Where a dialect names a bot after its address (``host:port``, seed 004), the first entrant awaited from
        that host.
        """
        if self.returns.claim(name) and name not in self.rejoining:
            return name
        host, colon, port = name.rpartition(":")
        if colon and port.isdigit():
            for awaited in self.returns.awaited:
                if awaited.rpartition(":")[0] == host and self.returns.claim(awaited) and awaited not in self.rejoining:
                    return awaited
        return None

    def names_held(self) -> set[str]:
        """The names a new sign-up may not take: every entrant's but those awaited back."""
        return {entrant.name for entrant in self.entrants if not self.returns.is_away(entrant)} | self.rejoining

    def awaiting(self) -> bool:
        return any(self.returns.claim(name) for name in self.returns.awaited)

    def returned(self, connection: Any) -> None:
        """An awaited entrant signed up again: greeted (as before its first game), then its place is its own."""
        self.rejoining.add(connection.name)
        log.info("tournament {id}: {name} is back", id=self.id, name=quoted(connection.name))
        self.runner.greet([connection]).addCallback(lambda failures: self._back(connection, failures[0]))

    def _back(self, connection: Any, failure: str | None) -> None:
        self.rejoining.discard(connection.name)
        entrant = self.returns.returned(connection) if self.status == "running" else None
        if entrant is None:
            connection.close()
            return
        if failure is not None:
            entrant.fail(self.manager.round, f"failed the greeting when it came back: {failure}")
            connection.close()
        elif entrant.failure is None and (entrant.out_round is None or self.runner.dialect.keeps_losers):
            connection.wait(lambda reason: self._failed_waiting(entrant, reason))
        else:  # out already: nothing more to play
            connection.close()

    def _replayed(self, round: int, table: list[Entrant], record: GameRecord) -> GameReport:
        """A game the store holds, scored again, with the failures its entrants had outside any game then."""
        report = self.manager.settle(report_of(record, table, table), round)
        for entrant in table:
            failed, reason = self.stored.outside.get(entrant.number, (None, None))
            if failed == round:
                entrant.fail(round, reason)
        self.games_done += 1
        self.round_games.append(record.id)
        return report

    def _lost(self, round: int, table: list[Entrant], present: list[Entrant], outcome: GameOutcome) -> Any:
        """A game the host lost (a worker died, an error of the host's): it counts for no one, and is played
        again with the same table once those whose connections went with it are back."""
        if self.status != "running":  # the host is stopping: the tournament is interrupted
            return GameReport([Seat(entrant) for entrant in table], outcome.record.id, settled=True)
        why = outcome.record.outcome.removeprefix("aborted: ")
        gone = [entrant for entrant, connection in zip(present, outcome.connections) if connection.state == CLOSED]
        for entrant, connection in zip(present, outcome.connections):
            if connection.state != CLOSED:
                connection.wait(lambda reason, entrant=entrant: self._failed_waiting(entrant, reason))
        log.warn(
            "tournament {id} round {round}: game {game} was lost ({why}); it counts for no one and is played again "
            "with the same players{wait}", id=self.id, round=round, game=outcome.record.id, why=escape(why),
            wait=f" once {plural(len(gone), 'player')} whose connections went with it {'is' if len(gone) == 1 else 'are'}"
                 f" back (within {self.returns.window:g} s): " + ", ".join(quoted(e.name) for e in gone) if gone else "",
        )
        self.returns.wait_for(gone, f"game {outcome.record.id} was lost ({why})")
        return self.referee(round, table)

    def _walkover(self, round: int, table: list[Entrant], present: list[Entrant]) -> GameReport:
        """Fewer than the smallest game came back to a table: those who did are placed first, with no score."""
        log.info("tournament {id} round {round}: a walkover for {names}: too few of their table came back",
                 id=self.id, round=round, names=", ".join(quoted(e.name) for e in present) or "nobody")
        return GameReport([Seat(entrant, 0) if entrant in present else Seat(entrant, None, entrant.failure)
                           for entrant in table])

    # -- what the run offers the mixin ------------------------------------------------------

    def referee(self, round: int, table: list[Entrant]) -> Deferred[GameReport]:
        raise NotImplementedError

    def tell(self, event: str) -> None:
        raise NotImplementedError

    def _farewells(self) -> Deferred:
        raise NotImplementedError

    def _over(self) -> TournamentRecord:
        raise NotImplementedError

    def _failed_waiting(self, entrant: Entrant, reason: str) -> None:
        raise NotImplementedError


def report_of(record: GameRecord, seated: list[Entrant], table: list[Entrant]) -> GameReport:
    """A stored game's seats as the tournament sees them: the entrant, its score or why it was removed.

    ``seated``: the entrants who sat in it, in seat order; the others of the ``table`` fail as they stand.
    """
    seats = dict(zip(seated, record.players))
    return GameReport(
        [Seat(entrant, seats[entrant].score, seats[entrant].removed_reason) if entrant in seats
         else Seat(entrant, None, entrant.failure) for entrant in table],
        record.id,
    )
