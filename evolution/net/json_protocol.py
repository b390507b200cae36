# -*- test-case-name: tests.net.test_hardening, tests.jsonwire.test_framing -*-
"""A Twisted protocol that speaks a stream of JSON values.

Offers ``JSONStreamProtocol``: subclasses implement ``messageReceived(value)``
and ``badInput(reason)`` (called once when the peer's bytes cannot be framed;
nothing more is read after it) and send with ``sendMessage(value)``, or
``sendEncoded(text)`` for a value already encoded as compact JSON text; it
offers ``messages_sent`` and ``sent_before_value`` (was a reply read after
its question was written?), ``read_waiting()`` (read what the socket holds
now), ``number_grace`` (a bare number at the end of the input), ``detach()``,
``unread()`` and ``resume(unread)`` (a connection moved to another process)
and ``write_at_once``; and ``write_now(transport, data)``.

What each of these is for: docs/architecture.md, "A connection in the host".
"""

from __future__ import annotations

from typing import Any

from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.internet.protocol import Protocol
from twisted.internet.tcp import Connection
from twisted.python.failure import Failure

from evolution.jsonwire.framing import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_DEPTH,
    FramingError,
    JSONStreamDecoder,
    encode_text,
)


class JSONStreamProtocol(Protocol):
    """Frames incoming bytes into JSON values and writes values as lines."""

    max_bytes = DEFAULT_MAX_BYTES
    max_depth = DEFAULT_MAX_DEPTH
    clock: IReactorTime | None = None
    number_grace = 0.0
    write_at_once = False

    def __init__(self) -> None:
        self._decoder: JSONStreamDecoder | None = None
        self._broken = False
        self.messages_sent = 0
        self.sent_before_value = 0
        self._pending_since = 0  # messages_sent when the value still incomplete began to arrive
        self._grace: IDelayedCall | None = None
        self._detached: list[Any] | None = None  # values read but not delivered when the connection moved away

    def connectionMade(self) -> None:
        self._decoder = JSONStreamDecoder(self.max_bytes, self.max_depth)
        self._detached = None
        set_no_delay = getattr(self.transport, "setTcpNoDelay", None)
        if set_no_delay is not None:
            set_no_delay(True)

    def dataReceived(self, data: bytes) -> None:
        decoder = self._decoder
        if self._broken or decoder is None:
            return
        self._cancel_grace()
        now = self.messages_sent
        first_since = self._pending_since if decoder.pending else now
        try:
            values = decoder.feed(data)
        except FramingError as error:
            self._broken = True
            self.badInput(str(error))
            return
        self._pending_since = now if values else first_since
        self._deliver(values, first_since, now)
        if decoder.number_waiting and self.clock is not None and self.number_grace > 0 and self._reading():
            self._grace = self.clock.callLater(self.number_grace, self._grace_over)

    def _reading(self) -> bool:
        return self.connected and not self._broken

    def _deliver(self, values: list[Any], first_since: int, rest_since: int) -> None:
        for index, value in enumerate(values):
            if not self._reading():
                if self._detached is not None:  # moved to another process: these go with it
                    self._detached.extend(values[index:])
                return
            self.sent_before_value = first_since if index == 0 else rest_since
            self.messageReceived(value)

    def _grace_over(self) -> None:
        """No byte followed a complete number within the grace: it is the whole value."""
        self._grace = None
        if self._decoder is not None and self._reading():
            self._deliver(self._decoder.take_number(), self._pending_since, self._pending_since)

    def _cancel_grace(self) -> None:
        if self._grace is not None and self._grace.active():
            self._grace.cancel()
        self._grace = None

    def connectionLost(self, reason: Failure = None) -> None:
        self.connected = False
        self._cancel_grace()

    def sendMessage(self, value: Any) -> None:
        self.sendEncoded(encode_text(value))

    def sendEncoded(self, text: str) -> None:
        """Write one value given as its JSON text (one line: compact, no newline in it)."""
        if self.transport is not None and self.connected:
            data = text.encode("utf-8") + b"\n"
            if self.write_at_once:
                write_now(self.transport, data)
            else:
                self.transport.write(data)
            self.messages_sent += 1

    def read_waiting(self) -> None:
        """Read what the socket holds now (on a TCP connection; elsewhere the reactor reads it on its next pass)."""
        transport = self.transport
        if self._reading() and isinstance(transport, Connection) and not transport.TLS:
            transport.doRead()  # an end of stream or error here is seen again, and handled, by the reactor

    def set_max_bytes(self, max_bytes: int) -> None:
        """From now on a message may be as long as ``max_bytes``."""
        self.max_bytes = max_bytes
        if self._decoder is not None:
            self._decoder.max_bytes = max_bytes

    def stop_reading(self) -> None:
        """Read nothing more (what arrives stays in the kernel) until the connection is closed."""
        self._broken = True
        self._cancel_grace()
        if self.transport is not None:
            self.transport.pauseProducing()

    def close(self) -> None:
        """Stop reading and close the connection once written data is flushed."""
        self._broken = True
        self._cancel_grace()
        if self.transport is not None:
            self.transport.loseConnection()

    def detach(self) -> None:
        """Stop, leaving the connection open: another process takes it (``evolution.net.handover.take``).

        The transport is forgotten, not closed. What was read and not handed
        on is ``unread()``, once the read under way (if this was called from
        within it) has ended.
        """
        self._detached = []
        self.connected = False
        self._cancel_grace()
        self.transport = None

    def unread(self) -> bytes:
        """After ``detach``: what was read and not handed on, as bytes to feed the next owner.

        Values of the read under way that were not delivered come first,
        written out again, then the bytes of a value still incomplete.
        """
        undelivered = b"".join(encode_text(value).encode("utf-8") + b"\n" for value in self._detached or ())
        return undelivered + (self._decoder.unframed() if self._decoder is not None else b"")

    def resume(self, unread: bytes) -> None:
        """Carry on (on a new transport, after ``connectionMade``) from bytes another owner had read."""
        if unread:
            self.dataReceived(unread)

    def messageReceived(self, value: Any) -> None:
        raise NotImplementedError

    def badInput(self, reason: str) -> None:
        raise NotImplementedError


def write_now(transport: Any, data: bytes) -> None:
    """Hand ``data`` to the kernel now if nothing is waiting before it on this TCP connection; else buffer it.

    What the kernel does not take at once (its buffer is full: the peer is
    not reading) goes to the transport's buffer, which the reactor sends on
    in order. TLS connections and other transports always buffer.
    """
    if (
        isinstance(transport, Connection)
        and not transport.TLS
        and transport.connected
        and not transport.disconnecting
        and not transport.dataBuffer
        and not getattr(transport, "_tempDataBuffer", True)  # Twisted's second buffer: empty
    ):
        try:
            sent = transport.socket.send(data)
        except OSError:  # would block, or the connection broke: the reactor's write reports it
            sent = 0
        data = data[sent:]
    if data:
        transport.write(data)
