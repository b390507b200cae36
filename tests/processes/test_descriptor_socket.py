"""The channel's transport (``evolution.processes.descriptor_socket``): a command's descriptors arrive whole, in order.

Real Unix socket pairs, real AMP (the channel's ``Descriptors`` argument) and
real TCP connections on loopback as the descriptors sent, as a game's
players are sent to a worker.
"""

from __future__ import annotations

import os
import socket

from twisted.internet import reactor
from twisted.protocols import amp
from twisted.trial import unittest

from evolution.processes.channel import Descriptors
from evolution.processes.descriptor_socket import MOST_RIGHTS, joined


class Take(amp.Command):
    arguments = [(b"descriptors", Descriptors()), (b"note", amp.Unicode())]
    response: list = []


class Taker(amp.AMP):
    """The receiving end: what each command brought, and how many reads its transport made."""

    def __init__(self) -> None:
        super().__init__()
        self.taken: list[tuple[list[int], str]] = []
        self.reads = 0

    def dataReceived(self, data: bytes) -> None:
        self.reads += 1  # the transport hands on each read at once
        super().dataReceived(data)

    @Take.responder
    def take(self, descriptors: list[int], note: str) -> dict:
        self.taken.append((descriptors, note))
        return {}


def channel_pair(test: unittest.TestCase) -> tuple[amp.AMP, Taker]:
    giver, taker = amp.AMP(), Taker()
    joined(reactor, giver, taker)
    test.addCleanup(giver.transport.loseConnection)
    test.addCleanup(taker.transport.loseConnection)
    return giver, taker


def loopback_pairs(test: unittest.TestCase, count: int) -> list[tuple[socket.socket, socket.socket]]:
    """``count`` connected TCP pairs on 127.0.0.1 (the first of each is what gets sent)."""
    listener = socket.create_server(("127.0.0.1", 0))
    test.addCleanup(listener.close)
    pairs = []
    for _ in range(count):
        sent = socket.create_connection(listener.getsockname())
        peer, _ = listener.accept()
        test.addCleanup(sent.close)
        test.addCleanup(peer.close)
        pairs.append((sent, peer))
    return pairs


class DescriptorSocketTests(unittest.TestCase):
    timeout = 30

    def assert_same_connections(self, received: list[int], pairs: list[tuple[socket.socket, socket.socket]]) -> None:
        """Each received descriptor is its own copy of the matching connection: a byte through it reaches its peer."""
        for index, (fd, (sent, peer)) in enumerate(zip(received, pairs)):
            self.assertNotEqual(fd, sent.fileno())
            os.write(fd, b"%d\n" % index)
            os.close(fd)
            peer.settimeout(5)
            self.assertEqual(peer.recv(16), b"%d\n" % index)

    async def test_a_games_connections_arrive_in_seat_order_in_one_read(self) -> None:
        giver, taker = channel_pair(self)
        pairs = loopback_pairs(self, 8)
        await giver.callRemote(Take, descriptors=[sent.fileno() for sent, _ in pairs], note="eight seats")
        [(received, note)] = taker.taken
        self.assertEqual((len(received), note), (8, "eight seats"))
        self.assert_same_connections(received, pairs)
        self.assertEqual(taker.reads, 1)  # Twisted's own transport: 9 (a byte and a read per descriptor)

    async def test_commands_one_after_another_each_get_their_own(self) -> None:
        giver, taker = channel_pair(self)
        pairs = loopback_pairs(self, 6)
        await giver.callRemote(Take, descriptors=[], note="none")
        sent = [giver.callRemote(Take, descriptors=[s.fileno() for s, _ in pairs[k:k + 3]], note=f"game {k // 3}")
                for k in (0, 3)]
        for answer in sent:
            await answer
        self.assertEqual([(len(fds), note) for fds, note in taker.taken], [(0, "none"), (3, "game 0"), (3, "game 1")])
        self.assert_same_connections(taker.taken[1][0] + taker.taken[2][0], pairs)

    async def test_more_descriptors_than_one_system_call_carries(self) -> None:
        giver, taker = channel_pair(self)
        many = MOST_RIGHTS + 40
        pairs = loopback_pairs(self, 1)
        duplicates = [os.dup(pairs[0][0].fileno()) for _ in range(many)]
        self.addCleanup(lambda: [os.close(fd) for fd in duplicates])
        await giver.callRemote(Take, descriptors=duplicates, note="many")
        [(received, _)] = taker.taken
        self.assertEqual(len(received), many)
        self.assert_same_connections(received[:1], pairs)
        for fd in received[1:]:
            self.assertEqual(os.fstat(fd).st_ino, os.fstat(pairs[0][0].fileno()).st_ino)
            os.close(fd)
