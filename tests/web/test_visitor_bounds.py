"""The web view's CPU budget (``evolution.web.visitor_bounds.CPUBudget``): requests wait while its process is over it.

The budget's arithmetic with a CPU counter and a clock the test moves; then a
real ``BoundedSite`` on loopback TCP, asked by a raw HTTP client, whose
waits run on a ``twisted.internet.task.Clock`` and whose CPU counter the
test moves as if an answer had cost a second.
"""

from __future__ import annotations

from typing import Any

import pytest
from twisted.internet import reactor
from twisted.internet.endpoints import TCP4ClientEndpoint, TCP4ServerEndpoint, connectProtocol
from twisted.internet.protocol import Protocol
from twisted.internet.task import Clock
from twisted.logger import capturedLogs
from twisted.trial import unittest
from twisted.web.resource import Resource

from evolution.web.visitor_bounds import HEADERS_LIMIT, BoundedSite, CPUBudget
from tests.support.hosting import until


class Meter:
    """A CPU counter and a wall clock, moved by hand."""

    def __init__(self) -> None:
        self.cpu = 0.0
        self.now = 0.0

    def budget(self, share: float, burst: float) -> CPUBudget:
        return CPUBudget(share, burst, cpu=lambda: self.cpu, clock=lambda: self.now)


def test_a_burst_is_spent_at_once_then_a_share_of_the_time():
    meter = Meter()
    budget = meter.budget(share=0.05, burst=0.25)
    assert budget.wait() == 0
    meter.cpu += 0.2
    assert budget.wait() == 0  # 0.05 s of the burst left
    meter.cpu += 0.15  # 0.1 s over
    assert budget.wait() == pytest.approx(0.1 / 0.05, abs=0.01)
    meter.now += 1.0  # 0.05 s earned back: still over
    assert budget.wait() == pytest.approx(0.05 / 0.05, abs=0.01)
    meter.now += 1.01
    assert budget.wait() == 0


def test_idle_time_earns_back_no_more_than_the_burst():
    meter = Meter()
    budget = meter.budget(share=0.05, burst=0.25)
    meter.now += 3600.0
    meter.cpu += 0.3
    assert budget.wait() == pytest.approx(0.05 / 0.05, abs=0.01)


class Counted(Resource):
    isLeaf = True

    def __init__(self) -> None:
        super().__init__()
        self.rendered = 0

    def render_GET(self, request: Any) -> bytes:
        self.rendered += 1
        return b"answer %d" % self.rendered


class Reader(Protocol):
    def __init__(self) -> None:
        self.received = b""
        self.lost = False

    def dataReceived(self, data: bytes) -> None:
        self.received += data

    def connectionLost(self, reason: Any = None) -> None:
        self.lost = True


REQUEST = b"GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


class BudgetedSiteTests(unittest.TestCase):
    timeout = 30
    async def serve(self) -> tuple[Meter, Clock, Counted, BoundedSite, Reader]:
        meter, clock, resource = Meter(), Clock(), Counted()
        budget = CPUBudget(share=0.1, burst=0.01, cpu=lambda: meter.cpu, clock=clock.seconds)
        site = BoundedSite(resource, budget=budget, reactor=clock)
        port = await TCP4ServerEndpoint(reactor, 0, interface="127.0.0.1").listen(site)
        self.addCleanup(port.stopListening)
        reader = Reader()
        await connectProtocol(TCP4ClientEndpoint(reactor, "127.0.0.1", port.getHost().port), reader)
        self.addCleanup(lambda: reader.transport.loseConnection())
        return meter, clock, resource, site, reader

    async def test_a_request_over_the_budget_is_answered_once_the_budget_allows(self) -> None:
        meter, clock, resource, site, reader = await self.serve()
        reader.transport.write(REQUEST)
        await until(lambda: b"answer 1" in reader.received)

        meter.cpu += 1.0  # the first answer cost a second: 0.99 s over, 9.9 s at a tenth of a core
        reader.transport.write(REQUEST)
        await until(lambda: site.budget.held == 1)
        clock.advance(9.8)
        self.assertEqual(resource.rendered, 1)
        self.assertNotIn(b"answer 2", reader.received)
        clock.advance(0.2)
        await until(lambda: b"answer 2" in reader.received)
        self.assertEqual(resource.rendered, 2)

    async def test_a_request_held_for_a_connection_since_closed_is_never_answered(self) -> None:
        meter, clock, resource, site, reader = await self.serve()
        meter.cpu += 1.0
        reader.transport.write(REQUEST)
        await until(lambda: site.budget.held == 1)
        reader.transport.loseConnection()
        await until(lambda: site.open_connections == 0)
        clock.advance(60)
        self.assertEqual(resource.rendered, 0)

    async def test_the_log_says_requests_wait_at_most_once_a_minute(self) -> None:
        meter, clock, resource, site, reader = await self.serve()
        said = []
        with capturedLogs() as events:
            for count, at in enumerate((0.0, 10.0, 70.0), start=1):  # each request held, then answered
                clock.advance(at - clock.seconds())
                meter.cpu += 1.0
                reader.transport.write(REQUEST)
                await until(lambda: site.budget.held == count)
                said.append([event["log_format"].format(**event) for event in events
                             if "CPU budget" in event.get("log_format", "")])
                clock.advance(10)
                await until(lambda: b"answer %d" % count in reader.received)
        line = "the web view is over its CPU budget (10% of a core beyond 0.01 s): requests wait their turn"
        self.assertEqual(said[0], [f"{line} (1 so far)"])
        self.assertEqual(said[1], said[0])  # 10 s later: nothing more
        self.assertEqual(said[2], [f"{line} (1 so far)", f"{line} (3 so far)"])


