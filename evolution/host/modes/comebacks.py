# -*- test-case-name: tests.host.modes.test_resumption, tests.host.modes.test_resumed_runs, tests.host.workers.test_pool, tests.host.modes.test_crash_at_every_write -*-
"""A tournament's players coming back: after a restart (``--resume``), or a game the host lost (a worker's death).

Offers ``Comebacks(run)``, the part of a ``TournamentRun`` (``evolution.host.modes.tournament_run``) that
handles them: ``begin()`` (a resume begins: the entrants still in awaited back by name, the resumption stored
under this host's name; the run then plays its stored rounds again from the store: their tables, finished games,
walkovers and failures), ``caught_up()`` (those rounds are played again: the entrants they knocked out are
awaited no more, and the log says where it resumes), ``resumptions``; ``claim(name)``, ``names_held()``,
``awaiting()`` and ``returned(connection)``, what the lobby's policy asks of a run while it awaits its entrants;
and, for the referee, ``replayed`` (a table's game the store holds) and ``lost`` (a game the host lost: counted
for no one, played again with the same table once its players are back); ``report_of(record, seated, table)``,
a stored game as the tournament sees it. How it goes: docs/tournaments.md, "Resuming a tournament".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from twisted.internet.defer import Deferred
from twisted.logger import Logger

from evolution.host.modes.returns import Away
from evolution.host.runner.game_runner import GameOutcome, now
from evolution.net.host_connection import CLOSED
from evolution.store.operations import tournament_resumed
from evolution.store.records import FailureRecord, GameRecord, Resumption
from evolution.text import escape, plural, quoted
from evolution.tournament.standings import Entrant, GameReport, Seat

if TYPE_CHECKING:
    from evolution.host.modes.tournament_run import TournamentRun

log = Logger()


class Comebacks:
    """Entrants coming back to one tournament run."""

    def __init__(self, run: TournamentRun) -> None:
        self.run = run
        self.rejoining: set[str] = set()  # names of entrants back, being greeted
        self.replaying = run.stored is not None  # a resume plays its stored rounds again, up to the one it resumes in
        self.resumptions: tuple[Resumption, ...] = () if run.stored is None else run.stored.record.resumptions

    def begin(self) -> Deferred:
        """A resume begins; fires once the store holds it (then the run plays on).

        Its rounds are the tables it stored: a table with a finished game (or a walkover) is played again from the
        store, never twice; the others are played once their entrants are back. The entrants still in are awaited
        back, each by its name, for the ``Returns`` window (from now: those the stored rounds knocked out, once
        they are played again, are awaited no more: ``caught_up``).
        """
        run, stored = self.run, self.run.stored
        assert stored is not None
        resumed_at = now()
        self.resumptions = stored.record.resumptions + (Resumption(stored.round, resumed_at),)
        for entrant in run.entrants:
            entrant.handle = Away(entrant.name)  # not here (yet); those out for good are not awaited
        run.decisions.stored_failures(0, FailureRecord.DURING)  # failed the greeting
        out = stored.out()
        awaited = [entrant for entrant in run.entrants if entrant.failure is None and entrant.number not in out]
        run.returns.wait_for(awaited, "the host stopped")
        run.tell("begin")
        return run.decisions.write(tournament_resumed(run.id, stored.round, resumed_at, run.runner.settings.host_name))

    def caught_up(self) -> None:
        """The stored rounds are played again (the round it resumes in begins, or there is none): the entrants they
        knocked out are awaited no more, where they have nothing left to play; the log says who is."""
        run, stored = self.run, self.run.stored
        if not self.replaying or stored is None:
            return
        self.replaying = False
        out = stored.out()
        still_in = [entrant for entrant in run.entrants if entrant.number not in out and self.plays_on(entrant)]
        for entrant in run.entrants:
            if entrant in still_in:
                continue
            if entrant.name in run.returns.awaited:
                run.returns.drop(entrant)
            elif not run.returns.is_away(entrant):  # back before its rounds were played again: nothing to play
                entrant.handle.close()
        log.info(
            "tournament {id} ({kind}) resumes in round {round}, with {games} of it finished; its {count} still in "
            "sign up again by name within {window:g} s: {names}",
            id=run.id, kind=run.settings.format, round=stored.round,
            games=plural(sum(1 for table in stored.games if table[0] == stored.round)
                         + sum(1 for table in stored.by_names if table[0] == stored.round), "game"),
            count=plural(len(still_in), "entrant"), window=run.returns.window,
            names=", ".join(quoted(e.name) for e in still_in),
        )

    def plays_on(self, entrant: Entrant) -> bool:
        """Not out, nor knocked out with nothing left to play (a filler of a play-off, or a loser that hears the
        tournament's end in the dialect, has)."""
        return entrant.failure is None and (entrant.out_round is None or entrant.filler
                                             or self.run.runner.dialect.keeps_losers)

    # -- entrants coming back -------------------------------------------------------------

    def claim(self, name: str) -> str | None:
        """The name of the awaited entrant a sign-up named ``name`` takes the place of (None: no place for it).

        Where a dialect names a bot after its address (``host:port``, seed 004), the first entrant awaited from
        that host.
        """
        returns = self.run.returns
        if returns.claim(name) and name not in self.rejoining:
            return name
        host, colon, port = name.rpartition(":")
        if colon and port.isdigit():
            for awaited in returns.awaited:
                if awaited.rpartition(":")[0] == host and returns.claim(awaited) and awaited not in self.rejoining:
                    return awaited
        return None

    def names_held(self) -> set[str]:
        """The names a new sign-up may not take: every entrant's but those awaited back."""
        return {e.name for e in self.run.entrants if e.name not in self.run.returns.awaited} | self.rejoining

    def awaiting(self) -> bool:
        return any(self.run.returns.claim(name) for name in self.run.returns.awaited)

    def returned(self, connection: Any) -> None:
        """An awaited entrant signed up again: greeted (as before its first game), then its place is its own."""
        self.rejoining.add(connection.name)
        log.info("tournament {id}: {name} is back", id=self.run.id, name=quoted(connection.name))
        self.run.runner.greet([connection]).addCallback(lambda failures: self._back(connection, failures[0]))

    def _back(self, connection: Any, failure: str | None) -> None:
        run, returns = self.run, self.run.returns
        self.rejoining.discard(connection.name)
        entrant = returns.awaited.get(connection.name) if run.status == "running" else None
        if entrant is None or not returns.claim(connection.name):
            connection.close()
            return
        if failure is not None:  # out, once stored; then its table need not wait for it any longer
            run.decisions.fail(entrant, f"failed the greeting when it came back: {failure}")
            run.decisions.when_kept(entrant, lambda: (returns.drop(entrant), connection.close()))
        elif self.plays_on(entrant):
            # Watched between games first: a table this return completes takes the connection from the watch.
            run.watch_between_games(entrant, connection)
            returns.returned(connection)
        else:  # out already: nothing more to play
            returns.drop(entrant)
            connection.close()

    # -- for the referee ------------------------------------------------------------------

    def replayed(self, round: int, table: list[Entrant], record: GameRecord) -> GameReport:
        """A game the store holds for this table, scored again (its seats: the entrants that sat in it)."""
        by_number = {entrant.number: entrant for entrant in table}
        by_name = {entrant.name: entrant for entrant in table}
        seated = [by_number.get(seat.entrant) or by_name[seat.name] for seat in record.players]
        report = self.run.manager.settle(report_of(record, seated, table), round)
        self.run.games_done += 1
        self.run.round_games.append(record.id)
        return report

    def lost(self, round: int, table: list[Entrant], present: list[Entrant], outcome: GameOutcome) -> Any:
        """A game the host lost (a worker died, an error of the host's): it counts for no one, and is played
        again with the same table once those whose connections went with it are back."""
        run = self.run
        if run.status != "running":  # the host is stopping: the tournament is interrupted
            return GameReport([Seat(entrant) for entrant in table], outcome.record.id, settled=True)
        why = outcome.record.outcome.removeprefix("aborted: ")
        gone = [entrant for entrant, connection in zip(present, outcome.connections) if connection.state == CLOSED]
        for entrant, connection in zip(present, outcome.connections):
            if connection.state != CLOSED:
                run.watch_between_games(entrant, connection)
        log.warn(
            "tournament {id} round {round}: game {game} was lost ({why}); it counts for no one and is played again "
            "with the same players{wait}", id=run.id, round=round, game=outcome.record.id, why=escape(why),
            wait=f" once {plural(len(gone), 'player')} whose connections went with it {'is' if len(gone) == 1 else 'are'}"
                 f" back (within {run.returns.window:g} s): " + ", ".join(quoted(e.name) for e in gone) if gone else "",
        )
        run.returns.wait_for(gone, f"game {outcome.record.id} was lost ({why})")
        return run.referee(round, table)


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
