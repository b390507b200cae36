"""A real host in the test process, on 127.0.0.1, and real clients for it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from twisted.internet import reactor
from twisted.internet.defer import Deferred, ensureDeferred
from twisted.internet.task import deferLater
from twisted.trial import unittest

from evolution.host.service import Options, build_host
from evolution.host.store import ResultsStore
from evolution.net.client import play_remote
from evolution.rules.silly import SillyPlayer


def host_options(db: Path, *extra: str) -> Options:
    options = Options()
    options.parseOptions(["--port", "tcp:0:interface=127.0.0.1", "--db", str(db), *extra])
    return options


class LocalHost:
    """The host's factory, runner and store, listening on a free loopback port."""

    def __init__(self, directory: Path, *extra: str) -> None:
        self.options = host_options(directory / "results.sqlite", *extra)
        self.store = ResultsStore.open(self.options["db"])
        self.factory, self.runner = build_host(self.options, self.store, reactor)
        self.listening = reactor.listenTCP(0, self.factory, interface="127.0.0.1")
        self.port = self.listening.getHost().port

    def client(self, name: str, player: Any = None) -> Deferred:
        """A real client (in this process) that signs up and plays one game."""
        return ensureDeferred(
            play_remote(reactor, "127.0.0.1", self.port, name, player or SillyPlayer(), retries=0)
        )

    async def stop(self) -> None:
        await self.listening.stopListening()
        self.factory.stop()
        self.store.close()


async def until(predicate: Any, interval: float = 0.01) -> None:
    """Wait (on the reactor) until ``predicate()`` holds."""
    while not predicate():
        await deferLater(reactor, interval, lambda: None)


def new_host(test: unittest.TestCase, *extra: str) -> LocalHost:
    """A host in a fresh folder of ``test``'s, stopped when the test ends."""
    directory = Path(test.mktemp())
    directory.mkdir()
    host = LocalHost(directory, *extra)
    test.addCleanup(host.stop)
    return host