async def connect(port: int, bind: str = "127.0.0.1") -> Reader:
    reader = Reader()
    await connectProtocol(TCP4ClientEndpoint(reactor, "127.0.0.1", port, bindAddress=(bind, 0)), reader)
    return reader


class SlowClientTests(unittest.TestCase):
    """Slowloris: many connections that send a request's headers a byte at a time, from one address."""

    timeout = 60

    async def serve(self) -> tuple[Clock, BoundedSite, int]:
        clock = Clock()  # the site's timers (the headers' limit); the connections are real
        site = BoundedSite(Counted(), reactor=clock)
        port = await TCP4ServerEndpoint(reactor, 0, interface="127.0.0.1").listen(site)
        self.addCleanup(port.stopListening)
        return clock, site, port.getHost().port

    def closing(self, readers: list[Reader]) -> None:
        self.addCleanup(lambda: [reader.transport.loseConnection() for reader in readers if not reader.lost])

    async def test_a_requests_headers_must_arrive_within_the_limit_of_its_first_byte(self) -> None:
        clock, site, port = await self.serve()
        slow, prompt = await connect(port), await connect(port)
        self.closing([slow, prompt])
        slow.transport.write(b"GET /x HTTP/1.1\r\nHo")
        prompt.transport.write(REQUEST)
        await until(lambda: b"answer 1" in prompt.received)
        with capturedLogs() as events:
            clock.advance(HEADERS_LIMIT - 0.1)
            slow.transport.write(b"s")  # a byte now and then buys no time
            clock.advance(0.2)
            await until(lambda: slow.lost)
        self.assertEqual(slow.received, b"")
        self.assertEqual(site.headers_late, 1)
        said = [e["log_format"].format(**e) for e in events if "headers took" in e.get("log_format", "")]
        self.assertEqual(said, ["the web view cut a connection whose request headers took more than 10 s (a slow "
                                "client, or an attack): 1 so far"])
        self.assertFalse(prompt.lost)  # an idle keep-alive connection waits for its next request: no limit
        clock.advance(HEADERS_LIMIT * 3)
        self.assertFalse(prompt.lost)
        timers = len(clock.getDelayedCalls())
        prompt.transport.write(b"GET /x HTTP/1.1\r\n")  # its next request has the limit again, from its first byte
        await until(lambda: len(clock.getDelayedCalls()) == timers + 1)
        clock.advance(HEADERS_LIMIT + 0.1)
        await until(lambda: prompt.lost)
        self.assertEqual(site.headers_late, 2)

    async def test_honest_requests_are_answered_while_four_hundred_slow_connections_come_from_one_address(self):
        clock, site, port = await self.serve()
        crowd = []
        self.closing(crowd)
        for _ in range(400):
            reader = await connect(port, "127.0.0.2")
            reader.transport.write(b"GET /x HTTP/1.1\r\nHost: a")
            crowd.append(reader)
        await until(lambda: sum(1 for reader in crowd if reader.lost) == 400 - site.per_address)
        self.assertEqual(site.by_address["127.0.0.2"], site.per_address)  # a quarter of the 256 slots
        refused = [reader for reader in crowd if reader.lost]
        self.assertTrue(all(reader.received.startswith(b"HTTP/1.1 503") for reader in refused))
        honest = [await connect(port) for _ in range(20)]
        self.closing(honest)
        for reader in honest:
            reader.transport.write(REQUEST)
        await until(lambda: all(b"answer" in reader.received for reader in honest))
        self.assertTrue(all(reader.received.startswith(b"HTTP/1.1 200") for reader in honest))
        clock.advance(HEADERS_LIMIT)  # the slow ones held their slots no longer than the limit
        await until(lambda: all(reader.lost for reader in crowd))
        self.assertEqual(site.headers_late, site.per_address)
        self.assertNotIn("127.0.0.2", site.by_address)
