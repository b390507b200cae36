"""``twistd evolution``: the host as a Twisted application service.

Offers ``makeService(options, reactor)``, a ``MultiService`` of the results
store, the listening endpoint (any endpoint string: ``tcp:45678``,
``tcp:45678:interface=127.0.0.1``, ``ssl:...``; a listen backlog of 1024
unless the string sets one) and the lobby, and ``build_host`` (the sign-up
factory and game runner alone, for tests). The command line is
``evolution.host.options`` (re-exported here).

Start-up problems are one line, never a traceback: a results database that
cannot be opened ends ``makeService`` with status 1; a port that cannot be
had ends the start with status 1 (``ListeningService``). With ``--games N``
the host stops the reactor once N games are over; when it is stopped first
(SIGTERM), the running games are stored as aborted and nothing else happens.
"""

from __future__ import annotations

import gc
import sys
from typing import Any, Callable, NamedTuple

from twisted.application import service
from twisted.application.internet import StreamServerEndpointService
from twisted.internet.error import CannotListenError, ReactorNotRunning
from twisted.logger import Logger

from evolution.host.games import GameRunner, GameSettings
from evolution.host.options import STARTUP_STATUS, Options, StartupError, TwistdOptions, fail
from evolution.host.store import StoreError
from evolution.host.store_writer import StoreWriter
from evolution.net.endpoints import server_endpoint
from evolution.host.tournament_service import TournamentService
from evolution.host.tournaments import TournamentSettings
from evolution.net.lag import LagProbe
from evolution.net.lobbies import GameLobby
from evolution.net.signup import SignupConfig, SignupFactory
from evolution.wire.dialects import DIALECTS

__all__ = ["Options", "TwistdOptions", "StartupError", "makeService", "build_host"]

log = Logger()
SPARE_FILES = 64  # open files besides the connections: the store, logs, listening sockets
GC_YOUNG = 10_000  # allocations between young collections (settle_memory)


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
            self._cannot_listen(error.socketError)
        except OSError as error:  # e.g. the folder of a unix: socket does not exist
            self._cannot_listen(error.strerror or error)

    def _cannot_listen(self, why: object) -> None:
        message = f"twistd evolution: cannot listen on {self.description}: {why}"
        if sys.__stderr__ is not None and sys.stderr is not sys.__stderr__:  # twistd sends stderr to the log
            print(message, file=sys.__stderr__, flush=True)
        raise SystemExit(message) from None


class StoreService(service.Service):
    """When the application stops, waits for the store writer's writes and closes the database."""

    def __init__(self, writer: StoreWriter) -> None:
        self.writer = writer

    def stopService(self) -> Any:
        super().stopService()
        return self.writer.close()


class LobbyService(service.Service):
    """Stops the host after ``--games`` games; when stopped, closes the lobby and stores running games."""

    def __init__(self, factory: SignupFactory, runner: GameRunner, stop: Callable[[], None]) -> None:
        self.factory = factory
        self.runner = runner
        self.stop = stop

    def stop_after(self, games: int) -> None:
        self.runner.when_games_over(games).addCallback(lambda records: self._all_over(len(records)))

    def _all_over(self, count: int) -> None:
        if self.running:  # not when the host is stopping already and has just aborted the last game
            log.info("{count} games are over; stopping", count=count)
            self.stop()

    def stopService(self) -> None:
        super().stopService()
        self.factory.stop()
        self.runner.stop()


class Host(NamedTuple):
    """The parts of a host that are not services of their own: sign-up, games, tournaments (or None)."""

    factory: SignupFactory
    runner: GameRunner
    tournaments: TournamentService | None


