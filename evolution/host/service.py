"""``twistd evolution``: the host as a Twisted application service.

Offers ``Options`` (the command line, checked with sentences a user
understands) and ``makeService(options, reactor)``, a ``MultiService`` of the
results store, the listening endpoint (any endpoint string: ``tcp:45678``,
``tcp:45678:interface=127.0.0.1``, ``ssl:...``) and the lobby. With
``--games N`` the host stops the reactor once N games are over.
"""

from __future__ import annotations

from typing import Any, Callable

from twisted.application import service
from twisted.application.internet import StreamServerEndpointService
from twisted.internet import endpoints
from twisted.internet.error import CannotListenError
from twisted.logger import Logger
from twisted.python import usage

from evolution.host.games import GameRunner, GameSettings
from evolution.host.store import StoreError
from evolution.host.store_writer import StoreWriter
from evolution.wire.framing import DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH
from evolution.net.signup import SignupConfig, SignupFactory
from evolution.rules.dealer import MAX_PLAYERS, MIN_PLAYERS

log = Logger()


def parse_players(text: str) -> tuple[int, int]:
    """``MIN-MAX`` (or ``N``) within 3..8."""
    low_text, _, high_text = text.partition("-")
    try:
        low = int(low_text)
        high = int(high_text) if high_text else low
    except ValueError:
        raise usage.UsageError(f"--players takes MIN-MAX, such as 3-8, not {text!r}") from None
    if not MIN_PLAYERS <= low <= high <= MAX_PLAYERS:
        raise usage.UsageError(
            f"--players {text}: a game needs between {MIN_PLAYERS} and {MAX_PLAYERS} players, MIN <= MAX"
        )
    return low, high


