"""``play_remote`` ends with one ``ClientError`` sentence when it cannot reach the host at all, or when its
dialect does not take its name or the name is not UTF-8 text (before connecting: never an unhandled error as
the connection is made; ``evolution-client`` says it as a usage error), and tries every address a host's name
has (``localhost`` is often ``::1`` first, refused by a host on IPv4 only)."""

from __future__ import annotations

import socket
import subprocess
import sys

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

    def test_a_name_that_is_not_utf_8_text_is_one_client_error_before_connecting(self) -> None:
        reactor = MemoryReactorClock()
        name = b"caf\xe9".decode("utf-8", "surrogateescape")  # Latin-1 bytes, as Python reads them from argv
        game = ensureDeferred(play_remote(reactor, "127.0.0.1", 45678, name, SillyPlayer()))
        error = self.failureResultOf(game, ClientError).value
        self.assertEqual(str(error), 'the name "caf\\xe9" is not UTF-8 text (its bytes are of another encoding, '
                                     "Latin-1 perhaps); a name travels to the host as UTF-8: write it in UTF-8")
        self.assertEqual(reactor.tcpClients, [])

    def test_evolution_client_says_a_latin_1_name_is_not_utf_8_in_one_line(self) -> None:
        result = subprocess.run([sys.executable, "-m", "evolution.cli.evolution_client", "--name", b"caf\xe9",
                                 "--port", "1", "--retries", "0"], capture_output=True, timeout=60,
                                env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stderr.decode().splitlines()[-1],
                         'evolution-client: error: --name: the name "caf\\xe9" is not UTF-8 text (its bytes are of '
                         "another encoding, Latin-1 perhaps); a name travels to the host as UTF-8: write it in UTF-8 "
                         "(see --help)")


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


class CancelledConnectTests(unittest.TestCase):
    """A client stopped while it connects (Ctrl-C, a test's cleanup) leaves no connection behind to sign up for
    nobody: the attempt stops, or the connection made all the same is dropped (its end, heard by no one, was an
    unhandled error in whatever ran when the garbage collector found it)."""

    timeout = 30

    async def test_a_client_stopped_while_it_connects_never_signs_up(self) -> None:
        from twisted.internet import reactor
        from twisted.internet.defer import CancelledError
        from twisted.internet.protocol import Factory, Protocol

        from tests.support.hosting import until

        heard: list[bytes] = []

        class Host(Protocol):
            def dataReceived(self, data: bytes) -> None:
                heard.append(data)

        listening = reactor.listenTCP(0, Factory.forProtocol(Host), interface="127.0.0.1")
        self.addCleanup(listening.stopListening)
        port = listening.getHost().port
        stopped = ensureDeferred(play_remote(reactor, "127.0.0.1", port, "stopped", SillyPlayer(), retries=0))
        stopped.cancel()
        self.failureResultOf(stopped, CancelledError)
        after = ensureDeferred(play_remote(reactor, "127.0.0.1", port, "after", SillyPlayer(), retries=0))
        await until(lambda: b'"after"\n' in heard)  # the next one, connected after it, has signed up
        self.assertEqual(heard, [b'"after"\n'])
        after.cancel()
        self.failureResultOf(after, CancelledError)
