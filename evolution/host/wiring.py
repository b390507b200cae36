# -*- test-case-name: tests.host.test_tap, tests.store.test_writer -*-
"""The host's parts and its small services, as ``twistd evolution`` composes them.

Offers ``build_host(options, writer, clock, stop)`` -> ``Host`` (the sign-up
factory, the game runner and, with ``--tournament``, the tournament
service, with ``--ladder``, the ladder service; not yet listening: tests
use it alone), ``open_store`` (the store
writer, its problems one ``StartupError``), ``StoreService`` (starts the
store process once the reactor runs; when the application stops, waits for
the games' records, a host with workers for their reports, then for the
store process, at most ``STOP_LIMIT`` seconds), ``LobbyService`` (stops the host
after ``--games`` games; when stopped, closes the lobby and stores running
games as aborted) and ``allow_open_files``. The whole application, with the
listening endpoints and the web view, is ``evolution.host.tap``.

With ``--games N`` the host stops the reactor once N games are over; when it
is stopped first (SIGTERM), the running games are stored as aborted and
nothing else happens.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, NamedTuple

from twisted.application import service
from twisted.internet.defer import succeed
from twisted.logger import Logger

from evolution.host.modes.ladder_mode import LadderService, kept_standings
from evolution.host.modes.resumption import NotResumable, StoredTournament, load_interrupted
from evolution.host.modes.tournament_mode import TournamentService
from evolution.host.modes.tournament_run import TournamentSettings
from evolution.host.options import Options, StartupError, TwistdOptions, from_options
from evolution.host.roster import Sessions, identity_step
from evolution.host.runner.game_runner import GameRunner, GameSettings
from evolution.net.identity import OPEN
from evolution.net.lag import LagProbe
from evolution.net.lobbies import GameLobby
from evolution.net.signup import SignupConfig, SignupFactory
from evolution.reserved_names import GUEST
from evolution.store.database import StoreError
from evolution.store.journal import RESERVE_MIB
from evolution.store.postgres import is_url
from evolution.store.writer import StoreWriter
from evolution.text import plural
from evolution.tournament.ladder_standings import Standings

__all__ = ["Options", "TwistdOptions", "StartupError", "Host", "build_host", "open_store"]

log = Logger()
SPARE_FILES = 64
SIGNUP_OPTIONS = {"window": "signup-window", "max_games": "games", "max_bytes": "max-message"}  # the rest: by name
TOURNAMENT_OPTIONS = {"format": "tournament", "smallest": "min_players", "largest": "max_players"}  # open files besides the connections: the store, logs, listening sockets


class StoreService(service.Service):
    """Starts the store process once the reactor runs; when the application stops, waits for the games to be
    recorded (``runner.stopped()``: a host with workers waits for their reports) and for the store process
    (bounded)."""

    def __init__(self, writer: StoreWriter, reactor: Any, runner: GameRunner | None = None) -> None:
        self.writer = writer
        self.reactor = reactor
        self.runner = runner

    def startService(self) -> None:
        super().startService()
        self.reactor.callWhenRunning(self.writer.start)  # after twistd has forked and shed privileges

    def stopService(self) -> Any:
        super().stopService()
        recorded = self.runner.stopped() if self.runner is not None else succeed(None)
        return recorded.addBoth(lambda _: self.writer.close())


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
            verb = "is" if count == 1 else "are"
            log.info("{games} {verb} over; stopping", games=plural(count, "game"), verb=verb)
            self.stop()

    def stopService(self) -> Any:
        super().stopService()
        self.factory.stop()
        return self.runner.stop()


class Host(NamedTuple):
    """The parts of a host that are not services of their own: sign-up, games, tournaments or a ladder (or None)."""

    factory: SignupFactory
    runner: GameRunner
    tournaments: TournamentService | None
    ladder: LadderService | None = None


def build_host(
    options: Options, writer: StoreWriter, clock: Any, stop: Callable[[], None] | None = None,
    resume: StoredTournament | None = None, lobby: Callable[[GameRunner], Any] | None = None,
) -> Host:
    """The sign-up factory, game runner and (with ``--tournament``, ``--ladder``) its service, not yet listening.

    With ``--workers N`` above 0 the runner plays its games in N worker
    processes (``evolution.host.runner.pooled_runner``), started once the reactor runs. ``lobby(runner)``
    makes the lobby's policy of a host whose games are formed by neither mode (``evolution-try``'s).
    """
    settings = from_options(GameSettings, options)
    config = from_options(SignupConfig, options, SIGNUP_OPTIONS, signup=settings.speaking().signup)
    runner = _runner(settings, config, writer, clock, options["workers"])
    tournaments = None
    policy: Any = GameLobby(runner.start_game, LagProbe(clock))
    if options["tournament"] is not None:
        tournaments = TournamentService(
            from_options(TournamentSettings, options, TOURNAMENT_OPTIONS, rounds=options["rounds"] or 0,
                         runners_up=runner.game.knockout_runners_up),
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
            resume,
        )
        policy = tournaments.policy
    ladder = None
    if options["ladder"]:
        standings = Standings(kept_standings(options["db"], options["game"]))
        ladder = LadderService(runner, standings, options["min_players"], options["max_players"],
                               options["signup-window"], LagProbe(clock))
        policy = ladder.policy
    if lobby is not None:
        policy = lobby(runner)
    factory = SignupFactory(config, policy, clock)
    if options.get("accounts", OPEN) != OPEN:
        factory.identity = identity_step(options["accounts"], options["db"], clock)
        factory.identity.max_per_owner = options["max-per-owner"]
        factory.sessions = Sessions(options["db"], options["host-name"], clock)
        owner_of = lambda connection: getattr(factory.identities.get(connection), "owner", None)  # noqa: E731
        if tournaments is not None and not options["owners-may-meet"]:
            tournaments.owner_of = owner_of
        if ladder is not None:
            ladder.owner_of = owner_of
            ladder.unrated = lambda name: name.startswith(GUEST)
    return Host(factory, runner, tournaments, ladder)


def _runner(settings: GameSettings, config: SignupConfig, writer: StoreWriter, clock: Any, workers: int) -> GameRunner:
    if workers == 0:
        return GameRunner.in_host(settings, writer, clock)
    from evolution.host.runner.pooled_runner import PooledRunner
    from evolution.host.workers.worker_process import worker_config

    return PooledRunner.in_host(settings, writer, clock, workers, lambda number: worker_config(settings, config, number))


def to_resume(options: Options) -> StoredTournament | None:
    """With ``--resume``: the interrupted tournament, its settings taken into ``options``; ``StartupError`` if none."""
    if options["resume"] is None:
        return None
    try:
        stored = load_interrupted(options["db"], options["resume"], options["host-name"])
    except (NotResumable, StoreError) as error:
        raise StartupError(str(error)) from None
    options.resumed(stored.options())
    return stored


def check_resumable(options: Options) -> None:
    """With ``--resume``, an SQLite ``--db`` that is not there is one line, before anything is made beside it."""
    db = options["db"]
    if options["resume"] is not None and not is_url(db) and not Path(db).is_file():
        raise StartupError(f"no results database at {db}: --resume goes on with a tournament stored there (is --db "
                           "the file the tournament was started with?)")


def open_store(
    path: str, reactor: Any, reserve_mib: int = RESERVE_MIB, host: str | None = None, journal: str | None = None,
) -> StoreWriter:
    """The store writer on ``path``, its journal applied; the tournaments a killed host (``host``) left running
    marked, the games it was playing stored as aborted."""
    writer = StoreWriter(path, reactor, reserve=reserve_mib * 2**20, host=host, journal=journal)
    try:
        writer.open()
    except StoreError as error:
        raise StartupError(str(error)) from None
    if writer.aborted:
        log.warn("{games} this host was playing when it stopped (killed?) stored as aborted: {ids}",
                 games=plural(len(writer.aborted), "game"), ids=", ".join(f"#{id}" for id in writer.aborted))
    for tournament in writer.interrupted:
        log.warn("tournament {id} was left running by a host that stopped; marked interrupted (twistd evolution "
                 "--resume {id} goes on with it)", id=tournament)
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
