"""``play_remote`` ends with one ``ClientError`` sentence when it cannot reach the host at all."""

from __future__ import annotations

from twisted.internet.defer import ensureDeferred
from twisted.internet.interfaces import IHostnameResolver
from twisted.internet.testing import MemoryReactorClock
from twisted.trial import unittest
from zope.interface import implementer

from evolution.net.client import ClientError, play_remote
from evolution.games.evolution.rules.silly import SillyPlayer


@implementer(IHostnameResolver)
class NoSuchHost:
    """A resolver that finds no address for any name."""

    def resolveHostName(self, receiver, hostName, portNumber=0, addressTypes=None, transportSemantics="TCP"):
        receiver.resolutionBegan(None)
        receiver.resolutionComplete()


class UnreachableHostTests(unittest.TestCase):
    def test_a_name_that_does_not_resolve_is_one_client_error_at_once(self) -> None:
        reactor = MemoryReactorClock()
        reactor.installNameResolver(NoSuchHost())
        game = ensureDeferred(play_remote(reactor, "nowhere.invalid", 45678, "bot", SillyPlayer(), retries=3))
        error = self.failureResultOf(game, ClientError).value
        self.assertTrue(str(error).startswith("cannot connect to nowhere.invalid:45678: DNS lookup failed"), error)
        self.assertEqual(reactor.getDelayedCalls(), [])  # no retry waits: a name that does not resolve will not
