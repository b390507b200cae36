"""Running hosted games: from a group of connections to a stored result.

Offers ``GameSettings``, ``Seating``, ``GameOutcome``, ``RunningGame`` and
``GameRunner``, the one game runner that the lobby and the tournament
manager both use:

- ``GameRunner.play(connections, seating=None)`` makes a ``ProxyPlayer`` per
  connection (in the order given, which is the turn order), deals a deck
  (shuffled with a recorded seed, or sorted), plays the dealer's coroutine on
  the reactor and records every message in the game's log. A player the
  dealer removes is hung up on at once. When the game ends it sends the score
  message if asked to, hands the record and the log to the store writer and
  fires with a ``GameOutcome``; it never fails, and it leaves the remaining
  players' connections open for the caller (a tournament plays on with them);
- ``GameRunner.start_game(connections)`` is the lobby's callback: ``play``,
  then hang up on everyone;
- ``watch(callback)``: ``callback(event, game)`` for "begin", each step of
  the dealer, and "over" (the web view follows games this way);
- ``stop()`` records the games still running as aborted, so nothing is lost
  when the host stops.

A game counts as over, its players are hung up and the next game may start
whether or not the database took the record at once: the store writer keeps
it until it does (``evolution.host.store_writer``).
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable

from twisted.internet.defer import Deferred, ensureDeferred
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure

from evolution.host.records import GameRecord, seat_records
from evolution.host.store import game_operation
from evolution.net.deadlines import Deadlines
from evolution.net.game_log import GameLog
from evolution.net.proxy_player import ProxyPlayer
from evolution.net.signup import HostProtocol
from evolution.rules.cards import Deck
from evolution.rules.dealer import Dealer
from evolution.rules.results import GameResult
from evolution.text import escape, quoted
from evolution.wire.codec import score_to_json
from evolution.wire.dialects import SEED000, Dialect

log = Logger()

RECENT_RECORDS = 1000
"""Records of finished games the runner keeps in memory (the web view shows the latest at once)."""


@dataclass(frozen=True)
class GameSettings:
    timeout: float = 1.0
    deck: str = "shuffled"  # or "sorted"
    seed: int | None = None  # first game's seed; later games count up from it
    send_scores: bool = False
    parallel_choose: bool = False
    dialect: Dialect = SEED000
    tell_removed: bool = False  # send ["removed", reason] before hanging up on a removed player

    def recorded(self) -> dict[str, Any]:
        """What a stored game keeps of the settings it was played with."""
        return {"timeout": self.timeout, "parallel_choose": self.parallel_choose, "dialect": self.dialect.name}


@dataclass(frozen=True)
class Seating:
    """A tournament game: which tournament and round, how to score its seats before storing, and the
    tournament's standings once it is scored (stored with it)."""

    tournament_id: int
    round: int
    annotate: Callable[[GameRecord], GameRecord] = lambda record: record
    standings: Callable[[], list] = list


@dataclass(frozen=True)
class GameOutcome:
    """A game that is over: its record (with its id) and its connections, seat k at index k - 1."""

    record: GameRecord
    connections: list[HostProtocol]


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
        settings = runner.settings
        self.log = GameLog(runner.clock)
        self.proxies = [
            ProxyPlayer(
                connection, connection.name, runner.clock, settings.timeout, settings.dialect, seat, runner.deadlines
            )
            for seat, connection in enumerate(connections, start=1)
        ]
        deck = Deck.sorted() if seed is None else Deck.shuffled(seed)
        self.dealer = Dealer.new_game(self.proxies, deck, self._observe, settings.parallel_choose)
        for seat, (connection, proxy) in enumerate(zip(connections, self.proxies), start=1):
            connection.play(proxy)
            proxy.log = self.log.seat(seat)
            proxy.on_failure = lambda reason, proxy=proxy, seat=seat: self._failed(proxy, seat, reason)
        self._hung_up = 0
        self.over: Deferred[GameOutcome] = Deferred()

    @property
    def names(self) -> list[str]:
        return [proxy.name for proxy in self.proxies]

    def _failed(self, proxy: ProxyPlayer, seat: int, reason: str) -> None:
        self.log.failed(seat, reason, self.dealer.expel(proxy, reason))

    def _observe(self, event: str, dealer: Dealer) -> None:
        """Hang up on players as soon as the dealer has removed them; tell the watchers."""
        removals = dealer.removals
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
            self.runner.hang_up(self.connections[removal.id - 1], removal.reason)
        self.runner.tell(event, self)

    def play(self) -> Deferred[GameResult]:
        return ensureDeferred(self.dealer.play())

    def record(self, result: GameResult | None, outcome: str) -> GameRecord:
        seats = seat_records(self.names, result.ranking if result else (), self.dealer.removals)
        seating = self.seating
        return GameRecord(
            self.started_at,
            now(),
            "sorted" if self.seed is None else "shuffled",
            self.seed,
            self.dealer.turn,
            outcome,
            seats,
            self.id,
            seating.tournament_id if seating else None,
            seating.round if seating else None,
            self.runner.settings.recorded(),
        )

    def send_scores(self, result: GameResult | None) -> None:
        settings = self.runner.settings
        if result is not None and (settings.send_scores or settings.dialect.always_scores) and result.ranking:
            message = score_to_json(result.ranking)
            for entry in result.ranking:
                self.connections[entry.id - 1].sendMessage(message)


