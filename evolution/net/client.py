"""The client side: a proxy referee that lets any player object play on a host, in any game's dialect.

Offers ``ClientProtocol`` (signs up, then hands each host message to the
dialect's ``Conversation`` and writes the answer), ``conversation(name,
player, game, dialect)`` (the conversation a dialect holds for a player),
``play_remote(reactor, host, port, name, player, game=..., dialect=...)``,
which checks the name against the dialect's rules, connects (retrying a
refused connection, not a name that does not resolve; over TLS when given
``tls``, the settings ``evolution.net.endpoints.client_tls`` makes; with
``reconnect``, signing up again after the host hangs up or goes away) and
returns the ``ClientOutcome``, and the errors a client can end with.
Cancelling the game (``ensureDeferred(play_remote(...)).cancel()``) hangs up.

A player is any object with the player interface of its game (Evolution's
``start``, ``choose``, ``feed_next``; Fish's ``playing_as``, ``setup``,
``take_turn``...); its methods may return Deferreds. Messages are handled
one at a time, in order. A conversation (``Dialect.client(name, player)``)
offers ``sign_up()`` (the first message, or None for a dialect that sends
none), ``handle(value)`` (the answer: a value, a Deferred, ``NO_REPLY``, or
``LastReply``, the wrapper of the answer to the last message the host sends; it
raises ``ClientError`` for what breaks the protocol, ``Removed`` when the
host says it removed the player) and ``outcome``; ``answered(answer,
encode)`` encodes a player's answer, a value or a Deferred.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from typing import Any, Callable

from twisted.internet.defer import Deferred, maybeDeferred, succeed
from twisted.internet.error import ConnectError, ConnectionDone, DNSLookupError
from twisted.internet.protocol import ClientFactory, Factory
from twisted.internet.task import deferLater
from twisted.logger import Logger
from twisted.python.failure import Failure

from evolution.games import DEFAULT_GAME
from evolution.games import game as game_named
from evolution.net.json_protocol import JSONStreamProtocol

log = Logger()

RECONNECT_DELAY = 5.0  # seconds between a hang-up and signing up again (``play_remote(reconnect=...)``)
NO_REPLY = object()
"""What a conversation answers to a message that needs no reply."""


@dataclass(frozen=True)
class LastReply:
    """The answer to the host's last message: write ``value`` (unless ``NO_REPLY``), then hang up.

    With ``error`` the client then ends with that error (a player the host removed, told so).
    """

    value: Any
    error: ClientError | None = None


class ClientError(Exception):
    """The game could not be played: refused, protocol error, strategy error."""


class Removed(ClientError):
    """The host said it removed this player (``--tell-removed``), and why."""


class Refused(ClientError):
    """The host did not take the sign-up (e.g. "game full")."""


class Unreachable(ClientError):
    """The host could not be reached: its name does not resolve, or nothing listens at its port."""


@dataclass
class ClientOutcome:
    """How a client's games went, as far as the client can tell."""

    name: str
    turns: int = 0
    messages: int = 0
    scores: list[tuple[int, int]] | None = None  # the last score message, if the host sends them
    games: int = 0  # games over, where the dialect tells (score messages, game results)
    won: bool | None = None  # where the dialect tells a tournament's end
    connections: int = 1  # with reconnect: how many times it signed up

    def followed_by(self, later: ClientOutcome) -> ClientOutcome:
        """This outcome and a later connection's, as one."""
        return ClientOutcome(self.name, self.turns + later.turns, self.messages + later.messages,
                             later.scores if later.scores is not None else self.scores, self.games + later.games,
                             later.won, self.connections + later.connections)


