"""Running hosted games: from a full lobby to a stored result.

Offers ``GameSettings`` and ``GameRunner``. ``GameRunner.start_game(connections)``
(the sign-up factory's callback) makes a ``ProxyPlayer`` per connection, deals
a deck (shuffled with a recorded seed, or sorted), plays the dealer's coroutine
on the reactor, and when the game ends records it in the results store, logs
the ranking, optionally sends the score message, and closes every connection.
A player the dealer removes is hung up on at once. ``stop()`` records the
games still running as aborted, so nothing is lost when the host stops.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from datetime import datetime, timezone

from twisted.internet.defer import Deferred, ensureDeferred
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure

from evolution.host.store import GameRecord, ResultsStore, seat_records
from evolution.net.proxy_player import ProxyPlayer
from evolution.net.signup import HostProtocol
from evolution.rules.cards import Deck
from evolution.rules.dealer import Dealer
from evolution.rules.results import GameResult
from evolution.text import escape
from evolution.wire.codec import score_to_json

log = Logger()


@dataclass(frozen=True)
class GameSettings:
    timeout: float = 1.0
    deck: str = "shuffled"  # or "sorted"
    seed: int | None = None  # first game's seed; later games count up from it
    send_scores: bool = False


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class _Game:
    """One hosted game in progress."""

    def __init__(self, runner: GameRunner, connections: list[HostProtocol], seed: int | None) -> None:
        self.runner = runner
        self.connections = connections
        self.seed = seed
        self.started_at = _now()
        settings = runner.settings
        self.proxies = [
            ProxyPlayer(connection, connection.name, runner.clock, settings.timeout) for connection in connections
        ]
        for connection, proxy in zip(connections, self.proxies):
            connection.proxy = proxy
        deck = Deck.sorted() if seed is None else Deck.shuffled(seed)
        self.dealer = Dealer.new_game(self.proxies, deck, observer=self._observe)
        for proxy in self.proxies:
            proxy.on_failure = lambda reason, proxy=proxy: self.dealer.expel(proxy, reason)
        self._hung_up = 0

    def _observe(self, event: str, dealer: Dealer) -> None:
        """Hang up on players as soon as the dealer has removed them."""
        removals = dealer.removals
        while self._hung_up < len(removals):
            removal = removals[self._hung_up]
            self._hung_up += 1
            proxy = self.proxies[removal.id - 1]
            log.info(
                "game {game}: removed {name!r} in turn {turn} ({step}): {reason}",
                game=self.runner.label(self),
                name=proxy.name,
                turn=removal.turn,
                step=removal.step,
                reason=escape(removal.reason),
            )
            proxy.close()

    def play(self) -> Deferred[GameResult]:
        return ensureDeferred(self.dealer.play())

    def record(self, result: GameResult | None, outcome: str) -> GameRecord:
        names = [proxy.name for proxy in self.proxies]
        seats = seat_records(names, result.ranking if result else (), self.dealer.removals)
        return GameRecord(
            self.started_at,
            _now(),
            "sorted" if self.seed is None else "shuffled",
            self.seed,
            self.dealer.turn,
            outcome,
            seats,
        )

    def hang_up(self, result: GameResult | None) -> None:
        if result is not None and self.runner.settings.send_scores and result.ranking:
            message = score_to_json(result.ranking)
            for entry in result.ranking:
                self.connections[entry.id - 1].sendMessage(message)
        for connection in self.connections:
            connection.close()


class GameRunner:
    """Plays every game the lobby fills, and stores the results."""

    def __init__(
        self,
        settings: GameSettings,
        store: ResultsStore,
        clock: IReactorTime,
    ) -> None:
        self.settings = settings
        self.store = store
        self.clock = clock
        self.games_begun = 0
        self.games_over = 0
        self.running: dict[_Game, int] = {}
        self.records: list[GameRecord] = []
        self._waiters: list[tuple[int, Deferred]] = []

    def when_games_over(self, count: int) -> Deferred[list[GameRecord]]:
        """Fires with the records once ``count`` games are over."""
        waiter: Deferred = Deferred()
        self._waiters.append((count, waiter))
        self._wake()
        return waiter

    def _wake(self) -> None:
        ready = [(count, d) for count, d in self._waiters if self.games_over >= count]
        for entry in ready:
            self._waiters.remove(entry)
            entry[1].callback(list(self.records))

    def label(self, game: _Game) -> int:
        return self.running.get(game, 0)

    def _next_seed(self) -> int | None:
        if self.settings.deck == "sorted":
            return None
        if self.settings.seed is None:
            return random.randrange(2**31)
        return self.settings.seed + self.games_begun - 1

    def start_game(self, connections: list[HostProtocol]) -> Deferred:
        """Begin a game with these players (already in turn order)."""
        self.games_begun += 1
        game = _Game(self, connections, self._next_seed())
        self.running[game] = self.games_begun
        log.info(
            "game {game} begins: {players} ({deck})",
            game=self.games_begun,
            players=", ".join(repr(proxy.name) for proxy in game.proxies),
            deck="sorted deck" if game.seed is None else f"seed {game.seed}",
        )
        done = game.play()
        done.addCallbacks(lambda result: self._over(game, result, "finished"), lambda f: self._crashed(game, f))
        return done

    def _crashed(self, game: _Game, failure: Failure) -> None:
        log.failure("game {game} aborted by an error in the host", failure, game=self.label(game))
        self._over(game, None, f"aborted: {failure.getErrorMessage()}")

    def stop(self) -> None:
        """The host is stopping: store every running game as aborted and hang up."""
        for game in list(self.running):
            self._over(game, None, "aborted: the host stopped")

    def _over(self, game: _Game, result: GameResult | None, outcome: str) -> GameRecord | None:
        number = self.running.pop(game, None)
        if number is None:  # already recorded (aborted when the host stopped)
            return None
        record = game.record(result, outcome)
        game_id = self.store.record(record)
        record = dataclasses.replace(record, id=game_id)
        ranking = "; ".join(
            f"{p.rank}. {p.name!r} {p.score}" for p in sorted(record.players, key=lambda p: p.rank or 99) if p.rank
        )
        log.info(
            "game {game} {outcome} after {turns} turns (stored as #{id}): {ranking}",
            game=number,
            outcome=outcome,
            turns=record.turns,
            id=game_id,
            ranking=ranking or "nobody left",
        )
        game.hang_up(result)
        self.games_over += 1
        self.records.append(record)
        self._wake()
        return record
