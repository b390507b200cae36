"""Bounds on what web visitors can make the web view hold: per connection and in total.

Offers ``BoundedSite(resource, max_connections, timeout)``, the
``twisted.web`` site of the web view, and ``PacedChannel``, its HTTP/1.1
connection.

- **Per connection, pipelined requests are read only as fast as answers are
  taken.** Twisted's ``HTTPChannel`` already stops reading while it answers
  one request (beyond 16 KiB of what follows) and once its transport's
  buffer is full; but when an answer is done it goes on at once to the
  requests already read behind it, answering each into the send buffer, so
  one connection pipelining 2,000 replays and never reading grew the host
  by 440 MB. ``PacedChannel`` holds those requests while answers wait in
  the send buffer (Twisted pauses the channel once the buffer holds more
  than its 64 KiB), and goes on when the buffer has drained; a connection
  held that way for ``STALL_LIMIT`` seconds is dropped. A connection then
  holds at most: the transport's 64 KiB, the last answer written, what it
  read ahead (16 KiB and one read, 64 KiB) and one request.
- **In total, at most ``max_connections`` at once**: one more is answered
  503 and closed before it is read. An idle connection is closed after
  ``timeout`` seconds (Twisted's default is 12 hours), one that does not
  take its last answer then aborted after 15 s more.
- **No access log**: a flood of requests would be a flood of lines in the
  host's log.
"""

from __future__ import annotations

from typing import Any

from twisted.internet.protocol import Protocol
from twisted.web.http import HTTPChannel
from twisted.web.server import Site

MAX_CONNECTIONS = 256
IDLE_TIMEOUT = 60.0
STALL_LIMIT = 30.0
_BUSY_BODY = b'{"error":"the web view has too many visitors; try again in a moment"}'
BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 10\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(_BUSY_BODY), _BUSY_BODY))


class PacedChannel(HTTPChannel):
    """An HTTP/1.1 connection that answers pipelined requests only as fast as the answers are taken."""

    _holding = False
    _stall: Any = None

    def requestDone(self, request: Any) -> None:
        if not (self.persistent and self._waitingForTransport):
            super().requestDone(request)
            return
        # As HTTPChannel.requestDone, but the requests read behind this one wait for the buffer to drain.
        if request != self.requests[0]:
            raise TypeError
        del self.requests[0]
        self._holding = True
        self._networkProducer.pauseProducing()
        self._stall = self.callLater(STALL_LIMIT, self._stalled)

    def resumeProducing(self) -> None:
        if not self._holding:
            super().resumeProducing()
            return
        self._holding = False
        self._waitingForTransport = False
        self._handlingRequest = False
        if self._stall is not None and self._stall.active():
            self._stall.cancel()
        if self._savedTimeOut:
            self.setTimeout(self._savedTimeOut)
        self._networkProducer.resumeProducing()
        data, self._dataBuffer = b"".join(self._dataBuffer), []
        self.setLineMode(data)

    def _stalled(self) -> None:
        if self._holding and self.transport is not None:
            self.transport.abortConnection()

    def connectionLost(self, reason: Any = None) -> None:
        if self._stall is not None and self._stall.active():
            self._stall.cancel()
        super().connectionLost(reason)
        site = getattr(self, "site", None)
        if isinstance(site, BoundedSite):
            site.open_connections -= 1


class _TooMany(Protocol):
    """A connection beyond the limit: 503, closed at once, nothing read."""

    def connectionMade(self) -> None:
        self.transport.write(BUSY)
        self.transport.loseConnection()


class BoundedSite(Site):
    """The web view's site: paced connections, at most ``max_connections`` of them, idle ones closed."""

    protocol = PacedChannel

    def __init__(self, resource: Any, max_connections: int = MAX_CONNECTIONS, timeout: float = IDLE_TIMEOUT) -> None:
        super().__init__(resource, timeout=timeout)
        self.max_connections = max_connections
        self.open_connections = 0
        self.turned_away = 0

    def log(self, request: Any) -> None:
        """No line per request (see the module's docstring)."""

    def buildProtocol(self, addr: Any) -> Any:
        if self.open_connections >= self.max_connections:
            self.turned_away += 1
            return _TooMany()
        self.open_connections += 1
        return super().buildProtocol(addr)
