"""The host's end and a child's end of a local channel: a Unix stream socket that sends descriptors in bulk.

Offers ``adopt_channel(reactor, fd, protocol)``: the connected Unix stream
socket ``fd`` given to the reactor with ``protocol`` (the reactor keeps a
duplicate: close ``fd`` afterwards), as ``IReactorSocket.adoptStreamConnection``
would, but with ``DescriptorSocket`` as its transport, which sends every
descriptor waiting with the next write, in one call; ``joined(reactor,
first, second)``: two protocols of this process on the two ends of a new
channel (tests and benchmarks; ``adopt``: another way to adopt each end);
and ``GivenProtocol(protocol)``, the factory of an adopted connection, which
gives it the protocol it was made with.

Why not Twisted's Unix transport: docs/architecture.md,
"The host and its workers".
"""

from __future__ import annotations

import array
import socket
from errno import ENOBUFS, EWOULDBLOCK
from typing import Any, Callable

from twisted.internet import error, main, tcp, unix
from twisted.internet.protocol import Factory, Protocol
from twisted.python.compat import lazyByteSlice
from twisted.python.util import untilConcludes

MOST_RIGHTS = 253  # Linux's SCM_MAX_FD: descriptors one sendmsg may carry


class DescriptorSocket(unix.Server):
    """A Unix stream transport whose queued descriptors go out together, with the first bytes written next."""

    def writeSomeData(self, data: bytes) -> Any:
        queued = self._sendmsgQueue
        if not queued:
            return tcp.Server.writeSomeData(self, data)
        if not data:  # a descriptor travels with a byte: the caller sent one and wrote nothing
            return error.FileDescriptorOverrun()
        rights = array.array("i", queued[:MOST_RIGHTS])
        # With more left than one call carries, one byte goes with these: the rest go with the next bytes,
        # still ahead of the bytes that name them.
        limit = self.SEND_LIMIT if len(queued) <= MOST_RIGHTS else 1
        try:
            sent = untilConcludes(
                self.socket.sendmsg, [lazyByteSlice(data, 0, limit)], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, rights)]
            )
        except OSError as failure:
            if failure.args[0] in (EWOULDBLOCK, ENOBUFS):
                return 0
            return main.CONNECTION_LOST
        del queued[:len(rights)]
        return sent


def adopt_channel(reactor: Any, fd: int, protocol: Any) -> DescriptorSocket:
    """``protocol`` on the connected Unix stream socket ``fd`` (duplicated: the caller closes ``fd``)."""
    return DescriptorSocket._fromConnectedSocket(fd, GivenProtocol(protocol), reactor)


def joined(reactor: Any, first: Any, second: Any, adopt: Callable[[Any, int, Any], Any] = adopt_channel) -> None:
    """``first`` and ``second`` on the two ends of a new Unix socket pair, each end adopted with ``adopt``."""
    ends = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    for end, protocol in zip(ends, (first, second)):
        end.setblocking(False)
        adopt(reactor, end.fileno(), protocol)
        end.close()


class GivenProtocol(Factory):
    """Builds no protocol: gives an adopted connection the one it was made with."""

    noisy = False

    def __init__(self, protocol: Protocol) -> None:
        self.given = protocol

    def buildProtocol(self, addr: Any) -> Protocol:
        self.given.factory = getattr(self.given, "factory", None) or self
        return self.given
