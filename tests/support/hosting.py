"""A real host in the test process, on 127.0.0.1, and real clients for it; its log lines; waiting on the reactor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from twisted.internet import reactor
from twisted.internet.defer import Deferred, ensureDeferred, gatherResults, maybeDeferred
from twisted.internet.task import deferLater
from twisted.logger import formatEvent, globalLogPublisher
from twisted.trial import unittest

from evolution.cli.evolution_replay import check
from evolution.games.evolution.rules.actions import Action4
from evolution.games.evolution.rules.cards import card_order
from evolution.games.evolution.rules.silly import MIN_CARDS, SillyPlayer
from evolution.host.wiring import Options, build_host
from evolution.net.client import play_remote
from evolution.net.proxy_header import ProxiedFactory
from evolution.store.results_store import ResultsStore
from evolution.store.writer import StoreWriter

ANSWER_LIMIT = "3"
"""``--timeout`` for hosts whose bots run in the test's own process. An honest answer takes a few
milliseconds here (a whole 8-player game of silly bots: about 1 ms; the host's work per message:
under 0.1 ms), but every bot shares the test's one reactor, which on a machine whose cores other
work keeps busy (``make test-busy``) may wait hundreds of milliseconds for a core or for a full
garbage collection of the session's heap: 3 s is a thousand times the baseline. A test whose bot
must run out of time waits this long once."""
SIGNUP_LIMIT = "1"
"""``--signup-timeout`` likewise: an in-process client writes its name in the same reactor turn
in which it connects."""


def host_options(db: Path | str, *extra: str) -> Options:
    """The host's options; a journal reserve of 1 MiB unless ``extra`` says otherwise (a test plays a few games)."""
    options = Options()
    options.parseOptions(["--port", "tcp:0:interface=127.0.0.1", "--db", str(db), "--journal-reserve", "1", *extra])
    return options


class HonestSilly(SillyPlayer):
    """The tests' honest bot: the reference strategy, and the course's rule where that strategy has no answer.

    The course deals a short hand in a game's last turn (its end check counts a player without boards as 3 cards,
    though it gets 4: rules.md 11, quirk D10), and the reference strategy, needing 3 cards, cannot answer with
    fewer (``tests/games/evolution/rules/test_dealer.py`` shows such a deal). ``[i, [], [], [], []]`` is always
    legal: with fewer than 3 cards this bot plays its smallest card as food and keeps the rest.
    """

    def choose(self, before: Any, after: Any) -> Action4:
        if self.me is not None and 0 < len(self.me.hand) < MIN_CARDS:
            return Action4(min(range(len(self.me.hand)), key=lambda i: card_order(self.me.hand[i])))
        return super().choose(before, after)


