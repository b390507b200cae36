# -*- test-case-name: tests.net.test_proxy_header -*-
"""A port behind HAProxy: each connection's PROXY header read before the host sees the connection.

Offers ``ProxiedFactory(factory, clock, allowed=None)`` (wraps the host's sign-up factory
for ``--proxy-protocol``; ``allowed``, the prefixes of ``--proxy-from``, parsed by
``evolution.address_prefixes.parse_prefixes``: a peer outside them, which may not send
the header, is closed with a log line before it is read), ``HEADER_WAIT`` (how long a
connection may take to send its header), ``real_transport(transport)`` (the TCP connection
under a proxied one, for ``evolution.net.handover``) and ``forget(transport)``
(a proxied connection moved to another process: its wrapper let go).

The header (v1 or v2, parsed by Twisted's ``twisted.protocols.haproxy``)
names the bot's address; the wrapped factory builds its protocol only then,
with that address, so the host counts, limits and logs the bot, not the
balancer. A connection without a header is closed with a log line; a
balancer's health check (a header that names no client: ``LOCAL`` or
``UNKNOWN``) is closed without one. How to configure HAProxy: docs/deploy.md.
"""

from __future__ import annotations

from typing import Any, Sequence

from twisted.internet.protocol import Protocol
from twisted.logger import Logger
from zope.interface import directlyProvides, providedBy

# Twisted names only ``proxyEndpoint`` public, whose wrapper builds the host's protocol before the header has
# named the peer; these two are what it is made of (stable since Twisted 16), used here to build it after.
from twisted.protocols.haproxy._wrapper import HAProxyProtocolWrapper, HAProxyWrappingFactory

from evolution.address_prefixes import Prefix, within
from evolution.text import escape

log = Logger()

HEADER_WAIT = 10.0  # seconds; HAProxy sends its header as the connection opens
_ENOUGH = 16  # bytes that tell a v1 header from a v2 one (a v1 header may be shorter: it ends with CRLF)
_V1, _V2 = b"PROXY ", b"\r\n\r\n\x00\r\nQUIT\n"  # how each version's header begins


def _shown(address: Any) -> str:
    """The balancer's (or a peer's) ``host:port``: said here, not imported from the host's connection, which
    hands connections over through this module (``evolution.net.handover``): no circle of imports."""
    return f"{address.host}:{address.port}" if hasattr(address, "host") else str(address)


def _may_begin_header(data: bytes) -> bool:
    return _V1.startswith(data[:len(_V1)]) or _V2.startswith(data[:len(_V2)])


class _Early(Protocol):
    """Stands in for the host's protocol while the header is read: keeps what follows the header."""

    def __init__(self) -> None:
        self.held = b""

    def dataReceived(self, data: bytes) -> None:
        self.held += data


class ProxiedConnection(HAProxyProtocolWrapper):
    """One connection through the balancer: its header first, then the host's protocol, made for its bot."""

    factory: ProxiedFactory

    def __init__(self, factory: ProxiedFactory, wrapped: Any = None) -> None:
        super().__init__(factory, _Early())
        self._early = b""
        self._deadline: Any = None
        self._told = False

    def makeConnection(self, transport: Any) -> None:
        """Connected to the balancer: wait for the header (the host's protocol does not exist yet)."""
        directlyProvides(self, providedBy(transport))
        Protocol.makeConnection(self, transport)
        self.factory.registerProtocol(self)
        allowed = self.factory.allowed
        if allowed is not None and not within(getattr(transport.getPeer(), "host", None), allowed):
            self._refuse("this peer may not send a PROXY header (--proxy-from): only the balancer may")
            return
        why = f"no PROXY header within {HEADER_WAIT:g} s"
        self._deadline = self.factory.clock.callLater(HEADER_WAIT, self._refuse, why)

    def dataReceived(self, data: bytes) -> None:
        if self._proxyInfo is not None:
            self.wrappedProtocol.dataReceived(data)
            return
        if self.disconnecting or self._told:
            return
        if self._parser is None:
            self._early += data
            if _may_begin_header(self._early) and len(self._early) < _ENOUGH and b"\n" not in self._early[5:]:
                return  # too short to tell the header's version yet
            data, self._early = self._early, b""
        super().dataReceived(data)
        if self._proxyInfo is not None:
            self._header_read()
        elif self.disconnecting:  # Twisted's parser found no header, or a malformed one
            self._refuse("no PROXY header (the connection began with something else)")

    def _header_read(self) -> None:
        self._cancel_deadline()
        early = self.wrappedProtocol
        if self._proxyInfo.source is None:  # a health check (LOCAL, UNKNOWN): no bot, nothing to log
            self.transport.loseConnection()
            return
        protocol = self.factory.wrappedFactory.buildProtocol(self._proxyInfo.source)
        if protocol is None:
            self.transport.loseConnection()
            return
        self.wrappedProtocol = protocol
        protocol.makeConnection(self)
        if early.held:
            protocol.dataReceived(early.held)

    def _refuse(self, reason: str) -> None:
        self._deadline = None
        if not self._told:
            self._told = True
            log.info(
                "connection from {peer} on a --proxy-protocol port closed: {reason}",
                peer=_shown(self.transport.getPeer()),
                reason=escape(reason),
            )
        self.transport.loseConnection()

    def _cancel_deadline(self) -> None:
        if self._deadline is not None and self._deadline.active():
            self._deadline.cancel()
        self._deadline = None

    def connectionLost(self, reason: Any) -> None:
        self._cancel_deadline()
        self.factory.unregisterProtocol(self)
        if self._proxyInfo is not None and not isinstance(self.wrappedProtocol, _Early):
            self.wrappedProtocol.connectionLost(reason)


class ProxiedFactory(HAProxyWrappingFactory):
    """The host's sign-up factory behind a balancer: each protocol built once its header names its bot."""

    protocol = ProxiedConnection

    def __init__(self, factory: Any, clock: Any, allowed: Sequence[Prefix] | None = None) -> None:
        super().__init__(factory)
        self.clock = clock
        self.allowed = allowed  # the peers that may send the header (--proxy-from); None: any

    def buildProtocol(self, addr: Any) -> ProxiedConnection:
        return self.protocol(self)


def real_transport(transport: Any) -> Any:
    """The TCP connection under ``transport`` (itself, when it is not a proxied one)."""
    return transport.transport if isinstance(transport, ProxiedConnection) else transport


def forget(transport: Any) -> None:
    """A proxied connection taken to another process: its wrapper is let go (it hears of the connection no more)."""
    if isinstance(transport, ProxiedConnection):
        transport.factory.unregisterProtocol(transport)
        transport.wrappedProtocol = _Early()
        transport.transport = None
