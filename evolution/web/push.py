"""Pushing changes to browsers (Server-Sent Events) without ever holding back a game.

Offers ``Hub(clock, interval, tick, keepalive, stall_limit, max_watchers)``:
``watch(request, key, render, interval=None, refresh=None)`` streams a topic
(a page's live picture, "overview", "game/7", rendered whole by ``render``)
to a request, or answers None when too many watch (the caller's 503);
``mark(key)`` says a topic changed (almost free when nobody watches it);
``announce(message)`` sends one message aside on every stream, and to each
stream as it begins while ``banner`` is up (the organiser's announcement);
``forget(watcher)``, ``close()``, ``tickers``. And ``Message`` (one complete
picture: a newer one supersedes the older), ``Watcher`` (one browser's
stream, the push producer of its response) and ``sse_bytes(message)``.

How a change reaches the browsers, and what a slow browser can make the
hub hold: docs/web-view.md, "Inside the web view".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from twisted.internet.defer import Deferred, maybeDeferred
from twisted.internet.interfaces import IDelayedCall, IPushProducer, IReactorTime
from twisted.logger import Logger
from twisted.web.server import Request
from zope.interface import implementer

from evolution.store.reader import Busy

log = Logger()

RETRY_MS = 3000  # how long a browser waits before it reconnects (never sooner than a second)
KEEPALIVE = b": keepalive\n\n"


@dataclass(frozen=True)
class Message:
    """One complete state of a topic; ``last`` ends the topic (a game is over)."""

    event: str
    data: Any
    last: bool = False


def sse_bytes(message: Message) -> bytes:
    data = json.dumps(message.data, separators=(",", ":"))  # ASCII, no newline: one data line
    return f"event: {message.event}\ndata: {data}\n\n".encode("ascii")


@implementer(IPushProducer)
class Watcher:
    """One browser's event stream: writes when its connection can take it, else keeps the latest message."""

    def __init__(self, hub: Hub, topic: Topic, request: Request) -> None:
        self.hub = hub
        self.topic = topic
        self.request = request
        self.paused_since: float | None = None
        self.pending: bytes | None = None  # the latest message while paused
        self.pending_aside: bytes | None = None  # the latest announcement while paused
        self.last: bytes | None = None  # the latest message handed to this watcher
        self.ending = False
        self.closed = False
        self.coalesced = 0

    def send(self, payload: bytes) -> None:
        if self.closed or payload is self.last:
            return
        self.last = payload
        if self.paused_since is not None:
            if self.pending is not None:
                self.coalesced += 1
                self.hub.coalesced += 1
            self.pending = payload
            return
        self.hub.sent += 1
        self.request.write(payload)

    def aside(self, payload: bytes) -> None:
        """A message beside the topic's (the hub's announcement): written now, or first once the browser reads."""
        if self.closed:
            return
        if self.paused_since is not None:
            self.pending_aside = payload
            return
        self.request.write(payload)

    def keepalive(self) -> None:
        if not self.closed and self.paused_since is None:
            self.request.write(KEEPALIVE)

    def end(self) -> None:
        """No more messages: finish the response once the last one is written."""
        self.ending = True
        if self.pending is None and self.paused_since is None:
            self.finish()

    def finish(self) -> None:
        if not self.closed:
            self.closed = True
            self.request.unregisterProducer()
            self.request.finish()
            self.hub.forget(self)

    def abort(self) -> None:
        """Drop a stalled browser: its connection goes, and with it everything kept for it."""
        if not self.closed:
            self.closed = True
            self.hub.dropped += 1
            self.hub.forget(self)
            self.request.unregisterProducer()
            self.request.transport.abortConnection()

    def gone(self, _reason: Any = None) -> None:
        """The browser went away (or the response finished)."""
        self.closed = True
        self.pending = None
        self.hub.forget(self)

    # -- IPushProducer: the connection's flow control --

    def pauseProducing(self) -> None:
        if self.paused_since is None:
            self.paused_since = self.hub.clock.seconds()
            self.hub.paused += 1

    def resumeProducing(self) -> None:
        self.paused_since = None
        aside, self.pending_aside = self.pending_aside, None
        if aside is not None and not self.closed:
            self.request.write(aside)
        payload, self.pending = self.pending, None
        if payload is not None and not self.closed:
            self.hub.sent += 1
            self.request.write(payload)
        if self.ending:
            self.finish()

    def stopProducing(self) -> None:
        self.gone()


@dataclass(eq=False)
class Topic:
    key: str
    render: Callable[[], Message | Deferred[Message]]
    interval: float
    refresh: float | None = None  # re-render every so many seconds (pictures read from the store)
    watchers: set[Watcher] = field(default_factory=set)
    dirty: bool = False
    rendering: bool = False
    flush_at: IDelayedCall | None = None
    flushed: float = float("-inf")  # when the last flush began
    payload: bytes | None = None  # the last message sent
    over: bool = False