def _positive_number(name: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise usage.UsageError(f"--{name} takes a number of seconds, not {text!r}") from None
    if not value > 0:
        raise usage.UsageError(f"--{name} must be more than 0 seconds")
    return value


def _positive_int(name: str, text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise usage.UsageError(f"--{name} takes a whole number, not {text!r}") from None
    if value < 1:
        raise usage.UsageError(f"--{name} must be at least 1")
    return value


class Options(usage.Options):
    synopsis = "[options]"
    longdesc = (
        "Host games of Evolution between bots that connect over TCP. Each client signs up "
        "with a JSON string (its name); a game starts when MAX players are waiting, or when "
        "at least MIN are and no one signed up for --signup-window seconds. Games run side "
        "by side; every finished game is stored in the SQLite database --db "
        "(list them with evolution-results). The message formats are in schemas/."
    )
    optParameters = [
        ["players", None, "3-8", "players per game, MIN-MAX within 3..8"],
        ["port", "p", "tcp:45678", "endpoint to listen on, e.g. tcp:45678:interface=127.0.0.1"],
        ["timeout", None, "1", "seconds a player has for each answer"],
        ["signup-timeout", None, "5", "seconds for a sign-up's first byte, and again for the rest"],
        ["signup-window", None, "10", "seconds without a new sign-up before a game of at least MIN starts"],
        ["games", None, None, "stop after this many games are over (default: run until stopped)"],
        ["seed", None, None, "seed of the first game's shuffle; game k uses SEED+k-1 (default: random, recorded)"],
        ["deck", None, "shuffled", "shuffled (each game with a recorded seed) or sorted (the course's deck)"],
        ["db", None, "evolution.sqlite", "the SQLite results database (created if missing)"],
        ["max-message", None, str(DEFAULT_MAX_BYTES), "largest message a client may send, in bytes"],
        ["max-depth", None, str(DEFAULT_MAX_DEPTH), "deepest nesting a client's message may have"],
    ]
    optFlags = [
        ["send-scores", None, "send the final score message [[id, score], ...] before closing"],
        ["parallel-choose", None, "ask choose of every player at once (default: one at a time, as the course server)"],
    ]

    def postOptions(self) -> None:
        self["min_players"], self["max_players"] = parse_players(self["players"])
        for name in ("timeout", "signup-timeout", "signup-window"):
            self[name] = _positive_number(name, self[name])
        for name in ("max-message", "max-depth"):
            self[name] = _positive_int(name, self[name])
        if self["games"] is not None:
            self["games"] = _positive_int("games", self["games"])
        if self["seed"] is not None:
            try:
                self["seed"] = int(self["seed"])
            except ValueError:
                raise usage.UsageError(f"--seed takes a whole number, not {self['seed']!r}") from None
        if self["deck"] not in ("shuffled", "sorted"):
            raise usage.UsageError(f"--deck takes shuffled or sorted, not {self['deck']!r}")
        if self["deck"] == "sorted" and self["seed"] is not None:
            raise usage.UsageError("--seed shuffles the deck; it cannot go with --deck sorted")
        try:
            endpoints.serverFromString(None, self["port"])  # parsed only; nothing listens yet
        except (ValueError, TypeError) as error:
            raise usage.UsageError(
                f"--port {self['port']!r} is not an endpoint such as tcp:45678 ({error})"
            ) from None


class ListeningService(StreamServerEndpointService):
    """Listens on the endpoint; a port that cannot be had stops twistd with one sentence."""

    def __init__(self, endpoint: Any, factory: SignupFactory, description: str) -> None:
        super().__init__(endpoint, factory)
        self.description = description
        self._raiseSynchronously = True  # a failure to listen raises at start-up, as strports does

    def privilegedStartService(self) -> None:
        try:
            super().privilegedStartService()
        except CannotListenError as error:
            raise SystemExit(f"twistd evolution: cannot listen on {self.description}: {error.socketError}") from None


class StoreService(service.Service):
    """Opens the results store's writer when the application is built; at the end waits for its writes."""

    def __init__(self, path: str, reactor: Any) -> None:
        self.writer = StoreWriter(path, reactor)

    def open(self) -> StoreWriter:
        if self.writer.store is None:
            self.writer.open()
            for tournament in self.writer.interrupted:
                log.warn("tournament {id} was left running by a host that stopped; marked interrupted", id=tournament)
        return self.writer

    def stopService(self) -> Any:
        super().stopService()
        if self.writer.store is not None:
            return self.writer.close()
        return None


class LobbyService(service.Service):
    """When the application stops: closes the lobby, records running games as aborted."""

    def __init__(self, factory: SignupFactory, runner: GameRunner) -> None:
        self.factory = factory
        self.runner = runner

    def stopService(self) -> None:
        super().stopService()
        self.factory.stop()
        self.runner.stop()


def build_host(
    options: Options, writer: StoreWriter, clock: Any, stop: Callable[[], None] | None = None
) -> tuple[SignupFactory, GameRunner]:
    """The sign-up factory and the game runner for these options (not yet listening).

    ``stop`` is called once ``--games`` games are over.
    """

    settings = GameSettings(
        options["timeout"], options["deck"], options["seed"], options["send-scores"], options["parallel-choose"]
    )
    runner = GameRunner(settings, writer, clock)
    if options["games"] is not None and stop is not None:
        runner.when_games_over(options["games"]).addCallback(lambda records: _all_over(len(records), stop))
    config = SignupConfig(
        options["min_players"],
        options["max_players"],
        options["signup-timeout"],
        options["signup-window"],
        options["games"],
        options["max-message"],
        options["max-depth"],
    )
    return SignupFactory(config, runner.start_game, clock), runner


def _all_over(count: int, stop: Callable[[], None]) -> None:
    log.info("{count} games are over; stopping", count=count)
    stop()


def makeService(options: Options, reactor: Any = None) -> service.MultiService:
    if reactor is None:
        from twisted.internet import reactor
    top = service.MultiService()
    store_service = StoreService(options["db"], reactor)
    try:
        writer = store_service.open()
    except StoreError as error:
        raise usage.UsageError(str(error)) from None
    store_service.setServiceParent(top)
    factory, runner = build_host(options, writer, reactor, lambda: reactor.callLater(0, reactor.stop))
    LobbyService(factory, runner).setServiceParent(top)
    endpoint = endpoints.serverFromString(reactor, options["port"])
    ListeningService(endpoint, factory, options["port"]).setServiceParent(top)
    return top
