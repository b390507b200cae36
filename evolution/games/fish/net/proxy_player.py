# -*- test-case-name: tests.games.fish.net.test_time_limits, tests.games.fish.net.test_dialects -*-
"""The host's stand-in for a remote player of Fish.

Offers ``FishProxy``: the player interface of
``evolution.games.fish.rules.player`` over a connection, on the host's
``RemoteSeat`` (``evolution.net.remote_seat``: time limits, replies read as
they come, failures). Each call writes its dialect's request
(``evolution.games.fish.wire.dialects``: the course protocol's
``["setup", [State]]``, seed 004's ``{"Communication": "Placement", ...}``)
and returns a ``Deferred`` that fires with the reply once it has passed the
wire layer (its schema, then the codec: a Position, a Move, or nothing for an
acknowledgement), or fails with ``PlayerFailure``. Whether a placement or a
move is legal, the referee says.

Time limits: every call has the seat's ``timeout`` (``--timeout``, 10 s by
default), except a move in a game's first round of moves, which has the
``first-move`` limit (``--first-move-timeout``, 30 s) in the course protocol,
as the reference's referee allows (its ``READY-TIME``): the round lasts until
as many actions (moves and skips) have been taken since movement began, or
since a player was last removed, as there are players (``FishReferee
.first_round``). The game's registration introduces each proxy to its
referee (``refereed_by``). Seed 004 gives every call the same limit.
"""

from __future__ import annotations

from typing import Sequence

from twisted.internet.defer import Deferred

from evolution.games.fish.rules.board import Position
from evolution.games.fish.rules.referee import FishReferee
from evolution.games.fish.rules.state import Action, Color, GameState, Move
from evolution.games.fish.wire.dialects import COURSE, FishWire, Request
from evolution.net.remote_seat import CallSettings, Connection, RemoteSeat

FIRST_MOVE = "first-move"
"""The name of the first round's move limit among a seat's ``limits`` (``FishSetup.limits``)."""


class FishProxy(RemoteSeat):
    """A remote player, seen by the referee as any other player."""

    def __init__(self, connection: Connection, name: str, calls: CallSettings, wire: FishWire = COURSE) -> None:
        super().__init__(connection, name, calls.clock, calls.timeout, calls.deadlines, calls.limits)
        self.wire = wire
        self.referee: FishReferee | None = None

    def refereed_by(self, referee: FishReferee) -> None:
        self.referee = referee

    def request(self, request: Request, timeout: float | None = None) -> Deferred:
        """Write ``request``; fire with its reply as the wire layer reads it."""
        return self.ask(request.kind, request.text, request.read, timeout)

    def playing_as(self, color: Color) -> Deferred[None]:
        return self.request(self.wire.playing_as(color))

    def playing_with(self, colors: Sequence[Color]) -> Deferred[None] | None:
        request = self.wire.playing_with(colors)
        return None if request is None else self.request(request)

    def setup(self, state: GameState) -> Deferred[Position]:
        return self.request(self.wire.setup(state))

    def take_turn(self, state: GameState, actions: Sequence[Action]) -> Deferred[Move]:
        return self.request(self.wire.take_turn(state, actions), self._move_limit())

    def _move_limit(self) -> float | None:
        """The first round's longer limit where the dialect has one; else None (the seat's ``timeout``)."""
        if self.wire.first_round_limit and self.referee is not None and self.referee.first_round:
            return self.limits.get(FIRST_MOVE)
        return None