class Hub:
    def __init__(
        self,
        clock: IReactorTime,
        interval: float = 0.1,
        tick: float = 1.0,
        keepalive: float = 15.0,
        stall_limit: float = 30.0,
        max_watchers: int = 200,
    ) -> None:
        self.clock = clock
        self.interval = interval
        self.tick_every = tick
        self.keepalive_every = keepalive
        self.stall_limit = stall_limit
        self.max_watchers = max_watchers
        self.topics: dict[str, Topic] = {}
        self.tickers: list[Callable[[], None]] = []
        self.watching = 0
        self.banner: bytes | None = None  # the announcement each stream begins with, while one is up
        self.sent = self.coalesced = self.paused = self.dropped = 0  # counters, for tests and figures
        self._ticking: IDelayedCall | None = None
        self._keepalive_due = 0.0

    # -- watchers come and go --

    def watch(
        self,
        request: Request,
        key: str,
        render: Callable[[], Message | Deferred[Message]],
        interval: float | None = None,
        refresh: float | None = None,
    ) -> Watcher | None:
        """Stream topic ``key`` to ``request``; None (the caller answers 503) when too many watch."""
        if self.watching >= self.max_watchers:
            return None
        topic = self.topics.get(key)
        if topic is None:
            topic = self.topics[key] = Topic(key, render, self.interval if interval is None else interval, refresh)
        watcher = Watcher(self, topic, request)
        topic.watchers.add(watcher)
        self.watching += 1
        request.registerProducer(watcher, True)
        request.notifyFinish().addBoth(watcher.gone)
        request.write(f"retry: {RETRY_MS}\n\n".encode("ascii"))
        if self.banner is not None:
            request.write(self.banner)
        if topic.payload is not None and (topic.over or not topic.dirty):
            watcher.send(topic.payload)
        else:
            self.mark(key)
        if topic.over:
            watcher.end()
        self._start_ticking()
        return watcher

    def forget(self, watcher: Watcher) -> None:
        topic = watcher.topic
        if watcher in topic.watchers:
            topic.watchers.discard(watcher)
            self.watching -= 1
            if not topic.watchers:
                self._drop_topic(topic)

    def _drop_topic(self, topic: Topic) -> None:
        if self.topics.get(topic.key) is topic:
            del self.topics[topic.key]
        if topic.flush_at is not None and topic.flush_at.active():
            topic.flush_at.cancel()
        topic.flush_at = None

    def close(self) -> None:
        """The web service stops: end every stream."""
        for topic in list(self.topics.values()):
            for watcher in list(topic.watchers):
                watcher.finish()
        if self._ticking is not None and self._ticking.active():
            self._ticking.cancel()
        self._ticking = None

    # -- changes --

    def announce(self, message: Message, up: bool = True) -> None:
        """``message`` to every stream now (aside from its topic's), and while ``up`` to each that begins."""
        payload = sse_bytes(message)
        self.banner = payload if up else None
        for topic in list(self.topics.values()):
            for watcher in list(topic.watchers):
                watcher.aside(payload)

    def mark(self, key: str) -> None:
        """Topic ``key`` changed: flush it soon (no sooner than ``interval`` after the last flush)."""
        topic = self.topics.get(key)
        if topic is None or topic.dirty or topic.over:
            return
        topic.dirty = True
        if not topic.rendering:
            self._schedule(topic)

    def _schedule(self, topic: Topic) -> None:
        delay = max(0.0, topic.flushed + topic.interval - self.clock.seconds())
        topic.flush_at = self.clock.callLater(delay, self._flush, topic)

    def _flush(self, topic: Topic) -> None:
        topic.flush_at = None
        if not topic.watchers:
            return
        topic.dirty = False
        topic.rendering = True
        topic.flushed = self.clock.seconds()
        rendered = maybeDeferred(topic.render)
        rendered.addCallback(self._deliver, topic)
        rendered.addErrback(self._not_drawn, topic)
        rendered.addBoth(self._rendered, topic)

    @staticmethod
    def _not_drawn(failure: Any, topic: Topic) -> None:
        if not failure.check(Busy):  # a store that does not answer is logged by its reader, once
            log.failure("the web view could not draw {topic}", failure, topic=topic.key)

    def _rendered(self, _: Any, topic: Topic) -> None:
        topic.rendering = False
        if topic.dirty and not topic.over and topic.watchers and self.topics.get(topic.key) is topic:
            self._schedule(topic)

    def _deliver(self, message: Message | None, topic: Topic) -> None:
        if message is None:
            return
        payload = sse_bytes(message)
        if payload != topic.payload:
            topic.payload = payload
        for watcher in list(topic.watchers):
            watcher.send(topic.payload)  # a no-op for a watcher that has it; one that came since gets it
        if message.last:  # the topic stays until its watchers are gone: a paused one may still stall
            topic.over = True
            for watcher in list(topic.watchers):
                watcher.end()

    # -- the tick: only while anyone watches --

    def _start_ticking(self) -> None:
        if self._ticking is None:
            self._keepalive_due = self.clock.seconds() + self.keepalive_every
            self._ticking = self.clock.callLater(self.tick_every, self._tick)

    def _tick(self) -> None:
        if not self.watching:
            self._ticking = None
            return
        self._ticking = self.clock.callLater(self.tick_every, self._tick)
        now = self.clock.seconds()
        for ticker in list(self.tickers):
            ticker()
        keepalive = now >= self._keepalive_due
        if keepalive:
            self._keepalive_due = now + self.keepalive_every
        for topic in list(self.topics.values()):
            if topic.refresh is not None and now - topic.flushed >= topic.refresh:
                self.mark(topic.key)
            for watcher in list(topic.watchers):
                if watcher.paused_since is not None and now - watcher.paused_since >= self.stall_limit:
                    watcher.abort()
                elif keepalive:
                    watcher.keepalive()
