"""A port behind HAProxy (``--proxy-protocol``): the bot's address is the one its PROXY header names, for the log,
the limit per address, seed004's names and the game's worker; a connection without a header is closed with a line.

The header's own cases on an in-memory transport and a ``Clock``; then a real HAProxy in front of a real host."""

from __future__ import annotations

import socket
import struct

import pytest
from twisted.internet import reactor
from twisted.internet.address import IPv4Address
from twisted.internet.defer import ensureDeferred, gatherResults
from twisted.internet.protocol import Factory, Protocol
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport
from twisted.trial import unittest

from evolution.net.client import play_remote
from evolution.address_prefixes import parse_prefixes
from evolution.net.proxy_header import HEADER_WAIT, ProxiedFactory
from evolution.stock_servers import Balancer, haproxy_missing
from evolution.testing import free_port
from tests.support.hosting import HonestSilly, log_lines, new_host, until


def v1(source: str, port: int = 40000) -> bytes:
    return f"PROXY TCP4 {source} 127.0.0.1 {port} 9999\r\n".encode()


def v2(source: str, port: int = 40000, local: bool = False) -> bytes:
    """HAProxy's binary header (``send-proxy-v2``): PROXY (or LOCAL, a health check) over TCP/IPv4."""
    addresses = socket.inet_aton(source) + socket.inet_aton("127.0.0.1") + struct.pack("!HH", port, 9999)
    command = 0x20 if local else 0x21
    return b"\r\n\r\n\x00\r\nQUIT\n" + bytes([command, 0x11]) + struct.pack("!H", len(addresses)) + addresses


class Heard(Protocol):
    """What the host's factory would build: it records its peer and what it reads."""

    def connectionMade(self) -> None:
        self.factory.made.append(self)
        self.peer, self.read = self.transport.getPeer(), b""

    def dataReceived(self, data: bytes) -> None:
        self.read += data


class HeaderTests(unittest.TestCase):
    def setUp(self) -> None:
        self.clock = Clock()
        self.inner = Factory.forProtocol(Heard)
        self.inner.made = []
        self.lines = log_lines(self)

    def connect(self, *chunks: bytes, peer: str = "127.0.0.1", allowed: str | None = None) -> StringTransport:
        """A connection from ``peer`` to a port behind a balancer (``allowed``: its ``--proxy-from``)."""
        factory = ProxiedFactory(self.inner, self.clock, None if allowed is None else parse_prefixes(allowed))
        connection = factory.buildProtocol(IPv4Address("TCP", peer, 5000))
        transport = StringTransport(peerAddress=IPv4Address("TCP", peer, 5000))
        connection.makeConnection(transport)
        for chunk in chunks:
            connection.dataReceived(chunk)
        return transport

    def test_the_hosts_protocol_is_made_once_the_header_names_the_bot_and_reads_what_follows(self):
        for header in (v1("203.0.113.7"), v2("203.0.113.7")):
            self.inner.made.clear()
            transport = self.connect(header[:5], header[5:] + b'"bot"\n')
            [heard] = self.inner.made
            self.assertEqual((heard.peer.host, heard.peer.port), ("203.0.113.7", 40000))
            self.assertEqual(heard.read, b'"bot"\n')
            self.assertFalse(transport.disconnecting)

    def test_a_connection_without_a_header_is_closed_with_a_line(self):
        transport = self.connect(b'"bot"\n')
        self.assertTrue(transport.disconnecting)
        self.assertEqual(self.inner.made, [])
        self.assertEqual([line for line in self.lines if "PROXY" in line], [
            "connection from 127.0.0.1:5000 on a --proxy-protocol port closed: no PROXY header (the connection "
            "began with something else)"])

    def test_a_connection_silent_past_the_limit_is_closed_with_a_line(self):
        transport = self.connect()
        self.clock.advance(HEADER_WAIT - 0.1)
        self.assertFalse(transport.disconnecting)
        self.clock.advance(0.2)
        self.assertTrue(transport.disconnecting)
        self.assertIn(f"closed: no PROXY header within {HEADER_WAIT:g} s", "\n".join(self.lines))

    def test_a_balancers_health_check_is_closed_without_a_word(self):
        transport = self.connect(v2("127.0.0.1", local=True))
        self.assertTrue(transport.disconnecting)
        self.assertEqual(self.inner.made, [])
        self.assertEqual([line for line in self.lines if "PROXY" in line], [])
        self.assertEqual(self.clock.getDelayedCalls(), [])

    # --proxy-from: only the balancer's addresses may send the header; any other peer is closed at once

    def test_a_header_from_a_peer_not_allowed_closes_the_connection_with_a_line(self):
        transport = self.connect(v1("203.0.113.7") + b'"bot"\n', allowed="10.0.0.0/8, 192.0.2.7")
        self.assertTrue(transport.disconnecting)
        self.assertEqual(self.inner.made, [])
        self.assertEqual([line for line in self.lines if "PROXY" in line], [
            "connection from 127.0.0.1:5000 on a --proxy-protocol port closed: this peer may not send a PROXY header"
            " (--proxy-from): only the balancer may"])
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_the_balancers_header_is_believed(self):
        for peer in ("10.1.2.3", "192.0.2.7"):
            self.inner.made.clear()
            transport = self.connect(v2("203.0.113.7") + b'"bot"\n', peer=peer, allowed="10.0.0.0/8, 192.0.2.7")
            [heard] = self.inner.made
            self.assertEqual(heard.peer.host, "203.0.113.7")
            self.assertFalse(transport.disconnecting)

    def test_bad_prefixes_are_a_sentence(self):
        with self.assertRaises(ValueError) as raised:
            parse_prefixes("10.0.0.0/8,haproxy")
        self.assertIn("'haproxy' is not an address or a prefix", str(raised.exception))