class ClientProtocol(JSONStreamProtocol):
    """Plays on a host for one player object, through its dialect's conversation."""

    def __init__(self, conversation: Any, connected: Callable[[ClientProtocol], None] | None = None,
                 key: str | None = None) -> None:
        super().__init__()
        self.conversation = conversation
        self.key = key  # the bot's secret (--accounts): sent beside its name, ["sign-up", name, {"key": KEY}]
        self.on_connected = connected  # told once the connection is made, before the sign-up is written
        self.outcome: ClientOutcome = conversation.outcome
        self.name = self.outcome.name
        self.done: Deferred[ClientOutcome] = Deferred(lambda _: self.close())
        self.heard = False  # a message of the host's has arrived
        self._error: ClientError | None = None
        self._queue: Deferred = succeed(None)

    @property
    def signed_up(self) -> bool:
        """The host took the sign-up (where the dialect answers one), or has said something."""
        return getattr(self.conversation, "signed_up", self.heard)

    def connectionMade(self) -> None:
        super().connectionMade()
        if self.on_connected is not None:
            self.on_connected(self)
        first = self.conversation.sign_up()
        if first is not None and self.key is not None and isinstance(first, str):
            first = ["sign-up", first, {"key": self.key}]
        if first is not None:
            self.sendMessage(first)

    def messageReceived(self, value: Any) -> None:
        self._queue.addCallback(lambda _: self._handle(value))
        self._queue.addErrback(self._failed)

    def _handle(self, value: Any) -> Any:
        if self._error is not None:
            return None
        self.outcome.messages += 1
        first, self.heard = not self.heard, True
        if first and value == "game full":
            raise Refused('the host refused the sign-up: "game full"')
        return maybeDeferred(self.conversation.handle, value).addCallback(self._answer)

    def _answer(self, answer: Any) -> None:
        last = isinstance(answer, LastReply)
        error = answer.error if last else None
        if last:
            answer = answer.value
        if answer is not NO_REPLY:
            self.sendMessage(answer)
        if last and error is not None:
            self.give_up(error)
        elif last:
            self.close()

    def _failed(self, failure: Failure) -> None:
        error = failure.value
        if not isinstance(error, ClientError):
            error = ClientError(f"the player failed: {failure.getErrorMessage()}")
        self.give_up(error)

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


def answered(answer: Any, encode: Callable[[Any], Any]) -> Any:
    """``encode`` of a player's answer, whether it is a value or a Deferred (for a conversation's reply)."""
    if hasattr(answer, "addCallback"):
        return answer.addCallback(encode)
    return encode(answer)


