"""The host's stand-in for a remote player.

Offers ``ProxyPlayer``: it implements the player interface of
``evolution.rules.player`` over a connection. ``start`` only writes;
``choose`` and ``feed_next`` write the request and return a ``Deferred`` that
fires with the reply after it has passed ``evolution.wire.messages`` (schema,
then rules; an Action4 comes as a ``LegalAction4``, which the dealer does
not check again), or fails with ``PlayerFailure`` when the time limit passes
(measured on the injected clock, from the moment the question is written),
the reply is malformed or illegal, or the connection drops.

Never the host's delay: a limit is checked by a sweep of ``Deadlines``
(``evolution.net.deadlines``, one timer for every call on the clock), and
when it has passed the proxy first asks the connection to read what its
socket holds (``read_waiting()``): a reply that arrived in time but waited
there while the reactor was busy elsewhere is the answer, not a timeout. A message that arrives while nothing was asked, or whose
first byte arrived before the question was written (two answers in one
write: the second answers no question the host had asked), or bytes that
are not JSON, fail the player too. A failed proxy closes its connection,
tells ``on_failure`` once, and fails every later call at once. Reasons quote
the player's message as sent.

The messages it writes are those of its ``dialect`` (``evolution.wire.dialects``:
seed 000 by default, or seed 002, which also tells the player its id,
``seat``); the replies are the same in both.

The connection it drives needs ``sendEncoded(text)`` (a message as its
JSON text), ``messages_sent``, ``read_waiting()`` and ``close()``; the host's connection protocol calls ``message_received``,
``input_failed`` and ``connection_lost``. With a ``SeatLog``
(``evolution.net.game_log``) in ``log``, every message written (the very
text written) and read is recorded; the game records the failures.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from twisted.internet.defer import Deferred, fail
from twisted.internet.interfaces import IReactorTime

from evolution.rules.actions import LegalAction4
from evolution.rules.feeding import FeedingChoice
from evolution.rules.player import LOB, FeedingState, PlayerFailure
from evolution.rules.player_state import PlayerView
from evolution.net.deadlines import Deadlines
from evolution.net.game_log import SeatLog
from evolution.wire.dialects import SEED000, Dialect
from evolution.jsonwire.errors import WireError
from evolution.wire.messages import read_feeding_choice, read_legal_action4
from evolution.wire.schemas import show

DEFAULT_TIMEOUT = 1.0


class Connection(Protocol):
    messages_sent: int

    def sendEncoded(self, text: str) -> None: ...

    def read_waiting(self) -> None: ...

    def close(self) -> None: ...


class _Call:
    """The one question a proxy is waiting on; ``sent`` messages had been written with it.

    A ``Deadlines`` limit: ``active`` until answered or failed; ``expire()`` when its time is up.
    """

    __slots__ = ("kind", "deferred", "read", "sent", "proxy", "active")

    def __init__(self, kind: str, read: Callable[[Any], Any], sent: int, proxy: ProxyPlayer) -> None:
        self.kind = kind
        self.deferred: Deferred = Deferred()
        self.read = read
        self.sent = sent
        self.proxy = proxy
        self.active = True

    def expire(self) -> None:
        self.proxy._limit_passed(self)


class ProxyPlayer:
    """A remote player, seen by the dealer as any other player."""

    def __init__(
        self,
        connection: Connection,
        name: str,
        clock: IReactorTime,
        timeout: float = DEFAULT_TIMEOUT,
        dialect: Dialect = SEED000,
        seat: int = 0,
        deadlines: Deadlines | None = None,
    ) -> None:
        self.connection = connection
        self.name = name
        self.dialect = dialect
        self.seat = seat  # the player's id in its game (seed 002 tells it)
        self.clock = clock
        self.timeout = timeout
        self.deadlines = deadlines if deadlines is not None else Deadlines(clock)
        self.failure: str | None = None
        self.on_failure: Callable[[str], None] | None = None
        self.log: SeatLog | None = None
        self._call: _Call | None = None
        self._me: PlayerView | None = None

    # -- the player interface ---------------------------------------------

    def start(self, watering_hole: int, me: PlayerView) -> None:
        if self.failure is not None:
            raise PlayerFailure(self.failure)
        self._me = me
        self._send(self.dialect.start(watering_hole, me, self.seat))

    def choose(self, before: LOB, after: LOB) -> Deferred[LegalAction4]:
        me = self._me
        if me is None:
            return fail(PlayerFailure("choose was asked before start"))
        return self._ask("choose", self.dialect.choose(before, after), lambda value: read_legal_action4(value, me))

    def feed_next(self, state: FeedingState) -> Deferred[FeedingChoice]:
        return self._ask(
            "feed-next", self.dialect.feed_next(state, self.seat), lambda value: read_feeding_choice(value, state)
        )

    def _ask(self, kind: str, message: str, read: Callable[[Any], Any]) -> Deferred:
        if self.failure is not None:
            return fail(PlayerFailure(self.failure))
        # An answer counts once this question is written: the count after the write.
        call = self._call = _Call(kind, read, self.connection.messages_sent + 1, self)
        self._send(message)
        self.deadlines.add(self.timeout, call)  # from now: the question is written (or the kernel holds it)
        return call.deferred

    @property
    def asking(self) -> str | None:
        """The kind of question whose answer the proxy is waiting for, if any."""
        return self._call.kind if self._call is not None else None

    def _send(self, message: str) -> None:
        if self.log is not None:
            self.log.sent(message)
        self.connection.sendEncoded(message)

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
        call.deferred.callback(answer)

    def input_failed(self, reason: str) -> None:
        self.fail(f"malformed message: {reason}")

    def connection_lost(self) -> None:
        self.fail("disconnected")

    # -- failure --------------------------------------------------------------

    def _limit_passed(self, call: _Call) -> None:
        """The time limit of ``call`` has passed: a reply waiting in the socket still counts; else fail."""
        self.connection.read_waiting()
        if self._call is call:
            self.fail(f"no reply to {call.kind} within {self.timeout:g} s", call)

    def fail(self, reason: str, call: _Call | None = None) -> None:
        """Record the first failure, close the connection, fail the pending call."""
        pending = call or self._call
        self._call = None
        if pending is not None:
            pending.active = False
        if self.failure is None:
            self.failure = reason
            self.connection.close()
            if self.on_failure is not None:
                self.on_failure(self.failure)
        if pending is not None and not pending.deferred.called:
            pending.deferred.errback(PlayerFailure(self.failure))

    def close(self) -> None:
        """The game is over for this player (or it was removed): hang up."""
        self.connection.close()
