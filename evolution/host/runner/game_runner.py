# -*- test-case-name: tests.net.test_remote_games, tests.net.test_adversaries, tests.host.runner.test_memory -*-
"""Running hosted games of any game: from a group of connections to a stored result.

Offers ``GameRunner``, the one game runner of the lobby, the tournaments, the
ladder and each worker (``GameRunner.in_host(settings, writer, clock)`` is the
host's), with ``Seating``, ``GameOutcome``, ``RunningGame`` and ``GameSettings``
(from ``evolution.host.runner.settings``):

- ``play(connections, seating=None)``: one game, in the turn order given;
  fires with a ``GameOutcome``, never fails, leaves the players still in
  connected; ``play_numbered(id, seed, ...)``: a game the host numbered;
- ``start_game(connections)``: the lobby's callback (greet, play, farewell,
  hang up); ``greet(connections)``, ``farewell(connection, won)``;
- ``remove(connection, reason)``: a player out of its game now (a ban);
- ``played_here(id)``, ``games_here()``; ``watch(callback)``; ``stop()``
  (the games still running recorded as aborted), ``stopped()``.

What a game goes through, and the runner's three roles (numbering, playing,
recording): docs/architecture.md, "The game runner".
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, Callable

from twisted.internet.defer import Deferred, DeferredList, ensureDeferred, maybeDeferred, succeed
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure

from evolution.games import Referee
from evolution.host.runner.recording import Numbering, Recording, StoreRecording
from evolution.host.runner.settings import GameSettings
from evolution.net.deadlines import Deadlines
from evolution.net.game_log import GameLog
from evolution.net.host_connection import CLOSED, HostProtocol
from evolution.net.remote_seat import CallSettings, RemoteSeat, ReplyTimes
from evolution.outcomes import GameResult
from evolution.store.records import GameRecord, seat_records
from evolution.text import escape, quoted

log = Logger()

RECENT_RECORDS = 1000
"""Records of finished games the runner keeps in memory (the web view shows the latest at once)."""


@dataclass(frozen=True)
class Seating:
    """A tournament game: which tournament, round and table, the seed the table is dealt from (None: the
    runner's next), how to score its seats before storing, and the tournament's standings once it is scored
    (stored with it)."""

    tournament_id: int
    round: int
    annotate: Callable[[GameRecord], GameRecord] = lambda record: record
    standings: Callable[[], list] = list
    table: int | None = None
    seed: int | None = None


@dataclass(frozen=True)
class GameOutcome:
    """A game that is over: its record (with its id) and its connections, seat k at index k - 1.

    ``failed_after``: how seat k failed what the dialect asked at the game's end (Fish's seed 004
    gameResult), at index k - 1, or None; empty when nothing was asked.
    """

    record: GameRecord
    connections: list[HostProtocol]
    failed_after: tuple[str | None, ...] = ()


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class RunningGame:
    """One hosted game in progress."""

    def __init__(
        self, runner: GameRunner, game_id: int, connections: list[HostProtocol], seed: int | None, seating: Seating | None
    ) -> None:
        self.runner = runner
        self.id = game_id
        self.connections = connections
        self.seed = seed
        self.seating = seating
        self.started_at = now()
        self.log = GameLog(runner.clock)
        dialect = runner.dialect
        self.proxies = [
            dialect.proxy(connection, connection.name, seat, runner.calls)
            for seat, connection in enumerate(connections, start=1)
        ]
        self.referee: Referee = runner.game.new_referee(self.proxies, runner.setup, seed, self._observe)
        for seat, (connection, proxy) in enumerate(zip(connections, self.proxies), start=1):
            connection.play(proxy)
            proxy.log = self.log.seat(seat)
            proxy.on_failure = lambda reason, proxy=proxy, seat=seat: self._failed(proxy, seat, reason)
        self._hung_up = 0
        self.over: Deferred[GameOutcome] = Deferred()

    @property
    def names(self) -> list[str]:
        return [proxy.name for proxy in self.proxies]

    def _failed(self, proxy: RemoteSeat, seat: int, reason: str) -> None:
        self.log.failed(seat, reason, self.referee.expel(proxy, reason))

    def _observe(self, event: str, referee: Referee) -> None:
        """Hang up on players as soon as the referee has removed them; tell the watchers."""
        removals = referee.removals
        while self._hung_up < len(removals):
            removal = removals[self._hung_up]
            self._hung_up += 1
            proxy = self.proxies[removal.id - 1]
            log.info(
                "game {game}: removed {name} in turn {turn} ({step}): {reason}",
                game=self.id,
                name=quoted(proxy.name),
                turn=removal.turn,
                step=removal.step,
                reason=escape(removal.reason),
            )
            self.runner.remove(self, removal.id - 1, removal.reason)
        self.runner.tell(event, self)

    def play(self) -> Deferred[GameResult]:
        return ensureDeferred(self.referee.play())

    def record(self, result: GameResult | None, outcome: str) -> GameRecord:
        seats = seat_records(self.names, result.ranking if result else (), self.referee.removals)
        return self.runner.game_record(self, self.referee.turn, outcome, seats)

    def game_over(self, result: GameResult | None) -> Deferred[tuple[str | None, ...]]:
        """What the dialect says to each player still in the game at its end; fires once it is said.

        It fires with each seat's failure in answering it, if the dialect asked anything (``failed_after``).
        """
        if result is None:
            return succeed(())
        dialect, send_scores = self.runner.dialect, self.runner.settings.send_scores
        failed_before = [proxy.failure for proxy in self.proxies]
        said = [
            maybeDeferred(dialect.game_over, self.proxies[entry.id - 1], result, entry.id, send_scores)
            for entry in result.ranking
        ]
        if not [d for d in said if not d.called]:
            return succeed(())

        def failures(_: Any) -> tuple[str | None, ...]:
            return tuple(None if before else proxy.failure for proxy, before in zip(self.proxies, failed_before))

        return DeferredList(said, consumeErrors=True).addCallback(failures)


class GameRunner:
    """Plays the games it is handed and stores their results."""

    pool: Any = None  # the worker processes that play some of its games (``evolution.host.runner.pooled_runner``), if any

    def __init__(
        self, settings: GameSettings, clock: IReactorTime, recording: Recording | None = None,
        numbering: Numbering | None = None,
    ) -> None:
        self.settings = settings
        self.game = settings.kind
        self.setup = settings.game_setup()
        self.dialect = settings.speaking()
        self.recorded = settings.recorded()
        self.clock = clock
        self.recording: Recording = recording if recording is not None else StoreRecording(None, settings)
        self.numbering = numbering
        self.games_begun = 0
        self.games_over = 0
        self.running: dict[int, Any] = {}  # RunningGame; a pooled runner's games in workers too (``played_here``)
        self.deadlines = Deadlines(clock)  # every call's time limit, in all games
        self.deadlines.replies = ReplyTimes()  # how long the answers took: the operator's figures
        self.calls = CallSettings(clock, settings.seconds(), self.deadlines, self.setup.limits())
        self.records: deque[GameRecord] = deque(maxlen=RECENT_RECORDS)  # the latest; the store has them all
        self._waiters: list[tuple[int, Deferred]] = []
        self._watchers: list[Callable[[str, RunningGame], None]] = []

    @classmethod
    def in_host(cls, settings: GameSettings, writer: Any, clock: IReactorTime, *args: Any) -> GameRunner:
        """The host's runner: its games numbered and recorded by the store writer (None: stored nowhere)."""
        setup = settings.game_setup()
        return cls(settings, clock, StoreRecording(writer, settings), Numbering(writer, setup, settings.seed), *args)

    def remove(self, connection: HostProtocol, reason: str) -> None:
        """``connection``'s player removed from the game it plays now, with ``reason`` (nothing if in none)."""
        if connection.proxy is not None:
            connection.proxy.fail(reason)

    # -- watching ---------------------------------------------------------------------

    def watch(self, callback: Callable[[str, RunningGame], None]) -> None:
        self._watchers.append(callback)

    def tell(self, event: str, game: RunningGame) -> None:
        for callback in list(self._watchers):
            try:
                callback(event, game)
            except Exception:
                log.failure("a watcher of game {game} failed on {event}", game=game.id, event=event)

    def when_games_over(self, count: int) -> Deferred[list[GameRecord]]:
        """Fires with the records (the latest ``RECENT_RECORDS``) once ``count`` games are over."""
        waiter: Deferred = Deferred()
        self._waiters.append((count, waiter))
        self._wake()
        return waiter

    def _wake(self) -> None:
        ready = [(count, d) for count, d in self._waiters if self.games_over >= count]
        for entry in ready:
            self._waiters.remove(entry)
            entry[1].callback(list(self.records))

    def played_here(self, game_id: int) -> RunningGame | None:
        """A running game played in this process (None: over, or played in a worker: ``evolution.host.runner.pooled_runner``)."""
        game = self.running.get(game_id)
        return game if isinstance(game, RunningGame) else None

    def games_here(self) -> list[RunningGame]:
        """The running games played in this process."""
        return [game for game in self.running.values() if isinstance(game, RunningGame)]

    # -- playing ----------------------------------------------------------------------

    def number(self, seating: Seating | None = None) -> tuple[int, int | None]:
        """The next game's id and seed (the host's numbering; a worker's games come numbered); a tournament's
        table is dealt from its own seed."""
        if self.numbering is None:
            raise RuntimeError("this runner plays games numbered elsewhere: play_numbered")
        game_id, seed = self.numbering.next()
        if seating is not None and seating.seed is not None:
            seed = seating.seed
        return game_id, seed

    def play(self, connections: list[HostProtocol], seating: Seating | None = None) -> Deferred[GameOutcome]:
        """Play a game with these players (in turn order); fires with its outcome, never fails."""
        return self.play_numbered(*self.number(seating), connections, seating)

    def play_numbered(
        self, game_id: int, seed: int | None, connections: list[HostProtocol], seating: Seating | None = None
    ) -> Deferred[GameOutcome]:
        """``play`` a game whose id and seed were given already."""
        game = RunningGame(self, game_id, connections, seed, seating)
        self.begun(game)
        game.play().addCallbacks(
            lambda result: self._over(game, result, "finished"), lambda failure: self._crashed(game, failure)
        )
        return game.over

    def begun(self, game: Any) -> None:
        """A game begins (here, or in a worker): it is running, logged and told."""
        self.running[game.id] = game
        self.games_begun += 1
        self.recording.begins(game)
        self.tell("begin", game)

    def game_record(self, game: Any, turns: int, outcome: str, seats: tuple) -> GameRecord:
        """The record of a game that is over (here, or in a worker that died), ending now."""
        seating = game.seating
        return GameRecord(
            game.started_at, now(), self.setup.deal(game.seed), game.seed, turns, outcome, seats, game.id,
            seating.tournament_id if seating else None, seating.round if seating else None, self.recorded,
            self.game.name, host=self.settings.host_name,
        )

    def remove(self, game: RunningGame, index: int, reason: str) -> None:
        """A player the referee removed: the dialect's word to it, then its removal recorded, then hang up.

        (In that order, so that a player that comes back at once finds its name free where it signs up.)
        """
        connection = game.connections[index]
        proxy = game.proxies[index]  # its game's log of it ends here: the host's hanging up is no failure of it
        proxy.log, proxy.on_failure = None, None
        self.say_removal(connection, reason)
        if connection.transport is not None:
            connection.transport.pauseProducing()  # nothing more is read from it
        self.recording.removed(game.id, index).addBoth(lambda _: connection.close())

    def say_removal(self, connection: HostProtocol, reason: str) -> None:
        """The dialect's word to a removed player (``--tell-removed``), if it has one."""
        notice = self.dialect.removal(reason, self.settings.tell_removed)
        if notice is not None:
            connection.sendMessage(notice)

    def seat(self, connection: HostProtocol) -> RemoteSeat:
        """A seat on ``connection`` outside any game (to greet it, or bid it farewell)."""
        seat = RemoteSeat.calling(connection, connection.name, self.calls)
        connection.play(seat)
        return seat

    def greet(self, connections: list[HostProtocol]) -> Deferred[list[str | None]]:
        """What the dialect says before the connections' first game; fires with each one's failure, or None.

        A connection that fails it is closed (the failure is logged); the others are left as they were.
        """
        if self.dialect.greeting is None:  # the dialect says nothing before a first game
            return succeed([None if connection.state != CLOSED else "disconnected" for connection in connections])
        seats = [self.seat(connection) if connection.state != CLOSED else None for connection in connections]
        said = [maybeDeferred(self.dialect.greeting, seat) if seat else succeed(None) for seat in seats]
        return DeferredList(said, consumeErrors=True).addCallback(self._greeted, connections, seats)

    def _greeted(self, results: list, connections: list[HostProtocol], seats: list) -> list[str | None]:
        failures = []
        for connection, seat, (ok, value) in zip(connections, seats, results):
            failure = "disconnected" if seat is None else seat.failure
            if failure is None and not ok:
                seat.fail(f"the host could not greet it: {value.getErrorMessage()}")
                failure = seat.failure
            if failure is not None:
                log.info("{name} is out before its first game: {reason}", name=quoted(connection.name),
                         reason=escape(failure))
            failures.append(failure)
        return failures

    def farewell(self, connection: HostProtocol, won: bool) -> Deferred[str | None]:
        """What the dialect says when the host is done with a connection still in; then hang up.

        Fires with the failure of the farewell (a player that does not answer it), or None.
        """
        if connection.state == CLOSED:
            return succeed(None)
        if self.dialect.farewell is None:  # the dialect says nothing at the end: just hang up
            connection.close()
            return succeed(None)
        seat = self.seat(connection)
        said = maybeDeferred(self.dialect.farewell, seat, won)

        def done(result: Any) -> str | None:
            connection.close()
            return seat.failure

        return said.addBoth(done)

    def start_game(
        self, connections: list[HostProtocol], numbered: tuple[int, int | None] | None = None
    ) -> Deferred[GameOutcome | None]:
        """The lobby's callback: greet, play a game with those still there, bid them farewell, hang up.

        ``numbered``: the game's id and seed, when they were given already (a worker's game).
        """
        return self.greet(connections).addCallback(self._play_greeted, connections, numbered)

    def _play_greeted(
        self, failures: list[str | None], connections: list[HostProtocol], numbered: tuple[int, int | None] | None
    ) -> Any:
        ready = [connection for connection, failure in zip(connections, failures) if failure is None]
        if len(ready) < self.game.min_players:
            log.info("no game: {count} of its players answered the greeting, {needed} are needed",
                     count=len(ready), needed=self.game.min_players)
            return DeferredList([self.farewell(connection, False) for connection in ready]).addCallback(lambda _: None)
        playing = self.play(ready) if numbered is None else self.play_numbered(*numbered, ready)
        return playing.addCallback(self._farewells)

    def _farewells(self, outcome: GameOutcome) -> Deferred[GameOutcome]:
        """The farewell to each player still in at the end; one removed, or failing after the game, hears nothing.

        (Those were hung up on already, but their connections may not have closed yet.)
        """
        failed_after = list(outcome.failed_after) + [None] * len(outcome.connections)
        farewells = [
            self.farewell(connection, seat.rank == 1)
            for connection, seat, failed in zip(outcome.connections, outcome.record.players, failed_after)
            if seat.rank is not None and failed is None
        ]
        return DeferredList(farewells).addCallback(lambda _: outcome)

    def _crashed(self, game: RunningGame, failure: Failure) -> None:
        log.failure("game {game} aborted by an error in the host", failure, game=game.id)
        self._over(game, None, f"aborted: {failure.getErrorMessage()}")

    def stop(self) -> Any:
        """The host is stopping: store every running game as aborted and hang up."""
        for game in self.games_here():
            self._over(game, None, "aborted: the host stopped")
            for connection in game.connections:
                connection.close()
        self.deadlines.stop()

    def ready(self) -> Deferred:
        """Fires once the runner can play games (at once, here; a pooled runner waits for its workers)."""
        return succeed(None)

    def stopped(self) -> Deferred:
        """Fires once ``stop`` has recorded every game (at once, here; a pooled runner waits for its workers)."""
        return succeed(None)

    def _over(self, game: RunningGame, result: GameResult | None, outcome: str) -> None:
        if self.running.pop(game.id, None) is None:  # already recorded (aborted when the host stopped)
            return
        for proxy in game.proxies:  # the game's log ends here: hanging up is no failure
            proxy.log, proxy.on_failure = None, None
            if proxy.failure is not None:  # failed after the referee's last safe point: hang up now
                proxy.close()
        record, kept = self._recorded(game, game.record(result, outcome), game.log.to_text())
        game.referee.observer = None  # the referee and the game no longer hold each other: refcounting frees them
        game.game_over(result).addCallback(lambda failed: self._once_kept(kept, game, record, failed))

    def _recorded(self, game: Any, record: GameRecord, log_text: str | bytes | None) -> tuple[GameRecord, Deferred]:
        """A game is over: scored for its tournament, recorded (with its tournament's standings), counted, told.

        With a Deferred that fires once the record is kept (``Recording.keep``).
        """
        record = self._annotated(game, record)
        if game.seating is not None and game.seating.table is not None:
            record = replace(record, table=game.seating.table)
        standings = game.seating.standings() if game.seating is not None else None
        kept = self.recording.keep(record, log_text, standings)
        self.games_over += 1
        self.records.append(record)
        self.tell("over", game)
        return record, kept

    def _once_kept(self, kept: Deferred, game: RunningGame, record: GameRecord, failed: tuple[str | None, ...]) -> None:
        """The game's outcome once its record is kept: a game a player saw end is a game the host holds.

        Until then what a player says waits for the connection's next owner (``hold``).
        """
        if not kept.called:
            for connection in game.connections:
                connection.hold()
        kept.addBoth(lambda _: self._settled(game, record, failed))

    def _settled(self, game: RunningGame, record: GameRecord, failed: tuple[str | None, ...]) -> None:
        for name, reason in zip(game.names, failed):
            if reason is not None:
                log.info("game {game}: {name} failed after the game: {reason}", game=game.id, name=quoted(name),
                         reason=escape(reason))
        game.over.callback(GameOutcome(record, game.connections, failed))
        self._wake()

    def _annotated(self, game: RunningGame, record: GameRecord) -> GameRecord:
        if game.seating is None:
            return record
        try:
            return game.seating.annotate(record)
        except Exception:
            log.failure("scoring game {game} for its tournament failed; stored without points", game=game.id)
            return record

