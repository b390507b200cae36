"""Bounds on what web visitors can make the web view hold: per connection and in total.

Offers ``BoundedSite(resource, max_connections, timeout, budget)``, the
``twisted.web`` site of the web view (at most ``max_connections`` at once,
and a quarter of them from one address, one more answered 503; idle ones
closed after ``timeout`` seconds; no access log), ``PacedChannel``, its
HTTP/1.1 connection (a request's headers must arrive within
``HEADERS_LIMIT`` seconds of its first byte, else the connection is cut;
pipelined requests read only as fast as answers are taken), and
``CPUBudget``, what its process may spend (a share of a core beyond a burst;
``CPU_SHARE``, ``CPU_BURST``).

Why each bound, and what a connection holds at most: docs/web-view.md,
"Inside the web view".
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any, Callable

from twisted.internet.protocol import Protocol
from twisted.logger import Logger
from twisted.web.http import HTTPChannel
from twisted.web.server import Request, Site

MAX_CONNECTIONS = 256
ADDRESS_SHARE = 4  # one address holds at most 1/ADDRESS_SHARE of the connections (64 of 256)
IDLE_TIMEOUT = 60.0
HEADERS_LIMIT = 10.0  # seconds from a request's first byte (the first request's: from the connection) to its headers
LATE_NOTE_EVERY = 60.0  # seconds between log lines saying connections were cut for slow headers
STALL_LIMIT = 30.0
CPU_SHARE = 0.05  # of one core, over time: the web view's own process
CPU_BURST = 0.25  # seconds of CPU it may spend at once, above its share (a page and its answers)
HELD_NOTE_EVERY = 60.0  # seconds between log lines saying requests wait for the budget

log = Logger()
_BUSY_BODY = b'{"error":"the web view has too many visitors; try again in a moment"}'
BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 10\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(_BUSY_BODY), _BUSY_BODY))


class PacedChannel(HTTPChannel):
    """An HTTP/1.1 connection that answers pipelined requests only as fast as the answers are taken."""

    _holding = False
    _stall: Any = None
    _headers_due: Any = None

    def connectionMade(self) -> None:
        super().connectionMade()
        self._expect_headers()

    def dataReceived(self, data: bytes) -> None:
        if data and self._headers_due is None and not self._handlingRequest:  # a new request begins
            self._expect_headers()
        super().dataReceived(data)

    def allHeadersReceived(self) -> None:
        if self._headers_due is not None and self._headers_due.active():
            self._headers_due.cancel()
        self._headers_due = None
        super().allHeadersReceived()

    def _expect_headers(self) -> None:
        self._headers_due = self.callLater(HEADERS_LIMIT, self._headers_late)

    def _headers_late(self) -> None:
        """A request's headers took too long (a slow client, or slowloris): the connection is cut."""
        self._headers_due = None
        if self.transport is not None:
            site = getattr(self, "site", None)
            if isinstance(site, BoundedSite):
                site.cut()
            self.transport.abortConnection()

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
        for call in (self._stall, self._headers_due):
            if call is not None and call.active():
                call.cancel()
        super().connectionLost(reason)
        site = getattr(self, "site", None)
        if isinstance(site, BoundedSite):
            site.closed(getattr(self.transport.getPeer(), "host", None) if self.transport is not None else None)


class CPUBudget:
    """At most ``share`` of a core over time, after a burst of ``burst`` seconds of CPU: how long to wait first.

    ``wait()`` is 0 while the process has CPU time in hand, else the seconds
    until it has again; ``cpu`` and ``clock`` are its CPU seconds and the time.
    """

    def __init__(
        self, share: float = CPU_SHARE, burst: float = CPU_BURST,
        cpu: Callable[[], float] = time.process_time, clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.share, self.burst, self.cpu, self.clock = share, burst, cpu, clock
        self.in_hand = burst
        self._used, self._at = cpu(), clock()
        self.held = 0  # requests that waited

    def wait(self) -> float:
        used, at = self.cpu(), self.clock()
        self.in_hand = min(self.burst, self.in_hand + (at - self._at) * self.share) - (used - self._used)
        self._used, self._at = used, at
        return 0.0 if self.in_hand > 0 else -self.in_hand / self.share + 0.001  # a moment more: time enough


class BudgetedRequest(Request):
    """A request answered once its site's ``CPUBudget`` has CPU time in hand (a lost one is dropped)."""

    def process(self) -> None:
        wait = self.channel.site.budget.wait()
        if wait <= 0:
            super().process()
            return
        self.channel.site.held()
        self.channel.callLater(wait, self._waited)

    def _waited(self) -> None:
        if not self._disconnected:
            self.process()


class _TooMany(Protocol):
    """A connection beyond the limit: 503, closed at once, nothing read."""

    def connectionMade(self) -> None:
        self.transport.write(BUSY)
        self.transport.loseConnection()


class BoundedSite(Site):
    """The web view's site: paced connections, at most ``max_connections`` of them, idle ones closed.

    With a ``budget`` (``CPUBudget``), requests wait their turn while the process is over it.
    """

    protocol = PacedChannel

    def __init__(
        self, resource: Any, max_connections: int = MAX_CONNECTIONS, timeout: float = IDLE_TIMEOUT,
        budget: CPUBudget | None = None, reactor: Any = None,
    ) -> None:
        super().__init__(resource, timeout=timeout, reactor=reactor)
        self.budget = budget
        self._held_noted = -HELD_NOTE_EVERY
        if budget is not None:
            self.requestFactory = BudgetedRequest
        self.max_connections = max_connections
        self.per_address = max(1, max_connections // ADDRESS_SHARE)
        self.open_connections = 0
        self.by_address: Counter[str] = Counter()
        self.turned_away = 0
        self.headers_late = 0  # connections cut because a request's headers took too long
        self._late_noted = -LATE_NOTE_EVERY

    def held(self) -> None:
        """A request waits for the budget: counted, and said at most every ``HELD_NOTE_EVERY`` seconds."""
        self.budget.held += 1
        now = self.reactor.seconds()
        if now >= self._held_noted + HELD_NOTE_EVERY:
            self._held_noted = now
            log.info("the web view is over its CPU budget ({share:.0%} of a core beyond {burst:g} s): requests wait "
                     "their turn ({held} so far)", share=self.budget.share, burst=self.budget.burst,
                     held=self.budget.held)

    def log(self, request: Any) -> None:
        """No line per request (a flood of requests would be a flood of lines in the host's log)."""

    def buildProtocol(self, addr: Any) -> Any:
        address = getattr(addr, "host", None)
        if self.open_connections >= self.max_connections or self.by_address[address] >= self.per_address:
            self.turned_away += 1
            return _TooMany()
        self.open_connections += 1
        self.by_address[address] += 1
        return super().buildProtocol(addr)

    def closed(self, address: str | None) -> None:
        self.open_connections -= 1
        self.by_address[address] -= 1
        if self.by_address[address] <= 0:
            del self.by_address[address]

    def cut(self) -> None:
        """A connection cut for slow headers: counted, and said at most every ``LATE_NOTE_EVERY`` seconds."""
        self.headers_late += 1
        now = self.reactor.seconds()
        if now >= self._late_noted + LATE_NOTE_EVERY:
            self._late_noted = now
            log.info("the web view cut a connection whose request headers took more than {limit:g} s (a slow "
                     "client, or an attack): {count} so far", limit=HEADERS_LIMIT, count=self.headers_late)