def build_host(options: Options, writer: StoreWriter, clock: Any, stop: Callable[[], None] | None = None) -> Host:
    """The sign-up factory, game runner and (with ``--tournament``) tournament service, not yet listening."""
    dialect = DIALECTS[options["dialect"]]
    settings = GameSettings(
        options["timeout"], options["deck"], options["seed"], options["send-scores"], options["parallel-choose"],
        dialect, options["tell-removed"],
    )
    runner = GameRunner(settings, writer, clock)
    config = SignupConfig(
        min_players=options["min_players"],
        max_players=options["max_players"],
        signup_timeout=options["signup-timeout"],
        window=options["signup-window"],
        max_games=options["games"],
        max_bytes=options["max-message"],
        max_depth=options["max-depth"],
        max_connections=options["max-connections"],
        number_grace=options["number-grace"],
        signup_reply=dialect.signup_ok,
    )
    tournaments = None
    policy: Any = GameLobby(runner.start_game, LagProbe(clock))
    if options["tournament"] is not None:
        tournaments = TournamentService(
            TournamentSettings(
                options["tournament"], options["min_players"], options["max_players"], options["rounds"] or 0,
                options["seed"],
            ),
            {
                "window": options["signup-window"],
                "periods": options["signup-periods"],
                "minimum": options["min-signups"],
                "maximum": options["max-signups"],
            },
            runner,
            writer,
            options["tournaments"],
            stop,
        )
        policy = tournaments.policy
    return Host(SignupFactory(config, policy, clock), runner, tournaments)


def open_store(path: str, reactor: Any) -> StoreWriter:
    """The store writer on ``path``, its journal applied; tournaments a killed host left running marked."""
    writer = StoreWriter(path, reactor)
    try:
        writer.open()
    except StoreError as error:
        raise StartupError(str(error)) from None
    for tournament in writer.interrupted:
        log.warn("tournament {id} was left running by a host that stopped; marked interrupted", id=tournament)
    return writer


def allow_open_files(connections: int) -> None:
    """Raise the soft limit on open files (``ulimit -n``) to fit ``connections``, within the hard limit."""
    try:
        import resource
    except ImportError:  # not on this system
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = connections + SPARE_FILES
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return
    allowed = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (allowed, hard))
    if allowed < wanted:
        log.warn(
            "this process may open {allowed} files (ulimit -n), fewer than --max-connections {connections} needs",
            allowed=allowed,
            connections=connections,
        )


def settle_memory() -> None:
    """Once started: keep what start-up built out of the collector's sight, and collect young objects less often.

    Every game is freed by reference counting when it ends (nothing of it is
    left in a reference cycle), so the cyclic collector only has to look
    for the rare cycle a failure leaves behind. ``gc.freeze()`` moves the
    modules, classes and services built at start-up to the permanent
    generation, which no collection walks again; a first threshold of
    ``GC_YOUNG`` allocations (Python's default is 700) makes young
    collections rarer, so a game's short-lived objects are gone by the time
    one runs instead of being promoted to the older generations, whose
    collections walk every live connection and game.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])


def _stop_reactor(reactor: Any) -> None:
    try:
        reactor.stop()
    except ReactorNotRunning:  # stopped by a signal in the meantime
        pass


def makeService(options: Options, reactor: Any = None) -> service.MultiService:
    if reactor is None:
        from twisted.internet import reactor
    try:
        writer = open_store(options["db"], reactor)
    except StartupError as error:
        fail(str(error), STARTUP_STATUS)
    allow_open_files(options["max-connections"])
    top = service.MultiService()
    StoreService(writer).setServiceParent(top)
    stop = lambda: reactor.callLater(0, _stop_reactor, reactor)  # noqa: E731
    host = build_host(options, writer, reactor, stop)
    lobby = LobbyService(host.factory, host.runner, stop)
    if options["games"] is not None:
        lobby.stop_after(options["games"])
    lobby.setServiceParent(top)
    if host.tournaments is not None:
        host.tournaments.setServiceParent(top)
    if options["web"] is not None:
        from evolution.web.service import web_service  # the web view's modules load only when asked for

        web_service(
            options["web"], reactor, host.runner, host.factory, options["db"], tournaments=host.tournaments
        ).setServiceParent(top)
    reactor.callWhenRunning(settle_memory)
    endpoint = server_endpoint(reactor, options["port"])
    ListeningService(endpoint, host.factory, options["port"]).setServiceParent(top)
    return top
