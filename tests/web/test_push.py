"""The push hub: one render per change per topic, a bounded queue per watcher, stalled watchers dropped.

Time is a ``task.Clock``; requests are fakes that record what they are sent
and let a test pause and resume them as a full socket would.
"""

from __future__ import annotations

import json

from twisted.internet.defer import Deferred
from twisted.internet.task import Clock

from evolution.web.push import KEEPALIVE, Hub, Message, sse_bytes


class FakeTransport:
    def __init__(self) -> None:
        self.aborted = False

    def abortConnection(self) -> None:
        self.aborted = True


class FakeRequest:
    """The part of ``twisted.web.server.Request`` an event stream uses."""

    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.producer = None
        self.finished = False
        self.transport = FakeTransport()
        self._finish: Deferred = Deferred()

    def write(self, data: bytes) -> None:
        assert not self.finished
        self.written.append(data)

    def registerProducer(self, producer, streaming: bool) -> None:
        assert streaming
        self.producer = producer

    def unregisterProducer(self) -> None:
        self.producer = None

    def notifyFinish(self) -> Deferred:
        return self._finish

    def finish(self) -> None:
        self.finished = True
        self._finish.callback(None)

    def lose(self) -> None:
        """The browser went away."""
        self._finish.errback(ConnectionError("gone"))

    def events(self) -> list[tuple[str, object]]:
        found = []
        for chunk in self.written:
            if chunk.startswith(b"event: "):
                head, data = chunk.decode().split("\n")[:2]
                found.append((head[len("event: "):], json.loads(data[len("data: "):])))
        return found


class Counter:
    """A topic's picture: counts how often it is drawn."""

    def __init__(self) -> None:
        self.state = 0
        self.renders = 0

    def __call__(self) -> Message:
        self.renders += 1
        return Message("state", {"n": self.state})


def hub(**settings) -> tuple[Hub, Clock]:
    clock = Clock()
    return Hub(clock, **settings), clock


def test_a_new_watcher_gets_the_picture_at_once_then_each_change_at_most_once_an_interval():
    the_hub, clock = hub(interval=0.1)
    picture = Counter()
    request = FakeRequest()
    the_hub.watch(request, "game/1", picture)
    assert request.written[0] == b"retry: 3000\n\n"
    clock.advance(0)
    assert request.events() == [("state", {"n": 0})]
    for n in range(1, 50):  # fifty steps of a fast game within one interval
        picture.state = n
        the_hub.mark("game/1")
        clock.advance(0.001)
    clock.advance(0.1)
    assert request.events() == [("state", {"n": 0}), ("state", {"n": 49})]
    assert picture.renders == 2


def test_marks_of_a_topic_nobody_watches_cost_nothing():
    the_hub, clock = hub()
    the_hub.mark("game/9")
    assert clock.getDelayedCalls() == []


def test_one_render_serves_every_watcher_and_an_unchanged_picture_is_not_sent_again():
    the_hub, clock = hub()
    picture = Counter()
    requests = [FakeRequest() for _ in range(5)]
    for request in requests:
        the_hub.watch(request, "overview", picture)
    clock.advance(0)
    the_hub.mark("overview")
    clock.advance(1)
    assert picture.renders == 2
    assert all(request.events() == [("state", {"n": 0})] for request in requests)
    assert len({id(request.written[1]) for request in requests}) == 1  # the same bytes object for all


def test_a_paused_watcher_keeps_only_the_latest_picture_and_writes_it_on_resume():
    the_hub, clock = hub(interval=0.01)
    picture = Counter()
    slow, fast = FakeRequest(), FakeRequest()
    the_hub.watch(slow, "game/1", picture)
    the_hub.watch(fast, "game/1", picture)
    clock.advance(0)
    slow.producer.pauseProducing()  # its socket is full
    for n in range(1, 100):
        picture.state = n
        the_hub.mark("game/1")
        clock.advance(0.01)
    watcher = slow.producer
    assert watcher.pending == sse_bytes(Message("state", {"n": 99}))
    assert len(slow.events()) == 1 and len(fast.events()) == 100
    assert watcher.coalesced == 98
    slow.producer.resumeProducing()
    assert slow.events() == [("state", {"n": 0}), ("state", {"n": 99})]
    assert watcher.pending is None


def test_a_watcher_paused_too_long_is_dropped_and_forgotten():
    the_hub, clock = hub(stall_limit=5, tick=1)
    request = FakeRequest()
    the_hub.watch(request, "overview", Counter())
    clock.advance(0)
    request.producer.pauseProducing()
    clock.advance(4)
    assert not request.transport.aborted
    clock.advance(1)
    assert request.transport.aborted
    assert (the_hub.watching, the_hub.dropped, the_hub.topics) == (0, 1, {})


def test_keepalive_comments_go_to_watchers_that_can_take_them():
    the_hub, clock = hub(keepalive=15, tick=1)
    request = FakeRequest()
    the_hub.watch(request, "overview", Counter())
    clock.advance(14)
    assert KEEPALIVE not in request.written
    clock.advance(1)
    assert request.written.count(KEEPALIVE) == 1


