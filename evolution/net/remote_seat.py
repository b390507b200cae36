# -*- test-case-name: tests.net.test_time_limits, tests.games.fish.net.test_time_limits -*-
"""The host's side of one remote player's connection: questions with time limits, answers read as they come.

Offers ``RemoteSeat``, which every game's proxy player builds on:
``tell(text)`` writes a message, ``ask(kind, text, read, timeout=None)`` asks
a question, whose ``Deferred`` fires with ``read(value)`` of the reply or
fails with ``PlayerFailure`` (late, malformed or refused, out of turn, the
connection gone: the reason names the question left unanswered); ``on_failure`` hears of a failure once; ``log`` (a
``SeatLog``) records every message. And ``CallSettings`` (the time limit of
each answer, the limits of particular kinds of question, and the host's one
sweep of limits, whose ``replies``, a ``ReplyTimes``, counts how long the answers took in a host's games, for
the operator's figures) and ``Connection``, what a seat needs of its connection.

How a limit is checked (never the host's delay), what fails a player, and
who hangs up: docs/architecture.md, "A connection in the host".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol

from twisted.internet.defer import Deferred, fail
from twisted.internet.interfaces import IReactorTime

from evolution.jsonwire.schema_reasons import show
from evolution.jsonwire.wire_errors import WireError
from evolution.net.deadlines import Deadlines
from evolution.net.game_log import SeatLog
from evolution.outcomes import PlayerFailure

DEFAULT_TIMEOUT = 1.0


class Connection(Protocol):
    messages_sent: int

    def sendEncoded(self, text: str) -> None: ...

    def read_waiting(self) -> None: ...

    def stop_reading(self) -> None: ...

    def close(self) -> None: ...


REPLY_SECONDS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)  # a bot's answer


class ReplyTimes:
    """How long answers took, in the buckets of ``REPLY_SECONDS`` (each count: answers at most that long; one
    more for longer), with their sum: what a host's figures show (``evolution_reply_seconds``)."""

    def __init__(self) -> None:
        self.counts = [0] * (len(REPLY_SECONDS) + 1)
        self.total = 0.0

    def observe(self, seconds: float) -> None:
        index = 0
        while index < len(REPLY_SECONDS) and seconds > REPLY_SECONDS[index]:
            index += 1
        self.counts[index] += 1
        self.total += seconds

    def take(self) -> list[float]:
        """The counts and the sum since the last ``take`` (a worker's report carries them to the host)."""
        taken = [*self.counts, self.total]
        self.counts, self.total = [0] * len(self.counts), 0.0
        return taken

    def add(self, taken: list[float]) -> None:
        """Another process's ``take()``, counted here."""
        for index, count in enumerate(taken[:-1]):
            self.counts[index] += int(count)
        self.total += taken[-1]


@dataclass(frozen=True)
class CallSettings:
    """How a game's seats ask: the time limit of each answer (a dialect may set others), on this clock.

    ``limits``: the limit of particular kinds of question, by the kind a seat
    asks (Fish's ``start``), or named for a dialect to pick (Fish's
    ``first-move``): the game's own options (``GameSetup.limits``).
    """

    clock: IReactorTime
    timeout: float = DEFAULT_TIMEOUT
    deadlines: Deadlines | None = None  # the host's one sweep of limits; a seat of its own otherwise
    limits: Mapping[str, float] = field(default_factory=dict)


class _Call:
    """The one question a seat is waiting on; ``sent`` messages had been written with it.

    A ``Deadlines`` limit: ``active`` until answered or failed; ``expire()`` when its time is up.
    """

    __slots__ = ("kind", "deferred", "read", "sent", "seat", "active", "timeout", "asked")

    def __init__(self, kind: str, read: Callable[[Any], Any], sent: int, seat: RemoteSeat, timeout: float) -> None:
        self.asked = 0.0
        self.kind = kind
        self.deferred: Deferred = Deferred()
        self.read = read
        self.sent = sent
        self.seat = seat
        self.active = True
        self.timeout = timeout

    def expire(self) -> None:
        self.seat._limit_passed(self)


