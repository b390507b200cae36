# -*- test-case-name: tests.host.console.test_draining -*-
"""Draining a host for maintenance, and what HAProxy's agent-check hears of it.

Offers ``Drain(host, clock, stop_listening, stop)``: ``begin(who)`` takes no
new sign-ups (the bot port stops listening, the bots waiting are hung up on
so that the balancer sends them elsewhere, a ladder forms no new games), lets
the running games (and a running tournament) finish, then stops the host;
``draining``, ``state()``. And ``AgentCheckFactory(drain, figures)``: each
connection gets one line, as HAProxy's ``agent-check`` reads it (``ready up``;
``drain`` from the moment a drain begins; ``down`` while the store is away
beyond the journal's promise), then is closed.
"""

from __future__ import annotations

from typing import Any, Callable

from twisted.internet.protocol import Factory, Protocol
from twisted.internet.task import LoopingCall
from twisted.logger import Logger

from evolution.text import plural

log = Logger()
CHECK_EVERY = 0.5  # seconds between looks at the games a drain waits for


class Drain:
    """No new games or sign-ups; the host stops once the running games are over."""

    def __init__(self, host: Any, clock: Any, stop_listening: Callable[[], Any], stop: Callable[[], None]) -> None:
        self.host, self.clock = host, clock
        self.stop_listening, self.stop = stop_listening, stop
        self.draining = False
        self.watchers: list[Callable[[], None]] = []  # told as a drain begins (the figures)
        self._check = LoopingCall(self._over_yet)
        self._check.clock = clock

    def begin(self, who: str) -> str:
        """Begin draining (asked by ``who``, for the log); what the host does now, in one line."""
        if self.draining:
            return f"draining already: the host stops {self._left()}"
        self.draining = True
        for watcher in self.watchers:
            watcher()
        self.stop_listening()
        if self.host.ladder is not None:
            self.host.ladder.pause("the drain")
        tournaments = self.host.tournaments
        if tournaments is None or tournaments.current is None:  # a tournament's entrants wait for its next round
            waiting = self.host.factory.take_lobby()
            for connection in waiting:
                connection.close()
        line = f"draining, asked by {who}: no new sign-ups or games; the host stops {self._left()}"
        log.info("{line}", line=line)
        self._check.start(CHECK_EVERY)
        return line

    def _left(self) -> str:
        running = len(self.host.runner.running)
        if not running and self.host.tournaments is None:
            return "now: no game runs"
        tournament = self.host.tournaments is not None and self.host.tournaments.current is not None
        return (f"once {plural(running, 'running game')} {'is' if running == 1 else 'are'} over"
                + (" and the running tournament has ended" if tournament else ""))

    def _over_yet(self) -> None:
        tournaments = self.host.tournaments
        if self.host.runner.running or (tournaments is not None and tournaments.current is not None):
            return
        self._check.stop()
        log.info("drained: every game is over; stopping")
        self.stop()

    def state(self) -> str:
        return "draining" if self.draining else "serving"


class AgentCheck(Protocol):
    def connectionMade(self) -> None:
        self.transport.write(self.factory.answer().encode("ascii") + b"\n")
        self.transport.loseConnection()


class AgentCheckFactory(Factory):
    """HAProxy's agent-check: one line a connection (``ready up``, ``drain``, ``down``)."""

    protocol = AgentCheck
    noisy = False

    def __init__(self, drain: Drain, figures: Any) -> None:
        self.drain, self.figures = drain, figures

    def answer(self) -> str:
        if self.drain.draining:
            return "drain"
        if self.figures.store_overdue:
            return "down"
        return "ready up"