class LocalHost:
    """The host's factory, runner and store, listening on a free loopback port."""

    def __init__(self, directory: Path, *extra: str, db: str | None = None, **writer: Any) -> None:
        self.options = host_options(db or directory / "results.sqlite", *extra)
        writer.setdefault("reserve", self.options["journal-reserve"] * 2**20)
        self.writer = StoreWriter(self.options["db"], reactor, **writer)
        self.writer.open()
        self.writer.start()
        self.factory, self.runner, self.tournaments, self.ladder = build_host(self.options, self.writer, reactor)
        if self.ladder is not None:
            self.ladder.startService()
        listening = (ProxiedFactory(self.factory, reactor, self.options["proxy-from"]) if self.options["proxy-protocol"]
                     else self.factory)
        self.listening = reactor.listenTCP(0, listening, interface="127.0.0.1")
        self.port = self.listening.getHost().port
        self.readers: list[ResultsStore] = []
        self.stopped = False
        # Connections are accepted (and a tournament's sign-up opens) once the workers are up: starting them
        # takes the CPU a test's sign-up window needs; a client that connects sooner waits in the backlog.
        self.listening.stopReading()
        self.runner.ready().addCallback(self._open)

    def _open(self, _: Any) -> None:
        if self.stopped:
            return
        if self.tournaments is not None:
            self.tournaments.startService()
        self.listening.startReading()

    def client(self, name: str, player: Any = None) -> Deferred:
        """A real client (in this process) that signs up and plays one game (once the host's workers are up:
        starting them takes the machine's CPU, which a test's sign-up window would otherwise share)."""

        async def play() -> Any:
            await self.ready()
            return await play_remote(reactor, "127.0.0.1", self.port, name, player or HonestSilly(), retries=0)

        return ensureDeferred(play())

    async def ready(self) -> None:
        """Once every worker process of the host has started (at once with --workers 0)."""
        await self.runner.ready()

    async def stored(self) -> ResultsStore:
        """The results store as a reader sees it once the writes handed over so far are done (and, once the
        runner is stopping, once its workers have reported every game)."""
        await self.runner.stopped()
        await self.writer.idle()
        store = ResultsStore.open(self.options["db"])
        self.readers.append(store)
        return store

    async def stop(self) -> None:
        """Stop listening, the lobby, the games and the store (once: a test may stop it before its cleanup)."""
        if self.stopped:
            return
        self.stopped = True
        await self.listening.stopListening()
        for mode in (self.tournaments, self.ladder):
            if mode is not None and mode.running:
                mode.stopService()
        self.factory.stop()
        await maybeDeferred(self.runner.stop)
        await self.writer.close()
        for reader in self.readers:
            reader.close()


async def stored_tournament(test: unittest.TestCase, host: LocalHost, clients: list[Deferred]) -> tuple:
    """Once the host's first tournament is over and ``clients`` have ended: the store, the tournament and the
    clients' outcomes (or errors); ``test`` asserts that every game of it replays from its log to its result."""
    await host.tournaments.when_over(1)
    outcomes = await gatherResults([client.addErrback(lambda failure: failure.value) for client in clients])
    store = await host.stored()
    [tournament] = store.tournaments()
    for game in tournament.games:
        status, lines = check(store, game)
        test.assertEqual(status, 0, lines)
    return store, tournament, outcomes


def log_lines(test: unittest.TestCase) -> list[str]:
    """Every log line from now to the end of ``test``, formatted as the log shows it (filled in as they come)."""
    lines: list[str] = []

    def observe(event: dict) -> None:
        lines.append(formatEvent(event))

    globalLogPublisher.addObserver(observe)
    test.addCleanup(globalLogPublisher.removeObserver, observe)
    return lines


async def until(predicate: Any, interval: float = 0.01) -> None:
    """Wait (on the reactor) until ``predicate()`` holds."""
    while not predicate():
        await deferLater(reactor, interval, lambda: None)


def test_options(test: unittest.TestCase) -> tuple[str, ...]:
    """Options a test case adds after its own (``HOST_OPTIONS``): a subclass runs its tests with
    ``--workers 0``, say (``tests/host/runner/test_one_process.py``)."""
    return tuple(getattr(test, "HOST_OPTIONS", ()))


def new_host(test: unittest.TestCase, *extra: str, folder: Path | None = None, **writer: Any) -> LocalHost:
    """A host in ``folder`` (default: a fresh one of ``test``'s), stopped when the test ends (``writer``:
    StoreWriter options). Its store is a file there, or, where the test case says ``STORE = "postgresql"``, a new
    database of the session's PostgreSQL cluster (``tests/support/postgres.py``)."""
    directory = folder if folder is not None else Path(test.mktemp())
    directory.mkdir(exist_ok=True)
    if getattr(test, "STORE", "sqlite") == "postgresql" and "db" not in writer:
        from tests.support import postgres

        writer["db"] = postgres.database_url(test.id().rsplit(".", 1)[-1])
    host = LocalHost(directory, *extra, *test_options(test), **writer)
    test.addCleanup(host.stop)
    return host