class GameRunner:
    """Plays the games it is handed and stores their results."""

    def __init__(self, settings: GameSettings, writer: Any, clock: IReactorTime) -> None:
        self.settings = settings
        self.writer = writer
        self.clock = clock
        self.games_begun = 0
        self.games_over = 0
        self.running: dict[int, RunningGame] = {}
        self.deadlines = Deadlines(clock)  # every call's time limit, in all games
        self.records: deque[GameRecord] = deque(maxlen=RECENT_RECORDS)  # the latest; the store has them all
        self._waiters: list[tuple[int, Deferred]] = []
        self._watchers: list[Callable[[str, RunningGame], None]] = []

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

    # -- playing ----------------------------------------------------------------------

    def _next_seed(self) -> int | None:
        if self.settings.deck == "sorted":
            return None
        if self.settings.seed is None:
            return random.randrange(2**31)
        return self.settings.seed + self.games_begun - 1

    def play(self, connections: list[HostProtocol], seating: Seating | None = None) -> Deferred[GameOutcome]:
        """Play a game with these players (in turn order); fires with its outcome, never fails."""
        self.games_begun += 1
        game = RunningGame(self, self.writer.new_game_id(), connections, self._next_seed(), seating)
        self.running[game.id] = game
        log.info(
            "game {game} begins: {players} ({deck})",
            game=game.id,
            players=", ".join(map(quoted, game.names)),
            deck="sorted deck" if game.seed is None else f"seed {game.seed}",
        )
        self.tell("begin", game)
        game.play().addCallbacks(
            lambda result: self._over(game, result, "finished"), lambda failure: self._crashed(game, failure)
        )
        return game.over

    def hang_up(self, connection: HostProtocol, reason: str) -> None:
        """Close a removed player's connection; with ``tell_removed``, say why first."""
        if self.settings.tell_removed:
            connection.sendMessage(["removed", reason])
        connection.close()

    def start_game(self, connections: list[HostProtocol]) -> Deferred[GameOutcome]:
        """The lobby's callback: play a game, then hang up on everyone."""
        return self.play(connections).addCallback(_hang_up)

    def _crashed(self, game: RunningGame, failure: Failure) -> None:
        log.failure("game {game} aborted by an error in the host", failure, game=game.id)
        self._over(game, None, f"aborted: {failure.getErrorMessage()}")

    def stop(self) -> None:
        """The host is stopping: store every running game as aborted and hang up."""
        for game in list(self.running.values()):
            self._over(game, None, "aborted: the host stopped")
            for connection in game.connections:
                connection.close()
        self.deadlines.stop()

    def _over(self, game: RunningGame, result: GameResult | None, outcome: str) -> None:
        if self.running.pop(game.id, None) is None:  # already recorded (aborted when the host stopped)
            return
        for proxy in game.proxies:  # the game's log ends here: hanging up is no failure
            proxy.log, proxy.on_failure = None, None
        record = self._annotated(game, game.record(result, outcome))
        if self.writer is not None:
            standings = game.seating.standings() if game.seating is not None else None
            self.writer.write(game_operation(record, game.log.to_text(), standings))
        ranking = "; ".join(
            f"{p.rank}. {quoted(p.name)} {p.score}"
            for p in sorted(record.players, key=lambda p: p.rank or 99)
            if p.rank
        )
        log.info(
            "game {game} {outcome} after {turns} turns: {ranking}",
            game=game.id,
            outcome=escape(outcome),
            turns=record.turns,
            ranking=ranking or "nobody left",
        )
        game.send_scores(result)
        self.games_over += 1
        self.records.append(record)
        self.tell("over", game)
        game.dealer.observer = None  # the dealer and the game no longer hold each other: refcounting frees them
        game.over.callback(GameOutcome(record, game.connections))
        self._wake()

    def _annotated(self, game: RunningGame, record: GameRecord) -> GameRecord:
        if game.seating is None:
            return record
        try:
            return game.seating.annotate(record)
        except Exception:
            log.failure("scoring game {game} for its tournament failed; stored without points", game=game.id)
            return record


def _hang_up(outcome: GameOutcome) -> GameOutcome:
    for connection in outcome.connections:
        connection.close()
    return outcome
