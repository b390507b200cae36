"""``play_remote`` ends with one ``ClientError`` sentence when it cannot reach the host at all, or when its
dialect does not take its name (before connecting: never an unhandled error as the connection is made), and
tries every address a host's name has (``localhost`` is often ``::1`` first, refused by a host on IPv4 only)."""

from __future__ import annotations

import socket

from twisted.internet.address import IPv4Address
from twisted.internet.defer import ensureDeferred
from twisted.internet.error import ConnectionRefusedError
from twisted.internet.testing import MemoryReactorClock
from twisted.python.failure import Failure
from twisted.trial import unittest

from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.games.fish.strategies.greedy import GreedyPlayer
from evolution.net.client import ClientError, play_remote


def no_such_host(host, port, *args, **kwargs):
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


def two_homes(host, port, *args, **kwargs):
    """``::1`` then ``127.0.0.1``, as many systems resolve ``localhost``."""
    return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("::1", port, 0, 0)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]


class UnreachableHostTests(unittest.TestCase):
    def test_a_name_that_does_not_resolve_is_one_client_error_at_once(self) -> None:
        self.patch(socket, "getaddrinfo", no_such_host)
        reactor = MemoryReactorClock()
        game = ensureDeferred(play_remote(reactor, "nowhere.invalid", 45678, "bot", SillyPlayer(), retries=3))
        error = self.failureResultOf(game, ClientError).value
        self.assertTrue(str(error).startswith("cannot connect to nowhere.invalid:45678: DNS lookup failed"), error)
        self.assertEqual(reactor.getDelayedCalls(), [])  # no retry waits: a name that does not resolve will not
        self.assertEqual(reactor.tcpClients, [])


class NameTests(unittest.TestCase):
    def test_a_name_the_dialect_does_not_take_is_one_client_error_before_connecting(self) -> None:
        reactor = MemoryReactorClock()
        game = ensureDeferred(play_remote(reactor, "127.0.0.1", 45678, "house-1 (greedy)", GreedyPlayer(),
                                          game="fish", dialect="course"))
        error = self.failureResultOf(game, ClientError).value
        self.assertEqual(str(error), 'the course\'s Fish protocol takes a name of 1 to 12 ASCII letters, not '
                                     '"house-1 (greedy)"')
        self.assertEqual(reactor.tcpClients, [])


class AddressTests(unittest.TestCase):
    def setUp(self) -> None:
        self.patch(socket, "getaddrinfo", two_homes)
        self.reactor = MemoryReactorClock()

    def refuse(self, attempt: int) -> None:
        _, _, factory, _, _ = self.reactor.tcpClients[attempt]
        factory.clientConnectionFailed(self.reactor.connectors[attempt], Failure(ConnectionRefusedError()))

    def test_an_address_that_refuses_is_followed_by_the_next(self) -> None:
        game = ensureDeferred(play_remote(self.reactor, "localhost", 45678, "bot", SillyPlayer(), retries=0))
        self.refuse(0)
        self.assertEqual([client[:2] for client in self.reactor.tcpClients], [("::1", 45678), ("127.0.0.1", 45678)])
        _, _, factory, _, _ = self.reactor.tcpClients[1]
        self.assertIsNotNone(factory.buildProtocol(IPv4Address("TCP", "127.0.0.1", 45678)))
        self.assertNoResult(game)  # connected: it plays on

    def test_when_every_address_refuses_the_client_gives_up_with_one_sentence(self) -> None:
        game = ensureDeferred(play_remote(self.reactor, "localhost", 45678, "bot", SillyPlayer(), retries=0))
        self.refuse(0)
        self.refuse(1)
        error = self.failureResultOf(game, ClientError).value
        self.assertTrue(str(error).startswith("cannot connect to localhost:45678: Connection was refused"), error)
