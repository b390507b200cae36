# -*- test-case-name: tests.host.modes.test_resumption, tests.host.workers.test_pool -*-
"""Entrants a tournament waits for: players whose connections the host lost (a restart, a worker's death).

Offers ``Away`` (what stands in for the connection of an entrant that is not connected: closed, it hears
nothing) and ``Returns(clock, window)``: ``wait_for(entrants, why)`` marks entrants away for ``window`` seconds
from now; ``claim(name)`` says whether a sign-up of that name (as the host would name it) takes an awaited
entrant's place; ``returned(connection)`` gives the entrant of that name its connection back, ``drop(entrant)``
awaits it no longer (it is out);
``back(table)`` fires once every entrant of a table is back or past its time; ``is_away(entrant)``; ``stop()``
awaits no one any longer (the tables waiting go on at once).
"""

from __future__ import annotations

from typing import Any, Callable

from twisted.internet.defer import Deferred

from evolution.net.host_connection import CLOSED
from evolution.tournament.standings import Entrant


class Away:
    """The connection of an entrant the host does not hold: closed; what is said to it goes nowhere."""

    state = CLOSED
    transport = None

    def __init__(self, name: str) -> None:
        self.name = name

    def close(self) -> None:
        pass

    def sendMessage(self, value: Any) -> None:
        pass

    def wait(self, on_failure: Callable[[str], None], closes: bool = False) -> None:
        pass

    def hold(self) -> None:
        pass


class Returns:
    """The entrants awaited back, each until its time is up, and the tables that wait for them."""

    def __init__(self, clock: Any, window: float) -> None:
        self.clock = clock
        self.window = window
        self.awaited: dict[str, Entrant] = {}  # by name
        self.why: dict[Entrant, str] = {}
        self._due: dict[Entrant, float] = {}
        self._tables: list[tuple[list[Entrant], Deferred]] = []
        self._timer: Any = None

    def wait_for(self, entrants: list[Entrant], why: str) -> None:
        """These entrants are away (``why``: what lost their connections) for ``window`` seconds from now."""
        due = self.clock.seconds() + self.window
        for entrant in entrants:
            entrant.handle = Away(entrant.name)
            self.awaited[entrant.name] = entrant
            self.why[entrant] = why
            self._due[entrant] = due
        self._schedule()

    def is_away(self, entrant: Entrant) -> bool:
        return isinstance(entrant.handle, Away)

    def claim(self, name: str) -> bool:
        """Whether a connection named ``name`` takes an awaited entrant's place (one still within its time)."""
        entrant = self.awaited.get(name)
        return entrant is not None and entrant in self._due

    def returned(self, connection: Any) -> Entrant | None:
        """The entrant ``connection`` is (by its name) has it back; tables waiting for it may go on."""
        entrant = self.awaited.pop(connection.name, None)
        if entrant is None:
            return None
        entrant.handle = connection
        self._due.pop(entrant, None)
        self.why.pop(entrant, None)
        self._release()
        return entrant

    def drop(self, entrant: Entrant) -> None:
        """``entrant`` is awaited no more (it came back and is out, or has nothing left to play): tables go on
        without it."""
        self.awaited.pop(entrant.name, None)
        self._due.pop(entrant, None)
        self.why.pop(entrant, None)
        self._release()

    def back(self, table: list[Entrant]) -> Deferred[None]:
        """Fires once every entrant of ``table`` is back, or its time is up."""
        waiter: Deferred = Deferred()
        self._tables.append((table, waiter))
        self._release()
        return waiter

    def late(self, entrant: Entrant) -> bool:
        """Away and past its time."""
        return self.is_away(entrant) and entrant not in self._due

    def _ready(self, table: list[Entrant]) -> bool:
        return all(not self.is_away(entrant) or entrant not in self._due for entrant in table)

    def _release(self) -> None:
        ready = [(table, waiter) for table, waiter in self._tables if self._ready(table)]
        for entry in ready:
            self._tables.remove(entry)
        for _, waiter in ready:
            waiter.callback(None)

    def _schedule(self) -> None:
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None
        if self._due:
            self._timer = self.clock.callLater(max(0.0, min(self._due.values()) - self.clock.seconds()), self._expire)

    def _expire(self) -> None:
        now = self.clock.seconds()
        for entrant in [entrant for entrant, due in self._due.items() if due <= now]:
            del self._due[entrant]
        self._release()
        self._schedule()

    def stop(self) -> None:
        """Await no one any longer (the tournament is over, ended or interrupted): the tables waiting go on now."""
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None
        self._due.clear()
        self._release()


