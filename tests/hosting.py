"""A real host in the test process, on 127.0.0.1, and real clients for it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from twisted.internet import reactor
from twisted.internet.defer import Deferred, ensureDeferred, maybeDeferred
from twisted.internet.task import deferLater
from twisted.trial import unittest

from evolution.host.service import Options, build_host
from evolution.host.store import ResultsStore
from evolution.host.store_writer import StoreWriter
from evolution.net.client import play_remote
from evolution.games.evolution.rules.silly import SillyPlayer


def host_options(db: Path, *extra: str) -> Options:
    options = Options()
    options.parseOptions(["--port", "tcp:0:interface=127.0.0.1", "--db", str(db), *extra])
    return options


class LocalHost:
    """The host's factory, runner and store, listening on a free loopback port."""

    def __init__(self, directory: Path, *extra: str, **writer: Any) -> None:
        self.options = host_options(directory / "results.sqlite", *extra)
        self.writer = StoreWriter(self.options["db"], reactor, **writer)
        self.writer.open()
        self.factory, self.runner, self.tournaments = build_host(self.options, self.writer, reactor)
        if self.tournaments is not None:  # sign-up opens once the workers are up, as the clients come then
            self.runner.ready().addCallback(lambda _: self.tournaments.startService())
        self.listening = reactor.listenTCP(0, self.factory, interface="127.0.0.1")
        self.port = self.listening.getHost().port
        self.readers: list[ResultsStore] = []

    def client(self, name: str, player: Any = None) -> Deferred:
        """A real client (in this process) that signs up and plays one game (once the host's workers are up:
        starting them takes the machine's CPU, which a test's sign-up window would otherwise share)."""

        async def play() -> Any:
            await self.ready()
            return await play_remote(reactor, "127.0.0.1", self.port, name, player or SillyPlayer(), retries=0)

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
        await self.listening.stopListening()
        if self.tournaments is not None and self.tournaments.running:
            self.tournaments.stopService()
        self.factory.stop()
        await maybeDeferred(self.runner.stop)
        await self.writer.close()
        for reader in self.readers:
            reader.close()


async def until(predicate: Any, interval: float = 0.01) -> None:
    """Wait (on the reactor) until ``predicate()`` holds."""
    while not predicate():
        await deferLater(reactor, interval, lambda: None)


def new_host(test: unittest.TestCase, *extra: str, **writer: Any) -> LocalHost:
    """A host in a fresh folder of ``test``'s, stopped when the test ends (``writer``: StoreWriter options)."""
    directory = Path(test.mktemp())
    directory.mkdir()
    host = LocalHost(directory, *extra, **writer)
    test.addCleanup(host.stop)
    return host
