"""A finished game is freed by reference counting alone: it leaves no reference cycle for the collector.

The host relies on it (``evolution.host.tap.settle_memory`` makes the
cyclic collector run rarely): a game whose dealer, proxies and connections
held each other would wait, with its whole message log, for a full
collection, which at a few thousand bots stalls the reactor for hundreds of
milliseconds. The test plays a real game on loopback with the collector off
and checks, through weak references, that nothing of it is left. It plays in
one process (``--workers 0``) to see the game's objects: the game runner is
the one each worker process runs (``evolution.host.workers.worker_process``).
"""

from __future__ import annotations

import gc
import weakref

from twisted.internet import reactor
from twisted.internet.defer import gatherResults
from twisted.internet.task import deferLater
from twisted.trial import unittest

from tests.support.hosting import new_host, until


class FreedWithoutCollectorTests(unittest.TestCase):
    timeout = 30

    async def test_a_finished_game_its_dealer_proxies_and_connections_are_freed_at_once(self) -> None:
        host = new_host(self, "--players", "3-3", "--seed", "4", "--workers", "0")
        kept: list[weakref.ref] = []

        def begun(event: str, game) -> None:
            if event == "begin":
                kept.extend(weakref.ref(part) for part in (game, game.referee, game.log, *game.proxies))
                kept.extend(weakref.ref(connection) for connection in game.connections)

        host.runner.watch(begun)
        was_enabled = gc.isenabled()
        gc.collect()
        gc.disable()
        try:
            await gatherResults([host.client(f"bot {i}") for i in range(3)])
            await host.runner.when_games_over(1)
            await host.stored()
            await until(lambda: host.factory.open_connections == 0)
            for _ in range(60):  # closes take a pass of the reactor or two; the deadline sweep lets go within 1 s
                if all(ref() is None for ref in kept):
                    break
                await deferLater(reactor, 0.05, lambda: None)
            left = [type(ref()).__name__ for ref in kept if ref() is not None]
        finally:
            if was_enabled:
                gc.enable()
        self.assertEqual(len(kept), 9)  # the game, its dealer and log, 3 proxies, 3 connections
        self.assertEqual(left, [])
