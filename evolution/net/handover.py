# -*- test-case-name: tests.host.workers.test_pool -*-
"""Moving a live TCP connection to another process: the socket itself, not a proxy of it.

Offers ``Handover`` (a connection on its way: its descriptor, its socket
family, its client's address as shown, ``peer``, the bytes it had read and not handed on, ``unread``, and written and
not sent, ``unsent``; ``to_json()``, ``from_json(data, fd)``),
``can_hand_over(protocol)`` (plain TCP only, behind a balancer or not: a
TLS connection's state cannot move), ``take(protocol)`` (the connection taken from this reactor, left open)
and ``adopt(reactor, handover, protocol)`` (the connection given to this
reactor, with the protocol it was made with: ``evolution.processes.
descriptor_socket.GivenProtocol``).

How the socket and what travels beside it move, so that nothing is lost or
sent twice: docs/architecture.md, "The host and its workers".
"""

from __future__ import annotations

import base64
import os
import socket
from dataclasses import dataclass
from typing import Any

from twisted.internet.tcp import Connection

from evolution.net.proxy_header import forget, real_transport
from evolution.processes.descriptor_socket import GivenProtocol


@dataclass
class Handover:
    """A connection on its way to another process: its descriptor and what travels with it."""

    fd: int
    family: int
    unsent: bytes
    peer: str = ""  # the client's address as the host shows it (behind a balancer, the one its header named)
    protocol: Any = None  # the protocol it was taken from, until ``unread`` is asked for
    _unread: bytes | None = None

    @property
    def unread(self) -> bytes:
        """What was read and not handed on (known once the read under way, if any, has ended)."""
        if self._unread is None:
            self._unread = self.protocol.unread() if self.protocol is not None else b""
            self.protocol = None
        return self._unread

    def to_json(self) -> dict[str, Any]:
        return {"family": self.family, "unread": _text(self.unread), "unsent": _text(self.unsent), "peer": self.peer}

    @classmethod
    def from_json(cls, data: dict[str, Any], fd: int) -> Handover:
        return cls(fd, data["family"], _bytes(data["unsent"]), data.get("peer", ""), _unread=_bytes(data["unread"]))


def _text(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _bytes(text: str) -> bytes:
    return base64.b64decode(text)


def can_hand_over(protocol: Any) -> bool:
    """True if the connection is plain TCP and open (a TLS connection's state cannot move)."""
    transport = real_transport(getattr(protocol, "transport", None))
    return (
        isinstance(transport, Connection)
        and not transport.TLS
        and transport.connected
        and not transport.disconnecting
        and transport.socket.family in (socket.AF_INET, socket.AF_INET6)
    )


def _unsent(transport: Connection) -> bytes:
    """Bytes written to the transport that it has not given the kernel yet."""
    waiting = bytes(memoryview(transport.dataBuffer)[transport.offset:])
    return waiting + b"".join(transport._tempDataBuffer)


def take(protocol: Any) -> Handover:
    """Take the connection away from this process's reactor, leaving it open.

    How: docs/architecture.md, "The host and its workers".
    """
    wrapper = protocol.transport
    transport = real_transport(wrapper)
    transport.reactor.removeReader(transport)
    transport.reactor.removeWriter(transport)
    unsent = _unsent(transport)
    handle = transport.socket
    family = handle.family
    fd = handle.detach()  # the socket object is closed, its descriptor kept open: no shutdown, no copy
    transport.connected = False
    transport.dataBuffer, transport._tempDataBuffer, transport._tempDataLen = b"", [], 0
    peer = getattr(protocol, "peer", "")
    protocol.detach()
    forget(wrapper)
    return Handover(fd, family, unsent, peer, protocol)


def adopt(reactor: Any, handover: Handover, protocol: Any) -> Any:
    """Give the connection of ``handover`` to this process's reactor with ``protocol``; return its transport.

    ``handover.fd`` is closed here (the reactor keeps a duplicate). The
    protocol's ``connectionMade`` runs first; then the unsent bytes are
    written and the unread ones read (``protocol.resume(unread)``).
    """
    try:
        transport = reactor.adoptStreamConnection(handover.fd, handover.family, GivenProtocol(protocol))
    finally:
        os.close(handover.fd)
        handover.fd = -1
    if handover.unsent:
        transport.write(handover.unsent)
    protocol.resume(handover.unread)
    return transport
