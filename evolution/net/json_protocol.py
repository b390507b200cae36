"""A Twisted protocol that speaks a stream of JSON values.

Offers ``JSONStreamProtocol``: subclasses implement ``messageReceived(value)``
and ``badInput(reason)`` (called once when the peer's bytes cannot be framed;
nothing more is read after it) and send with ``sendMessage(value)``.
"""

from __future__ import annotations

from typing import Any

from twisted.internet.protocol import Protocol
from twisted.python.failure import Failure

from evolution.wire.framing import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_DEPTH,
    FramingError,
    JSONStreamDecoder,
    encode_message,
)


class JSONStreamProtocol(Protocol):
    """Frames incoming bytes into JSON values and writes values as lines."""

    max_bytes = DEFAULT_MAX_BYTES
    max_depth = DEFAULT_MAX_DEPTH

    def __init__(self) -> None:
        self._decoder: JSONStreamDecoder | None = None
        self._broken = False

    def connectionMade(self) -> None:
        self._decoder = JSONStreamDecoder(self.max_bytes, self.max_depth)

    def dataReceived(self, data: bytes) -> None:
        if self._broken or self._decoder is None:
            return
        try:
            values = self._decoder.feed(data)
        except FramingError as error:
            self._broken = True
            self.badInput(str(error))
            return
        for value in values:
            if self._broken or not self.connected:
                return
            self.messageReceived(value)

    def connectionLost(self, reason: Failure = None) -> None:
        self.connected = False

    def sendMessage(self, value: Any) -> None:
        if self.transport is not None and self.connected:
            self.transport.write(encode_message(value))

    def close(self) -> None:
        """Stop reading and close the connection once written data is flushed."""
        self._broken = True
        if self.transport is not None:
            self.transport.loseConnection()

    def messageReceived(self, value: Any) -> None:
        raise NotImplementedError

    def badInput(self, reason: str) -> None:
        raise NotImplementedError
