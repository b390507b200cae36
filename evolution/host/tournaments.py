"""Tournaments over the wire: the manager's games played by the host's game runner, every step stored.

Offers ``TournamentSettings`` and ``TournamentRun``. A run takes the signed-up
connections (in sign-up order), makes them the entrants of a
``TournamentManager`` (``evolution.tournament``) with the chosen format, and
is the manager's referee: each game is ``GameRunner.play`` on the entrants'
connections, the same runner the single-game lobby uses, so the games are
recorded, logged and stored like any other, with the tournament's points
and ratings on their seats.

Over the unchanged course protocol: a player that goes on simply receives
the next game's ``start`` on the same connection; between games it must stay
silent (a message, or a disconnect, is a failure: it is out for good, and
closed). A player that is out (knocked out, failed, or at the end) is hung
up on; with ``--send-scores`` each game's score message came first.

Stored as it happens (``evolution.host.store``): the tournament and its
entrants when it begins, each game when it ends with the standings after it
(in one transaction), the standings after each round, the winners and the
status at the end. A host killed mid-tournament leaves every finished game
and round in the store, and standings that count every game stored; the
next start marks the tournament "interrupted".

Logged: a line when the tournament and each round begin, a progress line
each time a game ends (round k of n, games done and running), a one-line
summary after each round, and the winners.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

from twisted.internet.defer import Deferred, ensureDeferred
from twisted.logger import Logger

from evolution.host.games import GameOutcome, GameRunner, Seating, now
from evolution.host.records import EntrantRecord, GameRecord, RoundRecord, TournamentRecord
from evolution.host.store import round_over, tournament_begun, tournament_over
from evolution.text import escape, quoted
from evolution.tournament.formats import Knockout, Swiss
from evolution.tournament.manager import TournamentManager
from evolution.tournament.standings import Entrant, GameReport, Seat

log = Logger()



@dataclass(frozen=True)
class TournamentSettings:
    format: str = "knockout"
    smallest: int = 3
    largest: int = 8
    rounds: int = 5  # Swiss
    seed: int | None = None  # Swiss: the first round's shuffle

    def make_format(self) -> Knockout | Swiss:
        if self.format == "swiss":
            return Swiss(self.smallest, self.largest, self.rounds, self.seed)
        return Knockout(self.smallest, self.largest)

    def recorded(self) -> dict[str, Any]:
        data = {"players": f"{self.smallest}-{self.largest}"}
        if self.format == "swiss":
            data.update(rounds=self.rounds, seed=self.seed)
        return data


class TournamentRun:
    """One tournament of signed-up connections, from its first round to its winners."""

    def __init__(
        self, tournament_id: int, settings: TournamentSettings, connections: list, runner: GameRunner, writer: Any
    ) -> None:
        self.id = tournament_id
        self.settings = settings
        self.runner = runner
        self.writer = writer
        self.format = settings.make_format()
        self.entrants = [
            Entrant(number, connection.name, connection) for number, connection in enumerate(connections, start=1)
        ]
        self.manager = TournamentManager(self.format, self.entrants, self.referee, self)
        self.started_at = now()
        self.games_total = self.games_done = 0
        self.round_started = ""
        self.rounds: list[RoundRecord] = []  # the rounds over
        self.round_games: list[int] = []  # the games of the round under way that are over
        self.status = "running"
        self._watchers: list[Callable[[str, TournamentRun], None]] = []

    # -- the whole run ----------------------------------------------------------------

    def play(self) -> Deferred[TournamentRecord]:
        """Begin; fires with the stored form of the tournament once it is over."""
        self.writer.write(tournament_begun(self.record()))
        log.info(
            "tournament {id} ({kind}) begins with {count} players: {names}",
            id=self.id, kind=self.settings.format, count=len(self.entrants),
            names=", ".join(quoted(e.name) for e in self.entrants),
        )
        for entrant in self.entrants:
            entrant.handle.wait(lambda reason, entrant=entrant: self._failed_waiting(entrant, reason))
        self.tell("begin")
        return ensureDeferred(self.manager.run()).addCallback(lambda _: self._over())

    def stop(self) -> None:
        """The host is stopping: store the tournament as interrupted (its finished games are stored)."""
        if self.status == "running":
            self.status = "interrupted"
            self.manager.stop()
            self.writer.write(tournament_over(self.id, self.status, now(), self.entrant_records()))
            log.info("tournament {id} interrupted in round {round}: the host is stopping", id=self.id,
                     round=self.manager.round)

    def _over(self) -> TournamentRecord:
        if self.status == "running":
            self.status = "finished"
            self.writer.write(tournament_over(self.id, self.status, now(), self.entrant_records()))
            winners = self.manager.winners
            log.info(
                "tournament {id} is over after {rounds} rounds: {winners}; {failed} failed",
                id=self.id, rounds=self.manager.round,
                winners=("won by " + ", ".join(quoted(w.name) for w in winners)) if winners else "no winner",
                failed=sum(1 for e in self.entrants if e.failure),
            )
        for entrant in self.entrants:
            entrant.handle.close()
        self.tell("over")
        return self.record()

    # -- the referee ------------------------------------------------------------------

    def referee(self, round: int, game: list[Entrant]) -> Deferred[GameReport]:
        report: dict[str, GameReport] = {}

        def settled(outcome: GameOutcome) -> GameReport:
            self.games_done += 1
            self.round_games.append(outcome.record.id)
            self._progress(round)
            for entrant in game:
                if entrant.failure is None:
                    entrant.handle.wait(lambda reason, entrant=entrant: self._failed_waiting(entrant, reason))
                else:
                    entrant.handle.close()
            if "game" not in report:  # scoring failed while the game was stored (logged there)
                report["game"] = self.manager.settle(_report(outcome.record, game), round)
            return report["game"]

        def scored(record: GameRecord) -> GameRecord:
            report["game"] = self.manager.settle(_report(record, game), round)
            return self._annotate(record, report["game"], game)

        seating = Seating(self.id, round, scored, self.entrant_records)
        return self.runner.play([entrant.handle for entrant in game], seating).addCallback(settled)

    def _annotate(self, record: GameRecord, report: GameReport, game: list[Entrant]) -> GameRecord:
        """The tournament's view of each seat: which entrant, its points, its rating after the game."""
        seats = []
        for seat, entrant in zip(record.players, game):
            mu, sigma = self.format.rating(entrant)
            seats.append(replace(
                seat, entrant=entrant.number, points=report.points.get(entrant, 0), rating_mu=mu, rating_sigma=sigma
            ))
        return replace(record, players=tuple(seats))

    def _failed_waiting(self, entrant: Entrant, reason: str) -> None:
        """A player between games sent something or hung up: out for good."""
        if entrant.failure is None and entrant.active:
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
        self.games_total, self.games_done = len(games), 0
        self.round_started, self.round_games = now(), []
        players = sum(len(game) for game in games)
        log.info(
            "tournament {id} round {round} of {of}: {games} games, {players} players",
            id=self.id, round=round, of=self._rounds_text(), games=len(games), players=players,
        )
        self.tell("round")

    def round_over(self, round: int, reports: list[GameReport]) -> None:
        if self.status != "running":
            return
        summary = self._summary(round, reports)
        log.info("tournament {id} round {round}: {summary}", id=self.id, round=round, summary=summary)
        record = RoundRecord(round, self.round_started, now(), summary, tuple(self.round_games))
        self.rounds.append(record)
        self.writer.write(round_over(self.id, record, self.entrant_records()))
        for entrant in self.entrants:
            if entrant.out_round == round:
                entrant.handle.close()
        self.tell("round")

    def _rounds_text(self) -> str:
        expected = self.format.rounds_expected(len(self.entrants))
        return str(expected) if isinstance(self.format, Swiss) else f"about {expected}"

    def _progress(self, round: int) -> None:
        log.info(
            "tournament {id} round {round} of {of}: {done} of {total} games done, {running} running",
            id=self.id, round=round, of=self._rounds_text(), done=self.games_done, total=self.games_total,
            running=self.games_total - self.games_done,
        )
        self.tell("progress")

    def _summary(self, round: int, reports: list[GameReport]) -> str:
        playing = [seat.entrant for report in reports for seat in report.seats]
        failed = [e for e in playing if e.failure is not None and e.failed_round == round]
        text = f"{len(reports)} games, {len(playing)} players"
        if isinstance(self.format, Swiss):
            standings = self.format.standings(self.entrants)
            leader = standings[0][1] if standings and standings[0][0] else None
            if leader is not None:
                mu, sigma = self.format.rating(leader)
                text += f"; leader {quoted(leader.name)} with {leader.points} points (rating {mu:.1f} +- {sigma:.1f})"
        else:
            going_on = [e for e in playing if e.active]
            out = [e for e in playing if e.out_round == round]
            text += f"; {len(going_on)} go on, {len(out)} knocked out"
        if failed:
            text += f"; {len(failed)} failed: " + ", ".join(quoted(e.name) for e in failed)
        return text

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
        ranks = {id(entrant): rank for rank, entrant in self.format.standings(self.entrants)}
        records = []
        for entrant in self.entrants:
            mu, sigma = self.format.rating(entrant)
            records.append(EntrantRecord(
                entrant.number, entrant.name, ranks.get(id(entrant)), entrant.points, mu, sigma,
                entrant.winner, entrant.failure, entrant.failed_round,
            ))
        return records

    def record(self) -> TournamentRecord:
        """The tournament as it stands: entrants, the rounds over, and the round under way so far."""
        rounds = list(self.rounds)
        if self.status == "running" and self.manager.round > len(rounds):
            rounds.append(RoundRecord(self.manager.round, self.round_started, "", "under way", tuple(self.round_games)))
        return TournamentRecord(
            self.id, self.settings.format, self.status, self.started_at, None, self.settings.recorded(),
            tuple(self.entrant_records()), tuple(rounds),
        )


def _report(record: GameRecord, game: list[Entrant]) -> GameReport:
    """A stored game's seats as the tournament sees them: the entrant, its score or why it was removed."""
    return GameReport(
        [Seat(entrant, seat.score, seat.removed_reason) for seat, entrant in zip(record.players, game)],
        record.id,
    )