def conversation(name: str, player: Any, game: str = DEFAULT_GAME, dialect: str | None = None) -> Any:
    """What ``player`` says, signed up as ``name``, in ``game``'s ``dialect`` (its first by default).

    ``ValueError`` (a sentence) for a name that is not text (bytes of another encoding than UTF-8, as a command
    line gives them) or that the dialect does not take.
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        try:
            shown = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:
            shown = name.encode("utf-8", "backslashreplace").decode()
        raise ValueError(f'the name "{shown}" is not UTF-8 text (its bytes are of another encoding, Latin-1 '
                         "perhaps); a name travels to the host as UTF-8: write it in UTF-8") from None
    chosen = game_named(game)
    return chosen.dialect(dialect or chosen.dialects[0]).client(name, player)


async def play_remote(
    reactor: Any,
    host: str,
    port: int,
    name: str,
    player: Any,
    retries: int = 3,
    retry_delay: float = 2.0,
    tls: Any = None,
    dialect: str | None = None,
    game: str = DEFAULT_GAME,
    bind: str | None = None,
    reconnect: int = 0,
    reconnect_delay: float = RECONNECT_DELAY,
    connected: Callable[[ClientProtocol], None] | None = None,
    key: str | None = None,
) -> ClientOutcome:
    """Connect (over TLS with ``tls``; from the local address ``bind``, if given), sign up as ``name`` and play
    ``game`` until the host hangs up.

    A name the dialect does not take fails here, before connecting (``ClientError``), as an unknown game or
    dialect does (``UnknownGame``, ``KeyError``). ``connected(protocol)`` is told once each connection is made.
    ``key``: the bot's secret, sent beside its name (a host with ``--accounts``: docs/accounts.md).
    With ``reconnect``, sign up again when the host hangs up (or went away: a host killed mid-tournament and
    started again with ``--resume`` takes its entrants back), ``reconnect_delay`` seconds later, a line each try,
    until the host does not take the bot back ("game full": nothing for it to play), the dialect says the
    tournament is over, or ``reconnect`` tries in a row could not reach it. The outcome counts every connection's
    games.
    """
    try:
        conversation(name, player, game, dialect)
    except ValueError as error:
        raise ClientError(str(error)) from None
    once = (reactor, host, port, name, player, retry_delay, tls, dialect, game, bind, connected, key)
    outcome = await _play_once(retries, *once)
    misses = 0
    while misses < reconnect and outcome.won is None:  # a tournament's end, where the dialect tells it, is the end
        misses += 1
        log.info("the host hung up; signing up again in {delay:g} s (try {k} of {n})", name=name,
                 delay=reconnect_delay, k=misses, n=reconnect)
        await deferLater(reactor, reconnect_delay, lambda: None)
        try:
            again = await _play_once(0, *once)
        except Refused as error:
            log.info("the host does not take it back ({error}); done", name=name, error=str(error))
            break
        except Unreachable:
            continue
        outcome, misses = outcome.followed_by(again), 0
    return outcome


async def _play_once(
    retries: int, reactor: Any, host: str, port: int, name: str, player: Any, retry_delay: float, tls: Any,
    dialect: str | None, game: str, bind: str | None, connected: Callable[[ClientProtocol], None] | None,
    key: str | None = None,
) -> ClientOutcome:
    """One connection: connect (retrying a refused one ``retries`` times), sign up, play until hung up."""
    factory = Factory.forProtocol(lambda: ClientProtocol(conversation(name, player, game, dialect), connected, key))
    for attempt in range(retries + 1):
        try:
            protocol = await _connect(reactor, host, port, factory, tls, bind)
            break
        except DNSLookupError as error:  # not a refusal: no use retrying
            raise Unreachable(f"cannot connect to {host}:{port}: {error}") from None
        except ConnectError as error:
            if attempt == retries:
                raise Unreachable(f"cannot connect to {host}:{port}: {error}") from None
            log.info("cannot connect to {host}:{port}; retrying in {delay:g} s", host=host, port=port, delay=retry_delay)
            await deferLater(reactor, retry_delay, lambda: None)
    return await protocol.done


async def _connect(reactor: Any, host: str, port: int, factory: Factory, tls: Any, bind: str | None = None) -> Any:
    """The connected protocol, or ``ConnectError`` (``DNSLookupError`` for a bad name).

    Over TLS through Twisted's endpoints; in the clear through the reactor
    itself, which spares every bot process loading the TLS stack (about 40 ms
    of CPU at start-up where pyOpenSSL is installed), trying each address the
    name has in turn, as the endpoints do (``localhost`` is often ``::1``
    first, and a host listening on IPv4 only refuses it).
    """
    if tls is not None:
        from twisted.internet.endpoints import HostnameEndpoint, wrapClientTLS

        local = (bind, 0) if bind is not None else None
        return await wrapClientTLS(tls, HostnameEndpoint(reactor, host, port, bindAddress=local)).connect(factory)
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        raise DNSLookupError(f"address {host!r} not found: {error}") from None
    addresses = list(dict.fromkeys(info[4][0] for info in found))
    for address in addresses[:-1]:
        try:
            return await _connect_to(reactor, address, port, factory, bind)
        except ConnectError:
            continue
    return await _connect_to(reactor, addresses[-1], port, factory, bind)


def _connect_to(reactor: Any, address: str, port: int, factory: Factory, bind: str | None) -> Deferred:
    connecting = _Connecting(factory)
    connecting.connector = reactor.connectTCP(address, port, connecting,
                                              bindAddress=(bind, 0) if bind is not None else None)
    return connecting.connected


class _Connecting(ClientFactory):
    """One connection attempt: ``connected`` fires with the protocol once connected, or fails with why not.

    Cancelled (a bot stopped while it connects), the attempt stops, and a connection that is made all the same
    is dropped: no protocol signs up for nobody (whose end, unheard, would be an unhandled error)."""

    noisy = False

    def __init__(self, factory: Factory) -> None:
        self.factory = factory
        self.connector: Any = None
        self.cancelled = False
        self.connected: Deferred = Deferred(self._cancel)

    def _cancel(self, _: Deferred) -> None:
        self.cancelled = True  # (``connected`` fails with CancelledError, not with the stop's UserError)
        if getattr(self.connector, "state", None) == "connecting":
            self.connector.stopConnecting()

    def buildProtocol(self, addr: Any) -> Any:
        if self.cancelled:  # the connection made all the same is closed at once
            return None
        protocol = self.factory.buildProtocol(addr)
        self.connected.callback(protocol)
        return protocol

    def clientConnectionFailed(self, connector: Any, reason: Failure) -> None:
        if not self.cancelled:
            self.connected.errback(reason)
