# -*- test-case-name: tests.net.test_time_limits, tests.net.test_remote_games -*-
"""The host's stand-in for a remote player of Evolution.

Offers ``ProxyPlayer``: the player interface of
``evolution.games.evolution.rules.player`` over a connection, on the host's
``RemoteSeat`` (``evolution.net.remote_seat``: time limits, replies read as
they come, failures). ``start`` only writes; ``choose`` and ``feed_next``
write the request and return a ``Deferred`` that fires with the reply after
it has passed ``evolution.games.evolution.wire.messages`` (schema, then
rules; an Action4 comes as a ``LegalAction4``, which the dealer does not
check again), or fails with ``PlayerFailure``.

The messages it writes are those of its ``dialect``
(``evolution.games.evolution.wire.dialects``: seed 000 by default, or seed
002, which also tells the player its id, ``seat``); the replies are the same
in both.
"""

from __future__ import annotations

from twisted.internet.defer import Deferred, fail
from twisted.internet.interfaces import IReactorTime

from evolution.games.evolution.rules.actions import LegalAction4
from evolution.games.evolution.rules.feeding import FeedingChoice
from evolution.games.evolution.rules.player import LOB, FeedingState, PlayerFailure
from evolution.games.evolution.rules.player_state import PlayerView
from evolution.games.evolution.wire.dialects import SEED000, Dialect
from evolution.games.evolution.wire.messages import read_feeding_choice, read_legal_action4
from evolution.net.deadlines import Deadlines
from evolution.net.remote_seat import DEFAULT_TIMEOUT, Connection, RemoteSeat


class ProxyPlayer(RemoteSeat):
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
        super().__init__(connection, name, clock, timeout, deadlines)
        self.dialect = dialect
        self.seat = seat  # the player's id in its game (seed 002 tells it)
        self._me: PlayerView | None = None

    def start(self, watering_hole: int, me: PlayerView) -> None:
        if self.failure is not None:
            raise PlayerFailure(self.failure)
        self._me = me
        self.tell(self.dialect.start(watering_hole, me, self.seat))

    def choose(self, before: LOB, after: LOB) -> Deferred[LegalAction4]:
        me = self._me
        if me is None:
            return fail(PlayerFailure("choose was asked before start"))
        return self.ask("choose", self.dialect.choose(before, after), lambda value: read_legal_action4(value, me))

    def feed_next(self, state: FeedingState) -> Deferred[FeedingChoice]:
        return self.ask(
            "feed-next", self.dialect.feed_next(state, self.seat), lambda value: read_feeding_choice(value, state)
        )
