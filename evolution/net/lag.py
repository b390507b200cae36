# -*- test-case-name: tests.net.test_time_limits -*-
"""How late the reactor runs: a cheap periodic probe that says when the host is overloaded.

Offers ``LagProbe(clock, every=0.05, high=0.1, low=0.05)``. Once started, a
timer fires every ``every`` seconds; ``lag`` is how late it last ran (the
time the reactor was busy elsewhere when it was due). ``overloaded`` turns
true when a lag exceeds ``high`` and false again once one is below ``low``
(two thresholds, so that it does not flutter); ``watch(callback)`` hears
every change as ``callback(overloaded)``. ``stop()`` disarms the timer.

The game lobby (``evolution.net.lobbies.GameLobby``) holds new games while
the host is overloaded, so that the games already running keep their pace.
"""

from __future__ import annotations

from typing import Callable

from twisted.internet.interfaces import IDelayedCall, IReactorTime

EVERY = 0.05
HIGH = 0.1  # a tenth of the default time limit
LOW = 0.05


class LagProbe:
    """Measures the reactor's lateness every ``every`` seconds."""

    def __init__(self, clock: IReactorTime, every: float = EVERY, high: float = HIGH, low: float = LOW) -> None:
        self.clock = clock
        self.every, self.high, self.low = every, high, low
        self.lag = 0.0
        self.overloaded = False
        self._due = 0.0
        self._call: IDelayedCall | None = None
        self._watchers: list[Callable[[bool], None]] = []

    def watch(self, callback: Callable[[bool], None]) -> None:
        self._watchers.append(callback)

    def start(self) -> None:
        if self._call is None:
            self._arm()

    def _arm(self) -> None:
        self._due = self.clock.seconds() + self.every
        self._call = self.clock.callLater(self.every, self._tick)

    def _tick(self) -> None:
        self.lag = max(0.0, self.clock.seconds() - self._due)
        self._arm()
        if not self.overloaded and self.lag > self.high:
            self._turn(True)
        elif self.overloaded and self.lag < self.low:
            self._turn(False)

    def _turn(self, overloaded: bool) -> None:
        self.overloaded = overloaded
        for callback in list(self._watchers):
            callback(overloaded)

    def stop(self) -> None:
        if self._call is not None and self._call.active():
            self._call.cancel()
        self._call = None
