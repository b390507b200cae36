"""Evolution's two dialects as the host and a client speak them (``evolution.games.Dialect``).

Offers ``HOST_DIALECTS`` (``seed000``, ``seed002``: ``EvolutionDialect``) and
``Conversation``, a client's side of one connection. The messages of each
dialect are ``evolution.games.evolution.wire.dialects``'s; this module says
what the host does with them:

- sign-up: any JSON string is a name; the host answers "ok" (seed 000) or
  "ack" (seed 002), or ``["ok", name]`` to ``["sign-up", name]``, which asks
  for the name the host gives;
- in a game, the ``ProxyPlayer`` (``proxy_player``) asks and reads;
- nothing before a connection's first game, nothing when the host is done
  with it;
- when a game ends, every player still in it hears the score message
  ``[[id, score], ...]`` with ``--send-scores``, and always in seed 002;
- a removed player hears ``["removed", reason]`` with ``--tell-removed``.

A client's ``Conversation`` signs up with its name, dispatches each host
message on its shape to the player (``start``, ``choose``, ``feed_next``),
keeps the score messages, and ends with ``Removed`` when the host says it
removed the player.
"""

from __future__ import annotations

from typing import Any

from evolution.games import SignupRules
from evolution.games.evolution.net.proxy_player import ProxyPlayer
from evolution.games.evolution.wire import codec
from evolution.games.evolution.wire.dialects import DIALECTS, Dialect
from evolution.jsonwire.schema_reasons import show
from evolution.jsonwire.wire_errors import WireError
from evolution.net.client import NO_REPLY, ClientError, ClientOutcome, Removed, answered
from evolution.net.remote_seat import CallSettings, RemoteSeat
from evolution.net.signup import signup_name
from evolution.outcomes import GameResult

Json = Any


class EvolutionDialect:
    """One of the two dialects, for the host and for a client."""

    keeps_losers = False  # a player knocked out of a tournament is hung up on

    def __init__(self, wire: Dialect) -> None:
        self.wire = wire
        self.name = wire.name
        self.signup = SignupRules(reply=wire.signup_ok, name=signup_name)

    def proxy(self, connection: Any, name: str, seat: int, calls: CallSettings) -> ProxyPlayer:
        return ProxyPlayer(connection, name, calls.clock, calls.timeout, self.wire, seat, calls.deadlines)

    greeting = None  # nothing before a connection's first game
    farewell = None  # nothing when the host is done with a connection

    def game_over(self, seat: RemoteSeat, result: GameResult, number: int, send_scores: bool) -> None:
        if (send_scores or self.wire.always_scores) and result.ranking:
            seat.connection.sendMessage(codec.score_to_json(result.ranking))

    def removal(self, reason: str, tell_removed: bool) -> Json | None:
        return ["removed", reason] if tell_removed else None

    def client(self, name: str, player: Any) -> Conversation:
        return Conversation(name, player, self.wire)


HOST_DIALECTS = {name: EvolutionDialect(wire) for name, wire in DIALECTS.items()}

ACCEPTED = ("ok", "ack")


class Conversation:
    """A client's side of one connection: the player answers what the host asks, in the host's dialect."""

    def __init__(self, name: str, player: Any, wire: Dialect) -> None:
        self.name = name
        self.player = player
        self.wire = wire
        self.outcome = ClientOutcome(name)
        self.signed_up = False

    def sign_up(self) -> Json:
        """The first message: the name."""
        return self.name

    def handle(self, value: Json) -> Any:
        """The answer to the host's message ``value`` (a value or a Deferred), or ``NO_REPLY``."""
        if not self.signed_up:
            return self._sign_up_reply(value)
        kind = self.wire.kind(value)
        try:
            if kind == "start":
                self.outcome.turns += 1
                return answered(self.player.start(*self.wire.read(kind, value)), lambda _: NO_REPLY)
            if kind == "choose":
                return answered(self.player.choose(*self.wire.read(kind, value)), codec.action4_to_json)
            if kind == "feed-next":
                return answered(self.player.feed_next(self.wire.read(kind, value)), codec.feeding_choice_to_json)
            if kind == "score":
                self.outcome.scores = self.wire.read(kind, value)
                self.outcome.games += 1
                return NO_REPLY
            if kind == "removed":
                raise Removed(f"the host removed this player: {self.wire.read(kind, value)}")
        except WireError as error:
            raise ClientError(f"the host sent an invalid {kind} message: {error}") from None
        raise ClientError(f"the host sent a message of no known kind: {show(value, 80)}")

    def _sign_up_reply(self, value: Json) -> Any:
        if value in ACCEPTED:
            self.signed_up = True
            return NO_REPLY
        raise ClientError(f"the host answered the sign-up with {show(value, 80)}, not \"ok\"")