def test_the_tick_runs_only_while_someone_watches():
    the_hub, clock = hub(tick=1)
    ticks = []
    the_hub.tickers.append(lambda: ticks.append(clock.seconds()))
    request = FakeRequest()
    the_hub.watch(request, "overview", Counter())
    clock.pump([1, 1])
    request.lose()
    clock.pump([1] * 5)
    assert ticks == [1, 2]
    assert clock.getDelayedCalls() == []


def test_a_last_message_ends_every_stream_once_written():
    the_hub, clock = hub()
    over = {"done": False}

    def picture() -> Message:
        return Message("over", {"id": 1}, last=True) if over["done"] else Message("game", {"id": 1})

    ready, paused = FakeRequest(), FakeRequest()
    the_hub.watch(ready, "game/1", picture)
    the_hub.watch(paused, "game/1", picture)
    clock.advance(0)
    paused.producer.pauseProducing()
    watcher = paused.producer
    over["done"] = True
    the_hub.mark("game/1")
    clock.advance(1)
    assert ready.finished and ready.events()[-1] == ("over", {"id": 1})
    assert not paused.finished
    watcher.resumeProducing()
    assert paused.finished and paused.events()[-1] == ("over", {"id": 1})
    assert (the_hub.watching, the_hub.topics) == (0, {})


def test_no_more_than_max_watchers():
    the_hub, _ = hub(max_watchers=2)
    assert the_hub.watch(FakeRequest(), "a", Counter()) is not None
    assert the_hub.watch(FakeRequest(), "b", Counter()) is not None
    assert the_hub.watch(FakeRequest(), "c", Counter()) is None


def test_a_picture_drawn_later_holds_back_the_next_flush_until_it_is_done():
    the_hub, clock = hub(interval=0.1)
    drawing: list[Deferred] = []

    def picture() -> Deferred:
        drawing.append(Deferred())
        return drawing[-1]

    request = FakeRequest()
    the_hub.watch(request, "tournament/1", picture)
    clock.advance(0)
    the_hub.mark("tournament/1")
    clock.advance(1)
    assert len(drawing) == 1  # still drawing the first: no second render meanwhile
    drawing[0].callback(Message("tournament", {"round": 1}))
    clock.advance(0.1)
    assert len(drawing) == 2
    assert request.events() == [("tournament", {"round": 1})]


def test_closing_the_hub_ends_every_stream():
    the_hub, clock = hub()
    requests = [FakeRequest() for _ in range(3)]
    for n, request in enumerate(requests):
        the_hub.watch(request, f"game/{n}", Counter())
    the_hub.close()
    assert all(request.finished for request in requests)
    assert the_hub.watching == 0 and clock.getDelayedCalls() == []


def test_a_topic_that_ended_stays_until_its_stalled_watcher_is_dropped():
    the_hub, clock = hub(stall_limit=3, tick=1)
    over = {"done": False}

    def picture() -> Message:
        return Message("over", {}, last=True) if over["done"] else Message("game", {})

    request = FakeRequest()
    the_hub.watch(request, "game/1", picture)
    clock.advance(0)
    request.producer.pauseProducing()
    over["done"] = True
    the_hub.mark("game/1")
    clock.advance(0.5)
    assert "game/1" in the_hub.topics and not request.finished
    clock.pump([1, 1, 1])
    assert request.transport.aborted
    assert (the_hub.watching, the_hub.topics) == (0, {})


def test_a_watcher_that_comes_while_a_flush_is_due_gets_the_picture_even_if_it_did_not_change():
    the_hub, clock = hub(interval=0.1)
    picture = Counter()
    first, second = FakeRequest(), FakeRequest()
    the_hub.watch(first, "tournament/1", picture)
    clock.advance(0)
    the_hub.mark("tournament/1")  # a periodic re-read of the store, say: the picture is the same
    the_hub.watch(second, "tournament/1", picture)
    clock.advance(0.1)
    assert picture.renders == 2
    assert first.events() == [("state", {"n": 0})]
    assert second.events() == [("state", {"n": 0})]


def test_an_announcement_goes_beside_every_topic_and_begins_each_new_stream_while_it_is_up():
    the_hub, clock = hub(interval=0.1)
    counter = Counter()
    watching, paused = FakeRequest(), FakeRequest()
    the_hub.watch(watching, "overview", counter)
    the_hub.watch(paused, "game/1", counter)
    clock.advance(0.1)
    paused.producer.pauseProducing()
    the_hub.announce(Message("announcement", {"text": "first"}))
    the_hub.announce(Message("announcement", {"text": "second"}))
    assert watching.events()[-2:] == [("announcement", {"text": "first"}), ("announcement", {"text": "second"})]
    assert ("announcement", {"text": "first"}) not in paused.events()  # a stalled browser gets only the latest
    paused.producer.resumeProducing()
    assert paused.events()[-1] == ("announcement", {"text": "second"})
    later = FakeRequest()
    the_hub.watch(later, "overview", counter)
    assert later.events() == [("announcement", {"text": "second"}), ("state", {"n": 0})]  # before the picture
    the_hub.announce(Message("announcement", None), up=False)
    assert watching.events()[-1] == ("announcement", None)
    last = FakeRequest()
    the_hub.watch(last, "ladder", counter)
    clock.advance(0.1)
    assert [event for event, _ in last.events()] == ["state"]
