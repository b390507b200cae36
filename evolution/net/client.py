"""The client side: a proxy dealer that lets any player object play on a host.

Offers ``ClientProtocol`` (signs up, then dispatches each host message on its
shape to the player: ``start``, ``choose``, ``feed_next``; the optional score
message is kept), ``play_remote(reactor, host, port, name, player)`` which
connects (retrying a refused connection, not a name that does not resolve; over TLS when given ``tls``, the
settings ``evolution.net.endpoints.client_tls`` makes) and returns the
``ClientOutcome``, and the errors a client can end with. Cancelling the game
(``ensureDeferred(play_remote(...)).cancel()``) hangs up.

A player is any object with the player interface of ``evolution.rules.player``
(a strategy such as ``SillyPlayer``); its methods may return Deferreds.
Messages are handled one at a time, in order, in the host's ``dialect``
(``evolution.wire.dialects``: seed 000 by default, or seed 002). A host that
says it removed this player (``["removed", reason]``, with its operator's
``--tell-removed``) ends the game with ``Removed`` and the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from twisted.internet.defer import Deferred, maybeDeferred, succeed
from twisted.internet.endpoints import HostnameEndpoint, wrapClientTLS
from twisted.internet.error import ConnectError, ConnectionDone, DNSLookupError
from twisted.internet.protocol import Factory
from twisted.internet.task import deferLater
from twisted.logger import Logger
from twisted.python.failure import Failure

from evolution.net.json_protocol import JSONStreamProtocol
from evolution.rules.player import Player
from evolution.wire import codec
from evolution.jsonwire.errors import WireError
from evolution.wire.dialects import SEED000, Dialect
from evolution.wire.schemas import show

log = Logger()

ACCEPTED = ("ok", "ack")


class ClientError(Exception):
    """The game could not be played: refused, protocol error, strategy error."""


class Removed(ClientError):
    """The host said it removed this player (``--tell-removed``), and why."""


class Refused(ClientError):
    """The host did not take the sign-up (e.g. "game full")."""


@dataclass
class ClientOutcome:
    """How a client's game went, as far as the client can tell."""

    name: str
    turns: int = 0
    messages: int = 0
    scores: list[tuple[int, int]] | None = None  # the last score message, if the host sends them
    games: int = 0  # score messages seen: games over, when the host sends them


class ClientProtocol(JSONStreamProtocol):
    """Plays one game on a host for one player object."""

    def __init__(self, name: str, player: Player, dialect: Dialect = SEED000) -> None:
        super().__init__()
        self.name = name
        self.player = player
        self.dialect = dialect
        self.outcome = ClientOutcome(name)
        self.done: Deferred[ClientOutcome] = Deferred(lambda _: self.close())
        self.signed_up = False
        self._error: ClientError | None = None
        self._queue: Deferred = succeed(None)

    def connectionMade(self) -> None:
        super().connectionMade()
        self.sendMessage(self.name)

    def messageReceived(self, value: Any) -> None:
        self._queue.addCallback(lambda _: self._handle(value))
        self._queue.addErrback(self._strategy_failed)

    def _handle(self, value: Any) -> Any:
        if self._error is not None:
            return None
        self.outcome.messages += 1
        if not self.signed_up:
            return self._sign_up_reply(value)
        read, kind = self.dialect.read, self.dialect.kind(value)
        try:
            if kind == "start":
                self.outcome.turns += 1
                return maybeDeferred(self.player.start, *read(kind, value))
            if kind == "choose":
                d = maybeDeferred(self.player.choose, *read(kind, value))
                return d.addCallback(lambda action: self.sendMessage(codec.action4_to_json(action)))
            if kind == "feed-next":
                d = maybeDeferred(self.player.feed_next, read(kind, value))
                return d.addCallback(lambda choice: self.sendMessage(codec.feeding_choice_to_json(choice)))
            if kind == "score":
                self.outcome.scores = read(kind, value)
                self.outcome.games += 1
                return None
            if kind == "removed":
                return self.give_up(Removed(f"the host removed this player: {read(kind, value)}"))
        except WireError as error:
            return self.give_up(ClientError(f"the host sent an invalid {kind} message: {error}"))
        return self.give_up(ClientError(f"the host sent a message of no known kind: {show(value, 80)}"))

    def _sign_up_reply(self, value: Any) -> None:
        if value in ACCEPTED:
            self.signed_up = True
        elif value == "game full":
            self.give_up(Refused('the host refused the sign-up: "game full"'))
        else:
            self.give_up(ClientError(f"the host answered the sign-up with {show(value, 80)}, not \"ok\""))

    def _strategy_failed(self, failure: Failure) -> None:
        self.give_up(ClientError(f"the player failed: {failure.getErrorMessage()}"))

    def badInput(self, reason: str) -> None:
        self.give_up(ClientError(f"the host sent bytes that are not JSON: {reason}"))

    def give_up(self, error: ClientError) -> None:
        if self._error is None:
            self._error = error
        self.close()

    def connectionLost(self, reason: Failure = None) -> None:
        super().connectionLost(reason)
        self._finish(reason)

    def _finish(self, reason: Failure | None) -> None:
        if self.done.called:
            return
        if self._error is not None:
            self.done.errback(self._error)
        elif not self.signed_up:
            why = "" if reason is None or reason.check(ConnectionDone) else f" ({reason.getErrorMessage()})"
            self.done.errback(ClientError(f"the host closed the connection before answering the sign-up{why}"))
        else:
            self.done.callback(self.outcome)


async def play_remote(
    reactor: Any,
    host: str,
    port: int,
    name: str,
    player: Player,
    retries: int = 3,
    retry_delay: float = 2.0,
    tls: Any = None,
    dialect: Dialect = SEED000,
) -> ClientOutcome:
    """Connect (over TLS with ``tls``), sign up as ``name`` and play until the host hangs up."""
    endpoint = HostnameEndpoint(reactor, host, port)
    if tls is not None:
        endpoint = wrapClientTLS(tls, endpoint)
    for attempt in range(retries + 1):
        try:
            protocol = await endpoint.connect(Factory.forProtocol(lambda: ClientProtocol(name, player, dialect)))
            break
        except DNSLookupError as error:  # not a refusal: no use retrying
            raise ClientError(f"cannot connect to {host}:{port}: {error}") from None
        except ConnectError as error:
            if attempt == retries:
                raise ClientError(f"cannot connect to {host}:{port}: {error}") from None
            log.info("cannot connect to {host}:{port}; retrying in {delay:g} s", host=host, port=port, delay=retry_delay)
            await deferLater(reactor, retry_delay, lambda: None)
    return await protocol.done
