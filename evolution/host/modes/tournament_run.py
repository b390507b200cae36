# -*- test-case-name: tests.host.modes.test_tournament_mode, tests.host.modes.test_resumed_runs, tests.games.fish.test_tournaments, tests.host.modes.test_crash_at_every_write -*-
"""Tournaments over the wire: the manager's games played by the host's game runner, every decision stored first.

Offers ``TournamentRun``, one tournament from its signed-up connections (in sign-up order) to its winners:
the ``TournamentManager``'s referee, each game ``GameRunner.play`` on the entrants' connections; ``play()``,
``resume()`` (a tournament the store holds interrupted: ``evolution.host.modes.resumption``), ``stop()``,
``end_now()``, ``withdraw(name, reason)``, ``record()``, ``watch(callback)``; its ``decisions``
(``evolution.host.modes.decisions``: what it decides, stored before it acts on it) and its ``comebacks``
(``evolution.host.modes.comebacks``: entrants whose connections the host lost, a restart or a worker's death,
coming back by name); and, from ``decisions``, ``TournamentSettings`` and ``entrant_records(format, entrants)``.

What it writes down before acting on it (its settings and entrants, each round's tables, each failure and
walkover), and how a run plays, stores and logs a tournament: docs/tournaments.md, "Running a tournament" and
"Resuming a tournament"; docs/architecture.md, "The game runner".
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from twisted.internet.defer import Deferred, DeferredList, ensureDeferred, gatherResults, succeed
from twisted.logger import Logger

from evolution.host.modes.comebacks import Comebacks, report_of
from evolution.host.modes.decisions import Decisions, Table, TournamentSettings, entrant_records
from evolution.host.modes.resumption import StoredTournament
from evolution.host.modes.returns import Returns
from evolution.host.modes.round_summaries import round_summary
from evolution.host.runner.game_runner import GameOutcome, GameRunner, Seating, now
from evolution.net.host_connection import PLAYING
from evolution.store.operations import round_over, tournament_begun, tournament_over
from evolution.store.operations import walkover as walkover_operation
from evolution.store.records import FailureRecord, GameRecord, RoundRecord, TournamentRecord
from evolution.text import escape, plural, quoted
from evolution.tournament.formats import Swiss
from evolution.tournament.manager import TournamentManager
from evolution.tournament.standings import PLAYOFFS, Entrant, GameReport, Seat

__all__ = ["RETURN_WINDOW", "TournamentRun", "TournamentSettings", "entrant_records"]
log = Logger()
RETURN_WINDOW = 60.0  # seconds an entrant whose connection the host lost has to come back, unless told otherwise


class TournamentRun:
    """One tournament of signed-up connections, from its first round to its winners."""

    def __init__(
        self, tournament_id: int, settings: TournamentSettings, connections: list, runner: GameRunner, writer: Any,
        returns: Returns | None = None, stored: StoredTournament | None = None,
        owner_of: Callable[[Any], str | None] | None = None,
    ) -> None:
        self.id = tournament_id
        self.settings = settings
        self.runner = runner
        self.format = settings.make_format()
        self.returns = returns if returns is not None else Returns(getattr(runner, "clock", None), RETURN_WINDOW)
        self.stored = stored
        if stored is None:
            self.entrants = [
                Entrant(number, connection.name, connection) for number, connection in enumerate(connections, 1)
            ]
        else:
            self.entrants = [Entrant(entrant.entrant, entrant.name) for entrant in stored.record.entrants]
        self.decisions = Decisions(tournament_id, settings, runner, writer, self.format, self.entrants, stored,
                                   owner_of)
        self.manager = TournamentManager(self.format, self.entrants, self.referee, self, self._decide)
        self.comebacks = Comebacks(self)
        self.started_at = now() if stored is None else stored.record.started_at
        self.games_total = self.games_done = 0
        self.rounds_text = ""  # "of N" in the round's log lines: set as the round begins
        self.round_started = ""
        self.rounds: list[RoundRecord] = [] if stored is None else [r for r in stored.record.rounds if r.ended_at]
        self.round_games: list[int] = []  # the games of the round under way that are over
        self.status = "running"
        self._watchers: list[Callable[[str, TournamentRun], None]] = []

    # -- the whole run ----------------------------------------------------------------

    def play(self) -> Deferred[TournamentRecord]:
        """Begin, once the store holds the tournament; fires with its stored form once it is over."""
        log.info(
            "tournament {id} ({kind}) begins with {players}: {names}",
            id=self.id, kind=self.settings.format, players=plural(len(self.entrants), "player"),
            names=", ".join(quoted(e.name) for e in self.entrants),
        )
        self.decisions.begin()
        self.tell("begin")
        written = self.decisions.write(tournament_begun(self.record()))  # before any player hears of a game

        def greet(_: Any) -> Any:
            if self.status != "running":
                return [None] * len(self.entrants)
            return self.runner.greet([entrant.handle for entrant in self.entrants])

        return written.addCallback(greet).addCallback(self._greeted).addCallback(
            lambda _: self._farewells()).addCallback(lambda _: self._over())

    def resume(self) -> Deferred[TournamentRecord]:
        """Go on with the tournament the store holds interrupted (``Comebacks.begin``: its entrants awaited back);
        fires with its stored form once it is over."""
        return self.comebacks.begin().addCallback(lambda _: ensureDeferred(self.manager.run())).addCallback(
            lambda _: self.comebacks.caught_up()).addCallback(lambda _: self._farewells()).addCallback(
            lambda _: self._over())

    def _greeted(self, failures: list[str | None]) -> Deferred:
        for entrant, failure in zip(self.entrants, failures):
            if failure is not None:
                self.decisions.fail(entrant, failure)
            elif self.status == "running":
                self.watch_between_games(entrant)
        return ensureDeferred(self.manager.run())

    def _farewells(self) -> Deferred:
        """The dialect's farewell to every player still connected; a winner that fails it wins no more."""
        if self.status != "running":
            return succeed(None)
        for entrant in self.decisions.stored_failures(self.manager.round, FailureRecord.END):  # before it stopped
            entrant.winner = False
        players = [entrant for entrant in self.entrants if entrant.failure is None and entrant.out_round is None]
        players += [entrant for entrant in self.entrants if entrant.failure is None and entrant.out_round is not None]
        said = [self.runner.farewell(entrant.handle, entrant.winner) for entrant in players]

        def heard(results: list) -> Deferred:
            written = []
            for entrant, (ok, failure) in zip(players, results):
                if ok and failure is not None:
                    written.append(self.decisions.fail(entrant, f"failed the tournament's end: {failure}",
                                                       FailureRecord.END))
                    entrant.winner = False
            return gatherResults(written)

        return DeferredList(said, consumeErrors=True).addCallback(heard)

    def stop(self) -> None:
        """The host is stopping: store the tournament as interrupted (its finished games are stored).

        The players waiting between games are hung up on now; those in a game, when the game
        runner stops it (it is stored as aborted).
        """
        if self.status == "running":
            self.status = "interrupted"
            self.manager.stop()
            self.decisions.write(tournament_over(self.id, self.status, now(), self.decisions.entrant_records()))
            still_in = [entrant for entrant in self.entrants if entrant.active]
            log.info(
                "tournament {id} interrupted in round {round}: the host is stopping; hanging up on {players} "
                "still in", id=self.id, round=self.manager.round, players=plural(len(still_in), "player"),
            )
            for entrant in still_in:
                if entrant.handle is not None and entrant.handle.state != PLAYING:
                    entrant.handle.close()
            self.returns.stop()  # a table waiting for its entrants plays no more

    def _over(self) -> TournamentRecord:
        if self.status == "running":
            self.status = "finished"
            self.decisions.write(tournament_over(self.id, self.status, now(), self.decisions.entrant_records()))
            winners = self.manager.winners
            still_in = sum(1 for entrant in self.entrants if entrant.active)
            log.info(
                "tournament {id} is over after {rounds}: {winners}; {failed} failed; the end said, closing the "
                "connections ({players} left in)",
                id=self.id, rounds=plural(self.manager.round, "round"),
                winners=("won by " + ", ".join(quoted(w.name) for w in winners)) if winners else "no winner",
                failed=sum(1 for e in self.entrants if e.failure), players=plural(still_in, "player"),
            )
        for entrant in self.entrants:
            if entrant.handle is not None:
                self.decisions.when_kept(entrant, entrant.handle.close)
        self.tell("over")
        return self.record()

    # -- deciding ------------------------------------------------------------------------

    def _decide(self, round: int, games: list[list[Entrant]]) -> list[Table] | Deferred[list[Table]]:
        """The manager's ``decide``: the round's tables (``Decisions.decide``); a resume's stored rounds are played
        again up to the round it resumes in (``Comebacks.caught_up``)."""
        tables = self.decisions.decide(round, games)
        if self.stored is not None and round >= self.stored.round:
            self.comebacks.caught_up()
        return tables

    def entrant(self, number: int) -> Entrant:
        return self.entrants[number - 1]

    # -- the referee ------------------------------------------------------------------

    def referee(self, round: int, table: Table) -> Deferred[GameReport]:
        """A table's game: from the store where it was decided before the host stopped (its finished game, or its
        walkover), else played once its entrants are back (those that are not by their time fail)."""
        if table.walkover is not None:
            return succeed(self._walkover(round, table, [self.entrant(number) for number in table.walkover]))
        record = None
        if self.stored is not None:
            record = self.stored.game_of(round, table.number, [entrant.name for entrant in table])
        if record is not None:
            return succeed(self.comebacks.replayed(round, table, record))
        if any(self.returns.is_away(entrant) for entrant in table):
            return self.returns.back(table).addCallback(lambda _: self._play(round, table))
        return self._play(round, table)

    def _play(self, round: int, table: Table) -> Deferred[GameReport]:
        """Play the table with its entrants here; one away past its time fails; too few here is a walkover. A table
        whose entrants came back (or not) after the tournament ended or was interrupted counts for no one. One out
        since its table was dealt (it hung up or spoke while the table was stored, or waited for) is not seated,
        as a resume that read its failure would not seat it."""
        if self.status != "running":
            return succeed(GameReport([Seat(entrant) for entrant in table], settled=True))
        present = [entrant for entrant in table if not self.returns.is_away(entrant) and entrant.failure is None]
        written = []
        for entrant in table:
            if entrant not in present and entrant.failure is None:
                reason = (f"did not come back within {self.returns.window:g} s after "
                          f"{self.returns.why.get(entrant, 'the host lost its connection')}")
                written.append(self.decisions.fail(entrant, reason))
                log.info("tournament {id}: {name} is out: {reason}", id=self.id, name=quoted(entrant.name),
                         reason=escape(reason))
        if len(present) < self.settings.smallest:
            log.info("tournament {id} round {round}: a walkover for {names}: too few of their table came back",
                     id=self.id, round=round, names=", ".join(quoted(e.name) for e in present) or "nobody")
            walkover = walkover_operation(self.id, round, table.number, [e.number for e in present])
            written.append(self.decisions.write(walkover))
            return gatherResults(written).addCallback(lambda _: self._walkover(round, table, present))
        if written:  # the failures are stored before the game begins without them
            return gatherResults(written).addCallback(lambda _: self._start(round, table, present))
        return self._start(round, table, present)

    def _start(self, round: int, table: Table, present: list[Entrant]) -> Deferred[GameReport]:
        report: dict[str, GameReport] = {}

        def settled(outcome: GameOutcome) -> Any:
            if not outcome.record.finished:
                return self.comebacks.lost(round, table, present, outcome)
            self.games_done += 1
            self.round_games.append(outcome.record.id)
            self._progress(round)
            for entrant, reason in zip(present, outcome.failed_after):
                if reason is not None:
                    self._failed_waiting(entrant, f"failed at the game's end: {reason}")
            for entrant in present:
                if entrant.failure is None and self.status == "running":
                    self.watch_between_games(entrant)
                else:
                    self.decisions.when_kept(entrant, entrant.handle.close)
            if "game" not in report:  # scoring failed while the game was stored (logged there)
                report["game"] = self.manager.settle(report_of(outcome.record, present, table), round)
            return report["game"]

        def scored(record: GameRecord) -> GameRecord:
            if not record.finished:  # the host's fault: it counts for no one (``Comebacks.lost``)
                return record
            report["game"] = self.manager.settle(report_of(record, present, table), round)
            return self._annotate(record, report["game"], present)

        seating = Seating(self.id, round, scored, self.decisions.entrant_records, table.number, table.seed)
        return self.runner.play([entrant.handle for entrant in present], seating).addCallback(settled)

    def _annotate(self, record: GameRecord, report: GameReport, game: list[Entrant]) -> GameRecord:
        """The tournament's view of each seat: which entrant, its points, its rating after the game.

        A play-off's filler (the game does not count for it) is stored as no entrant, with no points; a knockout's
        games give no points.
        """
        seats = []
        for seat, entrant in zip(record.players, game):
            if entrant.filler:
                seats.append(replace(seat, entrant=None, points=None))
                continue
            mu, sigma = self.format.rating(entrant)
            points = report.points.get(entrant, 0) if self.format.keeps_points else None
            seats.append(replace(seat, entrant=entrant.number, points=points, rating_mu=mu, rating_sigma=sigma))
        return replace(record, players=tuple(seats))

    def _walkover(self, round: int, table: Table, present: list[Entrant]) -> GameReport:
        """Fewer than the smallest game came back to a table: those who did are placed first, with no score."""
        return GameReport([Seat(entrant, 0) if entrant in present else Seat(entrant, None, entrant.failure)
                           for entrant in table])

    def watch_between_games(self, entrant: Entrant, connection: Any = None) -> None:
        """Watch ``entrant``'s connection (default: its own) between games: a word or a hang-up puts it out."""
        (connection if connection is not None else entrant.handle).wait(
            lambda reason: self._failed_waiting(entrant, reason), closes=True)

    def _failed_waiting(self, entrant: Entrant, reason: str) -> None:
        """A player between games sent something or hung up (or the organiser withdrew it): out for good, and hung
        up on once that is stored. It hears the dialect's word at once."""
        handle = entrant.handle
        if entrant.failure is None and entrant.active and self.status == "running":
            self.decisions.fail(entrant, reason)
            log.info(
                "tournament {id}: {name} is out: {reason}", id=self.id, name=quoted(entrant.name),
                reason=escape(reason),
            )
            self.runner.say_removal(handle, reason)
        self.decisions.when_kept(entrant, handle.close)

    # -- the manager's observer -------------------------------------------------------------

    def round_begins(self, round: int, games: list[list[Entrant]]) -> None:
        self.games_total, self.games_done = len(games), 0
        self.round_started, self.round_games = now(), []
        players = sum(len(game) for game in games)
        expected = self.format.rounds_expected(players)  # a knockout's guess is made again each round
        self.rounds_text = str(expected) if isinstance(self.format, Swiss) else f"about {round - 1 + expected}"
        if self.stored is not None and round < self.stored.round:  # played again from the store: said already
            return
        decided = self.stored.tables.get(round) if self.stored is not None else None
        if decided:
            self.round_started = min(table.decided_at for table in decided) or self.round_started
        playoff = getattr(self.format, "playoff", None)
        log.info(
            "tournament {id} round {round} of {of}: {games}, {players}{what}",
            id=self.id, round=round, of=self.rounds_text, games=plural(len(games), "game"),
            players=plural(players, "player"),
            what=f" (play-off {playoff.number} of the tied final, at most {PLAYOFFS})" if playoff else "",
        )
        self.tell("round")

    def round_over(self, round: int, reports: list[GameReport]) -> None:
        self.decisions.closed(round)
        self.decisions.stored_failures(round, FailureRecord.AFTER)  # failed after the round, before the host stopped
        if self.status != "running" or (self.stored is not None and round < self.stored.round):
            return
        summary = round_summary(self.format, self.entrants, round, reports)
        log.info("tournament {id} round {round}: {summary}", id=self.id, round=round, summary=summary)
        record = RoundRecord(round, self.round_started, now(), summary, tuple(self.round_games))
        self.rounds.append(record)
        self.decisions.write(round_over(self.id, record, self.decisions.entrant_records()))
        if not self.runner.dialect.keeps_losers:  # Fish's course protocol keeps them to the farewell
            for entrant in self.entrants:  # knocked out now, or a play-off's filler needed no more
                if entrant.out_round is not None and not entrant.filler:
                    entrant.handle.close()
        self.tell("round")

    def _progress(self, round: int) -> None:
        log.info(
            "tournament {id} round {round} of {of}: {done} of {total} done, {running} running",
            id=self.id, round=round, of=self.rounds_text, done=self.games_done,
            total=plural(self.games_total, "game"),
            running=self.games_total - self.games_done,
        )
        self.tell("progress")

    # -- watching and storing -------------------------------------------------------------------

    def watch(self, callback: Callable[[str, TournamentRun], None]) -> None:
        self._watchers.append(callback)

    def tell(self, event: str) -> None:
        for callback in list(self._watchers):
            try:
                callback(event, self)
            except Exception:
                log.failure("a watcher of tournament {id} failed on {event}", id=self.id, event=event)

    def record(self) -> TournamentRecord:
        """The tournament as it stands: entrants, the rounds over, and the round under way so far."""
        rounds = list(self.rounds)
        if self.status == "running" and self.manager.round > len(rounds):
            rounds.append(RoundRecord(self.manager.round, self.round_started, "", "under way", tuple(self.round_games)))
        return TournamentRecord(
            self.id, self.settings.format, self.status, self.started_at, None, self.decisions.settings_record(),
            tuple(self.decisions.entrant_records()), tuple(rounds), self.runner.game.name, self.comebacks.resumptions,
            self.runner.settings.host_name,
        )

    def withdraw(self, name: str, reason: str) -> bool:
        """The organiser withdraws entrant ``name`` (the operator port): out for good, its remaining games lost, as a
        failure between games is (a game it plays now loses it as its connection closes). False: no such entrant
        is still in."""
        entrant = next((e for e in self.entrants if e.name == name and e.failure is None and e.active), None)
        if entrant is None or self.status != "running":
            return False
        self._failed_waiting(entrant, f"withdrawn by the organiser: {reason}")
        return True

    def end_now(self) -> bool:
        """The organiser ends the tournament now (the operator port): stored with its standings as they stand,
        ended-early, no winners; the games under way finish, no round follows. False: it is not running."""
        if self.status != "running":
            return False
        self.status = "ended-early"
        self.manager.stop()
        self.decisions.write(tournament_over(self.id, self.status, now(), self.decisions.entrant_records()))
        log.info("tournament {id} is ended early by the organiser in round {round}: its standings as they stand",
                 id=self.id, round=self.manager.round)
        self.returns.stop()  # a table waiting for its entrants plays no more
        return True

