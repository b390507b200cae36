"""One timer sweeps every call's time limit: due limits expire in order, answered ones never do."""

from __future__ import annotations

from twisted.internet.task import Clock

from evolution.net.deadlines import Deadlines


class Limit:
    def __init__(self, name: str, expired: list[str]) -> None:
        self.name, self.expired, self.active = name, expired, True

    def expire(self) -> None:
        self.active = False
        self.expired.append(self.name)


def test_each_active_limit_expires_at_its_time_and_an_answered_one_never():
    clock, expired = Clock(), []
    deadlines = Deadlines(clock)
    a, b = Limit("a", expired), Limit("b", expired)
    deadlines.add(1.0, a)
    clock.advance(0.25)
    deadlines.add(1.0, b)
    clock.advance(0.74)
    a.active = False  # answered just in time
    clock.advance(0.01)
    assert expired == []
    clock.advance(0.24)
    assert expired == []
    clock.advance(0.01)
    assert expired == ["b"]
    assert clock.getDelayedCalls() == []


def test_a_shorter_limit_added_later_moves_the_timer_forward():
    clock, expired = Clock(), []
    deadlines = Deadlines(clock)
    deadlines.add(5.0, Limit("long", expired))
    deadlines.add(1.0, Limit("short", expired))
    clock.advance(1.0)
    assert expired == ["short"]
    clock.advance(4.0)
    assert expired == ["short", "long"]


def test_many_answered_calls_cost_one_timer_not_one_each():
    clock, expired = Clock(), []
    deadlines = Deadlines(clock)
    for _ in range(500):  # half a second of calls, each answered at once
        limit = Limit("x", expired)
        deadlines.add(1.0, limit)
        limit.active = False
        clock.advance(0.001)
    assert len(clock.getDelayedCalls()) == 1
    clock.advance(1.0)
    assert expired == [] and len(deadlines) == 0 and clock.getDelayedCalls() == []


def test_stop_forgets_every_limit():
    clock, expired = Clock(), []
    deadlines = Deadlines(clock)
    deadlines.add(1.0, Limit("a", expired))
    deadlines.stop()
    clock.advance(2.0)
    assert expired == [] and clock.getDelayedCalls() == []


def test_a_limit_added_after_stop_is_never_armed():
    clock, expired = Clock(), []
    deadlines = Deadlines(clock)
    deadlines.stop()
    deadlines.add(1.0, Limit("late", expired))  # an aborted game asking its next player as the host stops
    assert clock.getDelayedCalls() == []