class RemoteSeat:
    """A remote player's connection, as the host asks it and hears it."""

    def __init__(
        self,
        connection: Connection,
        name: str,
        clock: IReactorTime,
        timeout: float = DEFAULT_TIMEOUT,
        deadlines: Deadlines | None = None,
        limits: Mapping[str, float] | None = None,
    ) -> None:
        self.connection = connection
        self.name = name
        self.clock = clock
        self.timeout = timeout
        self.limits = limits or {}
        self.deadlines = deadlines if deadlines is not None else Deadlines(clock)
        self.replies: ReplyTimes | None = self.deadlines.replies  # the host's, in its games
        self.failure: str | None = None
        self.on_failure: Callable[[str], None] | None = None
        self.log: SeatLog | None = None
        self._call: _Call | None = None
        self._answered: str | None = None  # the kind of question last answered

    @classmethod
    def calling(cls, connection: Connection, name: str, calls: CallSettings) -> RemoteSeat:
        return cls(connection, name, calls.clock, calls.timeout, calls.deadlines, calls.limits)

    # -- asking and telling ----------------------------------------------------

    def ask(self, kind: str, message: str, read: Callable[[Any], Any], timeout: float | None = None) -> Deferred:
        """Write the question ``message`` (JSON text); fire with ``read(reply)`` or fail with ``PlayerFailure``.

        The limit: ``timeout`` if given, else the seat's limit for ``kind``, else its ``timeout``.
        """
        if self.failure is not None:
            return fail(PlayerFailure(self.failure))
        limit = self.limits.get(kind, self.timeout) if timeout is None else timeout
        # An answer counts once this question is written: the count after the write.
        call = self._call = _Call(kind, read, self.connection.messages_sent + 1, self, limit)
        self.tell(message)
        if self.replies is not None:
            call.asked = self.clock.seconds()
        self.deadlines.add(limit, call)  # from now: the question is written (or the kernel holds it)
        return call.deferred

    def tell(self, message: str) -> None:
        """Write ``message`` (JSON text), expecting no answer."""
        if self.log is not None:
            self.log.sent(message)
        self.connection.sendEncoded(message)

    @property
    def asking(self) -> str | None:
        """The kind of question whose answer the seat is waiting for, if any."""
        return self._call.kind if self._call is not None else None

    # -- what the connection reports ----------------------------------------

    def message_received(self, value: Any, sent_before: int) -> None:
        """``value`` arrived; its first byte came when ``sent_before`` messages had been written."""
        if self.log is not None:
            self.log.received(value)
        call, self._call = self._call, None
        if call is not None:
            call.active = False
        if call is None or sent_before < call.sent:
            self.fail(f"sent a message nobody asked for: {show(value, 80)}", call)
            return
        try:
            answer = call.read(value)
        except WireError as error:
            self.fail(f"invalid reply to {call.kind}: {error}", call)
            return
        self._answered = call.kind
        if self.replies is not None:
            self.replies.observe(self.clock.seconds() - call.asked)
        call.deferred.callback(answer)

    def input_failed(self, reason: str) -> None:
        self.fail(f"malformed message: {reason}")

    def connection_lost(self) -> None:
        """The connection closed: the reason names the question it left unanswered, or the last it answered."""
        if self._call is not None:
            self.fail(f"disconnected before replying to {self._call.kind}")
        elif self._answered is not None:
            self.fail(f"disconnected between questions (its last reply was to {self._answered})")
        else:
            self.fail("disconnected before it was asked anything")

    # -- failure --------------------------------------------------------------

    def _limit_passed(self, call: _Call) -> None:
        """The time limit of ``call`` has passed: a reply waiting in the socket still counts; else fail."""
        self.connection.read_waiting()
        if self._call is call:
            self.fail(f"no reply to {call.kind} within {call.timeout:g} s", call)

    def fail(self, reason: str, call: _Call | None = None) -> None:
        """Record the first failure, close the connection, fail the pending call."""
        pending = call or self._call
        self._call = None
        if pending is not None:
            pending.active = False
        if self.failure is None:
            self.failure = reason
            if self.on_failure is not None:  # the game removes the player and hangs up, after its word to it
                self.connection.stop_reading()
                self.on_failure(self.failure)
            else:
                self.connection.close()
        if pending is not None and not pending.deferred.called:
            pending.deferred.errback(PlayerFailure(self.failure))

    def close(self) -> None:
        """The game is over for this player (or it was removed): hang up."""
        self.connection.close()
