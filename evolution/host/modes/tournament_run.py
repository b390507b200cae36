# -*- test-case-name: tests.host.modes.test_tournament_mode, tests.games.fish.test_tournaments -*-
"""Tournaments over the wire: the manager's games played by the host's game runner, every step stored.

Offers ``TournamentSettings`` (a tournament's format and its options:
``make_format()``, ``recorded()``) and ``TournamentRun``, one tournament from
its signed-up connections (in sign-up order) to its winners: the
``TournamentManager``'s referee, each game ``GameRunner.play`` on the
entrants' connections; ``play()``, ``resume()`` (a tournament the store holds
interrupted: ``evolution.host.modes.resumption``), ``stop()``,
``watch(callback)``; and, for entrants whose connections the host lost (a
restart, a worker's death: ``evolution.host.modes.returns``), ``claim(name)``,
``returned(connection)`` and ``names_held()``.

How a run plays, stores and logs a tournament: docs/architecture.md,
"The game runner"; docs/tournaments.md, "Running a tournament".
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

from twisted.internet.defer import Deferred, DeferredList, ensureDeferred, succeed
from twisted.logger import Logger

from evolution.host.modes.comebacks import Comebacks, report_of
from evolution.host.modes.resumption import StoredTournament
from evolution.host.modes.returns import Returns
from evolution.host.runner.game_runner import GameOutcome, GameRunner, Seating, now
from evolution.net.host_connection import PLAYING
from evolution.store.operations import round_over, tournament_begun, tournament_over
from evolution.store.records import EntrantRecord, GameRecord, RoundRecord, TournamentRecord
from evolution.text import escape, plural, quoted
from evolution.tournament.formats import Knockout, Swiss
from evolution.tournament.manager import TournamentManager
from evolution.tournament.standings import PLAYOFFS, Entrant, GameReport

log = Logger()
RETURN_WINDOW = 60.0  # seconds an entrant whose connection the host lost has to come back, unless told otherwise


@dataclass(frozen=True)
class TournamentSettings:
    format: str = "knockout"
    smallest: int = 3
    largest: int = 8
    rounds: int = 5  # Swiss
    seed: int | None = None  # Swiss: the first round's shuffle
    final_tiebreak: str = "co-winners"  # knockout: or "playoff"
    runners_up: bool = True  # knockout: the game's rule (``Game.knockout_runners_up``)

    def make_format(self) -> Knockout | Swiss:
        if self.format == "swiss":
            return Swiss(self.smallest, self.largest, self.rounds, self.seed)
        return Knockout(self.smallest, self.largest, self.final_tiebreak, self.runners_up)

    def recorded(self) -> dict[str, Any]:
        data: dict[str, Any] = {"players": f"{self.smallest}-{self.largest}"}
        if self.format == "swiss":
            data.update(rounds=self.rounds, seed=self.seed)
        else:
            data.update(final_tiebreak=self.final_tiebreak, runners_up=self.runners_up)
        return data


class TournamentRun(Comebacks):
    """One tournament of signed-up connections, from its first round to its winners."""

    def __init__(
        self, tournament_id: int, settings: TournamentSettings, connections: list, runner: GameRunner, writer: Any,
        returns: Returns | None = None, stored: StoredTournament | None = None,
    ) -> None:
        self.id = tournament_id
        self.settings = settings
        self.runner = runner
        self.writer = writer
        self.format = settings.make_format()
        self.returns = returns if returns is not None else Returns(getattr(runner, "clock", None), RETURN_WINDOW)
        self.stored = stored
        self.rejoining: set[str] = set()  # names of entrants back, being greeted
        if stored is None:
            self.entrants = [
                Entrant(number, connection.name, connection) for number, connection in enumerate(connections, 1)
            ]
        else:
            self.entrants = [Entrant(entrant.entrant, entrant.name) for entrant in stored.record.entrants]
        self.manager = TournamentManager(self.format, self.entrants, self.referee, self)
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
        """Begin; fires with the stored form of the tournament once it is over."""
        self.writer.write(tournament_begun(self.record()))
        log.info(
            "tournament {id} ({kind}) begins with {players}: {names}",
            id=self.id, kind=self.settings.format, players=plural(len(self.entrants), "player"),
            names=", ".join(quoted(e.name) for e in self.entrants),
        )
        self.tell("begin")
        greeted = self.runner.greet([entrant.handle for entrant in self.entrants])
        return greeted.addCallback(self._greeted).addCallback(lambda _: self._farewells()).addCallback(
            lambda _: self._over()
        )

    def _greeted(self, failures: list[str | None]) -> Deferred:
        for entrant, failure in zip(self.entrants, failures):
            if failure is not None:
                entrant.fail(0, failure)
            else:
                entrant.handle.wait(lambda reason, entrant=entrant: self._failed_waiting(entrant, reason))
        return ensureDeferred(self.manager.run())

    def _farewells(self) -> Deferred:
        """The dialect's farewell to every player still connected; a winner that fails it wins no more."""
        if self.status != "running":
            return succeed(None)
        players = [entrant for entrant in self.entrants if entrant.failure is None and entrant.out_round is None]
        players += [entrant for entrant in self.entrants if entrant.failure is None and entrant.out_round is not None]
        said = [self.runner.farewell(entrant.handle, entrant.winner) for entrant in players]

        def heard(results: list) -> None:
            for entrant, (ok, failure) in zip(players, results):
                if ok and failure is not None:
                    entrant.fail(self.manager.round, f"failed the tournament's end: {failure}")
                    entrant.winner = False

        return DeferredList(said, consumeErrors=True).addCallback(heard)

    def stop(self) -> None:
        """The host is stopping: store the tournament as interrupted (its finished games are stored).

        The players waiting between games are hung up on now; those in a game, when the game
        runner stops it (it is stored as aborted).
        """
        if self.status == "running":
            self.status = "interrupted"
            self.manager.stop()
            self.writer.write(tournament_over(self.id, self.status, now(), self.entrant_records()))
            still_in = [entrant for entrant in self.entrants if entrant.active]
            log.info(
                "tournament {id} interrupted in round {round}: the host is stopping; hanging up on {players} "
                "still in", id=self.id, round=self.manager.round, players=plural(len(still_in), "player"),
            )
            for entrant in still_in:
                if entrant.handle.state != PLAYING:
                    entrant.handle.close()

    def _over(self) -> TournamentRecord:
        if self.status == "running":
            self.status = "finished"
            self.writer.write(tournament_over(self.id, self.status, now(), self.entrant_records()))
            winners = self.manager.winners
            still_in = sum(1 for entrant in self.entrants if entrant.active)
            log.info(
                "tournament {id} is over after {rounds}: {winners}; {failed} failed; hanging up on {players} "
                "still in",
                id=self.id, rounds=plural(self.manager.round, "round"),
                winners=("won by " + ", ".join(quoted(w.name) for w in winners)) if winners else "no winner",
                failed=sum(1 for e in self.entrants if e.failure), players=plural(still_in, "player"),
            )
        for entrant in self.entrants:
            entrant.handle.close()
        self.tell("over")
        return self.record()

    # -- the referee ------------------------------------------------------------------

    def referee(self, round: int, table: list[Entrant]) -> Deferred[GameReport]:
        """A table's game: from the store where a resumed tournament finished it, else played once its entrants
        are back (those that are not by their time fail)."""
        stored = self.stored.game(round, [entrant.name for entrant in table]) if self.stored is not None else None
        if stored is not None:
            return succeed(self._replayed(round, table, stored))
        if any(self.returns.is_away(entrant) for entrant in table):
            return self.returns.back(table).addCallback(lambda _: self._play(round, table))
        return self._play(round, table)

    def _play(self, round: int, table: list[Entrant]) -> Deferred[GameReport]:
        """Play the table with its entrants here; one away past its time fails; too few here is a walkover."""
        present = [entrant for entrant in table if not self.returns.is_away(entrant)]
        for entrant in table:
            if entrant not in present and entrant.failure is None:
                entrant.fail(round, f"did not come back within {self.returns.window:g} s after "
                                    f"{self.returns.why.get(entrant, 'the host lost its connection')}")
                log.info("tournament {id}: {name} is out: {reason}", id=self.id, name=quoted(entrant.name),
                         reason=escape(entrant.failure))
        if len(present) < self.settings.smallest:
            return succeed(self._walkover(round, table, present))
        report: dict[str, GameReport] = {}

        def settled(outcome: GameOutcome) -> Any:
            if not outcome.record.finished:
                return self._lost(round, table, present, outcome)
            self.games_done += 1
            self.round_games.append(outcome.record.id)
            self._progress(round)
            for entrant, reason in zip(present, outcome.failed_after):
                if reason is not None:
                    self._failed_waiting(entrant, f"failed at the game's end: {reason}")
            for entrant in present:
                if entrant.failure is None and self.status == "running":
                    entrant.handle.wait(lambda reason, entrant=entrant: self._failed_waiting(entrant, reason))
                else:
                    entrant.handle.close()
            if "game" not in report:  # scoring failed while the game was stored (logged there)
                report["game"] = self.manager.settle(report_of(outcome.record, present, table), round)
            return report["game"]

        def scored(record: GameRecord) -> GameRecord:
            if not record.finished:  # the host's fault: it counts for no one (``_lost``)
                return record
            report["game"] = self.manager.settle(report_of(record, present, table), round)
            return self._annotate(record, report["game"], present)

        seating = Seating(self.id, round, scored, self.entrant_records)
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

    def _failed_waiting(self, entrant: Entrant, reason: str) -> None:
        """A player between games sent something or hung up: out for good."""
        if entrant.failure is None and entrant.active and self.status == "running":
            entrant.fail(self.manager.round, reason)
            log.info(
                "tournament {id}: {name} is out: {reason}", id=self.id, name=quoted(entrant.name),
                reason=escape(reason),
            )
            self.runner.hang_up(entrant.handle, reason)
        else:
            entrant.handle.close()

    # -- the manager's observer -------------------------------------------------------------

    def round_begins(self, round: int, games: list[list[Entrant]]) -> None:
        if self.stored is not None and round < self.stored.round:  # played again from the store: said already
            return
        self.games_total, self.games_done = len(games), 0
        self.round_started, self.round_games = now(), []
        players = sum(len(game) for game in games)
        expected = self.format.rounds_expected(players)  # a knockout's guess is made again each round
        self.rounds_text = str(expected) if isinstance(self.format, Swiss) else f"about {round - 1 + expected}"
        playoff = getattr(self.format, "playoff", None)
        log.info(
            "tournament {id} round {round} of {of}: {games}, {players}{what}",
            id=self.id, round=round, of=self.rounds_text, games=plural(len(games), "game"),
            players=plural(players, "player"),
            what=f" (play-off {playoff.number} of the tied final, at most {PLAYOFFS})" if playoff else "",
        )
        self.tell("round")

    def round_over(self, round: int, reports: list[GameReport]) -> None:
        if self.status != "running" or (self.stored is not None and round < self.stored.round):
            return
        summary = self._summary(round, reports)
        log.info("tournament {id} round {round}: {summary}", id=self.id, round=round, summary=summary)
        record = RoundRecord(round, self.round_started, now(), summary, tuple(self.round_games))
        self.rounds.append(record)
        self.writer.write(round_over(self.id, record, self.entrant_records()))
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

    def _summary(self, round: int, reports: list[GameReport]) -> str:
        playing = [seat.entrant for report in reports for seat in report.seats]
        failed = [e for e in playing if e.failure is not None and e.failed_round == round]
        text = f"{plural(len(reports), 'game')}, {plural(len(playing), 'player')}"
        if isinstance(self.format, Swiss):
            standings = self.format.standings(self.entrants)
            leader = standings[0][1] if standings and standings[0][0] else None
            if leader is not None:
                mu, sigma = self.format.rating(leader)
                text += f"; leader {quoted(leader.name)} with {plural(leader.points, 'point')} (rating {mu:.1f} +- {sigma:.1f})"
        else:
            text += "; " + self._knockout_outcome(round, playing)
        if failed:
            text += f"; {len(failed)} failed: " + ", ".join(quoted(e.name) for e in failed)
        return text

    def _knockout_outcome(self, round: int, playing: list[Entrant]) -> str:
        """What a knockout round decided: who goes on, who is tied for a play-off, or who won."""
        format, names = self.format, lambda entrants: ", ".join(quoted(e.name) for e in entrants)
        if format.done:
            return f"won by {names(format.winners)}" if format.winners else "no winner"
        if format.playoff is not None:
            return f"{names(format.playoff.tied)} tied for first: play-off {format.playoff.number} follows"
        going_on = [e for e in playing if e.active]
        out = [e for e in playing if e.out_round == round]
        return f"{len(going_on)} {'goes' if len(going_on) == 1 else 'go'} on, {len(out)} knocked out"

    # -- watching and storing -------------------------------------------------------------------

    def watch(self, callback: Callable[[str, TournamentRun], None]) -> None:
        self._watchers.append(callback)

    def tell(self, event: str) -> None:
        for callback in list(self._watchers):
            try:
                callback(event, self)
            except Exception:
                log.failure("a watcher of tournament {id} failed on {event}", id=self.id, event=event)

    def entrant_records(self) -> list[EntrantRecord]:
        return entrant_records(self.format, self.entrants)

    def record(self) -> TournamentRecord:
        """The tournament as it stands: entrants, the rounds over, and the round under way so far."""
        rounds = list(self.rounds)
        if self.status == "running" and self.manager.round > len(rounds):
            rounds.append(RoundRecord(self.manager.round, self.round_started, "", "under way", tuple(self.round_games)))
        return TournamentRecord(
            self.id, self.settings.format, self.status, self.started_at, None, self.settings.recorded(),
            tuple(self.entrant_records()), tuple(rounds), self.runner.game.name, self.resumptions,
            self.runner.settings.host_name,
        )


def entrant_records(format: Any, entrants: list[Entrant]) -> list[EntrantRecord]:
    """Each entrant as it stands in ``format``'s standings: rank, points, rating, failure, last game."""
    ranks = {id(entrant): rank for rank, entrant in format.standings(entrants)}
    records = []
    for entrant in entrants:
        mu, sigma = format.rating(entrant)
        records.append(EntrantRecord(
            entrant.number, entrant.name, ranks.get(id(entrant)), entrant.points, mu, sigma,
            entrant.winner, entrant.failure, entrant.failed_round, entrant.last_round, entrant.last_place,
            entrant.last_score,
        ))
    return records