@pytest.mark.skipif(haproxy_missing() is not None, reason=haproxy_missing() or "")
class BehindHAProxyTests(unittest.TestCase):
    """A real HAProxy (``send-proxy-v2``) in front of a host of this process; bots from 127.0.0.2-4."""

    timeout = 120

    def balanced(self, host) -> int:
        balancer = Balancer(self.mktemp(), free_port(), [("127.0.0.1", host.port)])
        balancer.start()
        self.addCleanup(balancer.stop)
        return balancer.port

    async def test_bots_are_known_by_their_own_addresses_in_the_log_and_the_limit_and_play_in_a_worker(self):
        host = new_host(self, "--proxy-protocol", "--games", "1", "--players", "3-3", "--max-per-address", "1",
                        "--timeout", "3")
        lines = log_lines(self)
        await host.ready()
        port = self.balanced(host)
        names = ["alpha", "bravo", "charlie"]
        clients = [ensureDeferred(play_remote(reactor, "127.0.0.1", port, name, HonestSilly(), retries=0,
                                              bind=f"127.0.0.{k}"))
                   for k, name in enumerate(names, start=2)]
        await until(lambda: sum("signed up" in line for line in lines) >= 2)
        again = play_remote(reactor, "127.0.0.1", port, "again", HonestSilly(), retries=0, bind="127.0.0.2")
        refused = await ensureDeferred(again).addErrback(lambda failure: failure.value)
        await gatherResults(clients)
        store = await host.stored()
        [game] = store.recent_games(10)
        self.assertEqual(sorted(seat.name for seat in game.players), names)
        signed = sorted(line.split(" from ")[1].split(":")[0] for line in lines if line.startswith("signed up"))
        self.assertEqual(signed, ["127.0.0.2", "127.0.0.3", "127.0.0.4"])
        self.assertIn("game full", str(refused))
        self.assertIn("127.0.0.2 holds 1 connection, as many as one address may", "\n".join(lines))
        await until(lambda: not host.factory.by_address)


class ForgedHeaderOnAHostTests(unittest.TestCase):
    """The attack of issue 36: a peer that reaches the host directly forges headers to take many places."""

    timeout = 60

    async def test_forged_headers_from_a_peer_not_allowed_sign_no_one_up(self):
        host = new_host(self, "--proxy-protocol", "--proxy-from", "10.0.0.0/8", "--players", "3-3")
        lines = log_lines(self)
        await host.ready()
        from twisted.internet.threads import deferToThread

        def forge(source: str) -> bytes:
            with socket.create_connection(("127.0.0.1", host.port), timeout=30) as connection:
                connection.sendall(v1(source) + b'"forger"\n')
                return connection.recv(100)

        for source in ("203.0.113.1", "203.0.113.2", "203.0.113.3"):
            self.assertEqual(await deferToThread(forge, source), b"")
        self.assertEqual(host.factory.lobby, [])
        self.assertEqual(sum("may not send a PROXY header (--proxy-from)" in line for line in lines), 3)
        self.assertFalse(any("signed up" in line for line in lines))
