"""``twistd evolution --tournament ...``: tournaments one after another, each from sign-up to winners.

Offers ``TournamentService``, the application service of tournament mode.
It owns the lobby's policy (``SignupPeriods``, ``evolution.net.lobbies``):
when the host starts, sign-up opens (a tournament that begins before the
worker processes are up has its first games wait for them); when enough players have signed up, a
``TournamentRun`` (``evolution.host.modes.tournament_run``) plays the tournament with
them; when too few signed up in every period, every waiting client is closed
and an empty tournament is stored. After ``count`` tournaments the host
stops (``stop``); otherwise sign-up opens again. While a tournament runs,
sign-ups are answered "game full". When the host is stopped, the running
tournament is stored as interrupted.
"""

from __future__ import annotations

from typing import Any, Callable

from twisted.application import service
from twisted.internet.defer import Deferred
from twisted.logger import Logger

from evolution.host.modes.resumption import StoredTournament
from evolution.host.modes.returns import Returns
from evolution.host.modes.tournament_run import TournamentRun, TournamentSettings
from evolution.host.runner.game_runner import GameRunner, now
from evolution.net.lobbies import SignupPeriods
from evolution.store.operations import tournament_begun
from evolution.store.records import EntrantRecord, TournamentRecord
from evolution.text import plural, quoted

log = Logger()


class TournamentService(service.Service):
    """Runs ``count`` tournaments, one after another."""

    def __init__(
        self,
        settings: TournamentSettings,
        signup: dict[str, Any],
        runner: GameRunner,
        writer: Any,
        count: int = 1,
        stop: Callable[[], None] | None = None,
        resume: StoredTournament | None = None,
    ) -> None:
        self.settings = settings
        self.runner = runner
        self.writer = writer
        self.count = count
        self.stop = stop
        self.resume = resume
        self.window = signup["window"] * signup["periods"]  # how long a lost entrant has to come back
        self.periods = SignupPeriods(
            signup["window"], signup["periods"], signup["minimum"], signup["maximum"], self.begin, self.give_up
        )
        self.policy = TournamentPolicy(self)
        self.owner_of: Callable[[Any], str | None] | None = None  # --accounts: tables keep an owner's bots apart
        self.current: TournamentRun | None = None
        self.runs: list[TournamentRun] = []
        self.done = 0
        self._waiters: list[tuple[int, Deferred]] = []
        self._watchers: list[Callable[[int], None]] = []

    def startService(self) -> None:
        super().startService()
        if self.resume is not None:
            stored, self.resume = self.resume, None
            run = TournamentRun(stored.record.id, self.settings, [], self.runner, self.writer, self._returns(), stored,
                                self.owner_of)
            self._run(run, run.resume())
        else:
            self.periods.open()

    def stopService(self) -> None:
        super().stopService()
        self.periods.stop()
        if self.current is not None:
            self.current.stop()

    def begin(self, players: list) -> None:
        run = TournamentRun(self.writer.new_tournament_id(), self.settings.seeded(), players, self.runner, self.writer,
                            self._returns(), owner_of=self.owner_of)
        self._run(run, run.play())

    def _returns(self) -> Returns:
        return Returns(self.runner.clock, self.window)

    def _run(self, run: TournamentRun, playing: Deferred) -> None:
        self.current = run
        self.runs = self.runs[-9:] + [run]
        run.watch(lambda event, run: self._tell(run.id))
        playing.addBoth(lambda result: self._finished())

    def give_up(self, players: list) -> None:
        """Too few signed up in every period: close them, store an empty tournament."""
        tournament_id = self.writer.new_tournament_id()
        log.error(
            "tournament {id}: only {count} signed up, {needed} needed; no tournament (empty): {names}",
            id=tournament_id, count=len(players), needed=self.periods.minimum,
            names=", ".join(quoted(connection.name) for connection in players) or "nobody",
        )
        entrants = tuple(EntrantRecord(k, connection.name) for k, connection in enumerate(players, start=1))
        started = now()
        record = TournamentRecord(
            tournament_id, self.settings.format, "empty", started, started, self.settings.recorded(), entrants,
            game=self.runner.game.name, host=self.runner.settings.host_name,
        )
        self.writer.write(tournament_begun(record))
        for connection in players:
            connection.close()
        self._finished()

    def _finished(self) -> None:
        if self.current is not None:
            self.current.returns.stop()
        self.current = None
        self.done += 1
        for entry in [entry for entry in self._waiters if self.done >= entry[0]]:
            self._waiters.remove(entry)
            entry[1].callback(self.done)
        if self.done >= self.count:
            verb = "is" if self.done == 1 else "are"
            log.info("{tournaments} {verb} over; stopping", tournaments=plural(self.done, "tournament"), verb=verb)
            if self.stop is not None and self.running:
                self.stop()
        elif self.running:
            self.periods.open()

    def in_progress(self) -> list[TournamentRecord]:
        """The tournaments in progress, as they stand now."""
        return [run.record() for run in self.runs if run.status == "running"]

    def watch(self, callback: Callable[[int], None]) -> None:
        """``callback(tournament_id)`` after each change: begun, a game over, a round over, over."""
        self._watchers.append(callback)

    def _tell(self, tournament_id: int) -> None:
        for callback in list(self._watchers):
            try:
                callback(tournament_id)
            except Exception:
                log.failure("a watcher of tournament {id} failed", id=tournament_id)

    def when_over(self, count: int = 1) -> Deferred[int]:
        """Fires once ``count`` tournaments are over (finished or empty)."""
        waiter: Deferred = Deferred()
        if self.done >= count:
            waiter.callback(self.done)
        else:
            self._waiters.append((count, waiter))
        return waiter


class TournamentPolicy:
    """The lobby's policy in tournament mode: sign-up periods between tournaments; while one runs, only its
    entrants whose connections the host lost may sign up again, each taking its place back
    (``Comebacks.claim``); everyone else is answered "game full"."""

    def __init__(self, service: TournamentService) -> None:
        self.service = service
        self.periods = service.periods

    def attach(self, factory: Any) -> None:
        self.factory = factory
        self.periods.attach(factory)

    def accepting(self) -> bool:
        run = self.service.current
        return self.periods.accepting() or (run is not None and run.comebacks.awaiting())

    def claim(self, name: str) -> str | None:
        if self.periods.accepting():
            return name
        run = self.service.current
        return run.comebacks.claim(name) if run is not None else None

    def joined(self) -> None:
        if self.periods.accepting():
            self.periods.joined()
            return
        for connection in self.factory.take_lobby():
            run = self.service.current
            if run is not None:
                run.comebacks.returned(connection)
            else:
                connection.close()

    def left(self) -> None:
        self.periods.left()

    def names_held(self) -> set[str]:
        run = self.service.current
        return self.periods.names_held() | (run.comebacks.names_held() if run is not None else set())

    def status(self) -> dict[str, Any]:
        status = self.periods.status()
        run = self.service.current
        if run is not None and run.comebacks.awaiting():
            status["awaited"] = sorted(run.returns.awaited)
        return status

    def stop(self) -> None:
        self.periods.stop()
