"""Time limits swept by one timer, instead of a timer for every call.

Offers ``Deadlines(clock)``: ``add(seconds, limit)`` watches ``limit``, an
object with an ``active`` attribute and an ``expire()`` method; once
``seconds`` have passed on the clock, ``expire()`` is called if ``limit``
is still ``active``. A limit that ends sooner (a reply came) only sets
``active`` to false: nothing is cancelled, and the timer is not moved.

How: the limits wait in a heap by due time; one ``callLater`` is armed for
the earliest limit still active. When it fires, every due limit is handled
in due order, and limits no longer active are dropped from the top of the
heap, due or not, so the timer is next armed for a limit that may really
expire: with a steady stream of calls answered in time it fires about once
per limit's length, not once per call.

``stop()`` (the host is stopping) forgets every limit and disarms the timer
for good: a limit added later (a game the host has just aborted asking its
next player, before that player's connection is seen closed) is never armed.
"""

from __future__ import annotations

from heapq import heappop, heappush
from itertools import count
from typing import Any, Protocol

from twisted.internet.interfaces import IDelayedCall, IReactorTime


class Limit(Protocol):
    active: bool

    def expire(self) -> None: ...


class Deadlines:
    """Every pending time limit on one clock, and the one timer that sweeps them."""

    def __init__(self, clock: IReactorTime) -> None:
        self.clock = clock
        self._heap: list[tuple[float, int, Any]] = []
        self._order = count()  # ties in due time keep the order they were added in
        self._timer: IDelayedCall | None = None
        self.stopped = False
        self.replies: Any = None  # how long the answers to these limits' questions took (remote_seat.ReplyTimes)

    def add(self, seconds: float, limit: Limit) -> None:
        if self.stopped:
            return
        now = self.clock.seconds()
        heap = self._heap
        heappush(heap, (now + seconds, next(self._order), limit))
        first = heap[0][0]
        if self._timer is None:
            self._timer = self.clock.callLater(max(0.0, first - now), self._sweep)
        elif first < self._timer.getTime():
            self._timer.reset(max(0.0, first - now))

    def __len__(self) -> int:
        """How many limits are still active."""
        return sum(1 for _, _, limit in self._heap if limit.active)

    def _sweep(self) -> None:
        self._timer = None
        heap = self._heap
        now = self.clock.seconds()
        while heap and heap[0][0] <= now:
            limit = heappop(heap)[2]
            if limit.active:
                limit.expire()  # may add limits (a reply read at the last moment asks the next question)
        while heap and not heap[0][2].active:
            heappop(heap)
        if heap and self._timer is None:  # (an expire() that added a limit has armed it already)
            self._timer = self.clock.callLater(max(0.0, heap[0][0] - self.clock.seconds()), self._sweep)

    def stop(self) -> None:
        """Forget every limit and disarm the timer, for good."""
        self.stopped = True
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None
        self._heap.clear()
