"""Sign-up: the host's connection protocol and the factory that gathers players into its lobby.

Offers ``SignupConfig``, ``HostProtocol`` (one per connection) and
``SignupFactory``. A connection's states, and what each does with a message:

    signing-up   the first JSON value must arrive within the sign-up limits
                 (first byte, then the rest of the value) and fit in
                 ``SIGNUP_MAX_BYTES``; a name the dialect takes
                 (``SignupRules``: in Evolution's dialects a string, or
                 ``["sign-up", string]``; Fish's course protocol, 1..12
                 letters) signs the client up (the dialect's reply, "ok" in
                 Evolution's, or ``["ok", name]`` to the second form; nothing
                 in Fish's; to the lobby; later messages may be as long as
                 ``max_bytes``); anything else closes the connection. When
                 the host takes no more players the answer is "game full",
                 then close. In a silent dialect (``SignupRules.silent``,
                 Fish's seed 004) a client signs up by keeping silent for
                 ``silent_wait`` seconds, named after its address; anything
                 but whitespace before that closes the connection.
    in-lobby     waiting: for a game, or (in a tournament) for the next one.
                 Whoever holds the connection (``wait(on_failure)``) hears of
                 any message (out of turn), bytes that are not JSON, or a
                 disconnect; the connection is closed.
    playing      every message goes to the game's proxy player (a ``RemoteSeat``)
                 (``play(proxy)``).
    closed       nothing more is read.
    away         in another process (``evolution.net.handover``): the host
                 handed the socket to a worker that plays its game. A
                 connection that comes back, or arrives in a worker, is
                 adopted in this state (``arriving``) and holds what it reads
                 until its holder says ``play`` or ``wait``.

What to do with the players in the lobby is the lobby's policy
(``evolution.net.lobbies``): start a game of them, or a tournament, or a
ladder's games. The factory offers the policy ``lobby`` (signed-up
connections, in the order they came to wait), ``clock``, ``config``,
``take_lobby()`` and ``rejoin(connection)``, which puts a player back from
its game to wait again, as after a sign-up (a ladder's players stay for the
next game) (``lobbies.Gathering``).

A connection beyond ``max_connections`` (all states together) is answered
"game full" and closed at once, before it can cost more than its socket.

Names (``unique_name``) are any JSON string, kept exactly as sent unless a
player waiting in the lobby has it already (or, in a ladder, one of its
players in a game: ``policy.names_held()``), or it ends in ``#`` and digits:
then the host appends ``#k``, the smallest k from 2 that no one waiting has
(``x``, ``x#2``, ``x#3``; a bot that sends ``x#2`` is ``x#2#2``). So a name
that ends in ``#k`` is always the host's doing, and dropping that ``#k``
gives the name the bot sent. A bot that signs up with ``["sign-up", name]``
is told the name it got in the reply, ``["ok", name]``; the plain string
form keeps the course's bare "ok". Log lines show names through
``evolution.text.quoted``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from twisted.internet.interfaces import IAddress, IDelayedCall, IReactorTime
from twisted.internet.protocol import Protocol, ServerFactory
from twisted.logger import Logger
from twisted.python.failure import Failure

from evolution.games import SignupRules
from evolution.jsonwire.framing import DEFAULT_MAX_DEPTH, encode_message
from evolution.net.json_protocol import JSONStreamProtocol
from evolution.text import escape, quoted

log = Logger()

SIGNING_UP, IN_LOBBY, PLAYING, CLOSED, AWAY = "signing-up", "in-lobby", "playing", "closed", "away"
SIGNUP_MAX_BYTES = 4096
DEFAULT_MAX_REPLY = 16 * 1024
"""The default longest message of a signed-up client. A player only ever answers with an
Action4 or a feeding choice; written compactly, the largest legal Action4 is about 2 KB (it
names each of at most 122 cards once, ``evolution.jsonwire.schema_bounds``), so 16 KiB leaves room
for any reasonable whitespace while keeping the reading of one message to a few milliseconds
whatever bytes it holds (the framing scanner reads about 2 bytes a microsecond at worst)."""
DEFAULT_MAX_CONNECTIONS = 4096
DEFAULT_NUMBER_GRACE = 0.05
ASK_NAME = "sign-up"  # ["sign-up", name]: sign up, and be told the name the host gives
_HOST_SUFFIX = re.compile(r"#[0-9]+\Z")
_JSON_KINDS = {dict: "an object", list: "an array", bool: "true or false", int: "a number", float: "a number",
               type(None): "null"}


def signup_name(value: Any) -> tuple[str, bool]:
    """The name a sign-up gives where any JSON string is a name (stored as sent), and whether it asks to be
    told the name it gets (``["sign-up", name]``); ``ValueError`` with the reason for anything else."""
    if isinstance(value, str):
        return value, False
    if isinstance(value, list) and len(value) == 2 and value[0] == ASK_NAME and isinstance(value[1], str):
        return value[1], True
    what = _JSON_KINDS.get(type(value), type(value).__name__)
    raise ValueError(f'the sign-up is neither a JSON string nor ["{ASK_NAME}", name] but {what}')


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name#k`` (k from 2 up) if it is taken or ends in ``#`` and digits, as the host's names do."""
    if name not in taken and not _HOST_SUFFIX.search(name):
        return name
    k = 2
    while f"{name}#{k}" in taken:
        k += 1
    return f"{name}#{k}"


@dataclass(frozen=True)
class SignupConfig:
    min_players: int = 3
    max_players: int = 8
    signup_timeout: float = 5.0
    window: float = 10.0
    max_games: int | None = None
    max_bytes: int = DEFAULT_MAX_REPLY
    max_depth: int = DEFAULT_MAX_DEPTH
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    number_grace: float = DEFAULT_NUMBER_GRACE
    signup: SignupRules = SignupRules("ok", lambda value: signup_name(value))  # the dialect's; "ok" by default


def show_address(address: IAddress | None) -> str:
    """``host:port`` of an IP address, else what the address says of itself."""
    return f"{address.host}:{address.port}" if hasattr(address, "host") else str(address)


class HostProtocol(JSONStreamProtocol):
    """One client connection on the host."""

    factory: SignupFactory
    write_at_once = True

    def __init__(self) -> None:
        super().__init__()
        self.state = SIGNING_UP
        self.name = ""
        self.proxy: Any = None  # the game's proxy player (a RemoteSeat) while playing
        self._on_waiting_failure: Callable[[str], None] | None = None
        self._deadline: IDelayedCall | None = None
        self._got_bytes = False
        self._held = b""  # read while away (arriving): handed on at play() or wait()
        self._close_on_return = False

    @classmethod
    def arriving(cls, name: str, factory: Any) -> HostProtocol:
        """A signed-up connection about to be adopted from another process (``evolution.net.handover``)."""
        connection = cls()
        connection.factory, connection.name, connection.state = factory, name, AWAY
        return connection

    @property
    def peer(self) -> str:
        return show_address(self.transport.getPeer() if self.transport is not None else None)

    def connectionMade(self) -> None:
        config = self.factory.config
        away = self.state == AWAY  # adopted: signed up already, and counted where it was signed up
        self.max_bytes = config.max_bytes if away else min(SIGNUP_MAX_BYTES, config.max_bytes)
        self.max_depth = config.max_depth
        self.clock, self.number_grace = self.factory.clock, config.number_grace
        super().connectionMade()
        if away:
            if self._close_on_return:
                self.state = CLOSED
                self.close()
            return
        self.factory.open_connections += 1
        rules = config.signup
        if rules.silent:
            self._deadline = self.factory.clock.callLater(rules.silent_wait, self._kept_silent)
        else:
            self._set_deadline("no sign-up message")

    def _set_deadline(self, what: str) -> None:
        self._cancel_deadline()
        limit = self.factory.config.signup_timeout
        self._deadline = self.factory.clock.callLater(limit, self._signup_timed_out, f"{what} within {limit:g} s")

    def _cancel_deadline(self) -> None:
        if self._deadline is not None and self._deadline.active():
            self._deadline.cancel()
        self._deadline = None

    def _signup_timed_out(self, reason: str) -> None:
        self._deadline = None
        self.refuse(reason)

    def _kept_silent(self) -> None:
        self._deadline = None
        self.factory.sign_up_silent(self)

    def dataReceived(self, data: bytes) -> None:
        if self.state == AWAY:
            self._held += data
            return
        if self.state == SIGNING_UP and self.factory.config.signup.silent:
            if data.strip(b" \t\r\n"):
                self.refuse("spoke before the host asked anything: in this dialect a client signs up by "
                            "connecting and waiting in silence")
            return
        first = self.state == SIGNING_UP and not self._got_bytes and data
        super().dataReceived(data)
        if first:  # a sign-up begun but not complete has the limit again, from its first bytes
            self._got_bytes = True
            if self.state == SIGNING_UP and self._reading():
                self._set_deadline("sign-up message incomplete")

    def messageReceived(self, value: Any) -> None:
        if self.state == SIGNING_UP:
            self._cancel_deadline()
            self.factory.sign_up(self, value)
        elif self.state == IN_LOBBY:
            self._waiting_failed("sent a message while waiting for a game")
        elif self.state == PLAYING and self.proxy is not None:
            self.proxy.message_received(value, self.sent_before_value)

    def badInput(self, reason: str) -> None:
        if self.state == PLAYING and self.proxy is not None:
            self.proxy.input_failed(reason)
        elif self.state == IN_LOBBY:
            self._waiting_failed(f"malformed message: {reason}")
        else:
            self.refuse(f"malformed sign-up: {reason}")

    def resume(self, unread: bytes) -> None:
        """Adopted: keep what the last owner had read until ``play`` or ``wait`` says who hears it."""
        self._held += unread

    def _hand_on_held(self) -> None:
        held, self._held = self._held, b""
        if held and self.connected:
            super().dataReceived(held)

    def hold(self) -> None:
        """Between owners (a game over, its connection about to move): keep what arrives for the next one."""
        if self.state != CLOSED:
            self.state, self.proxy, self._on_waiting_failure = AWAY, None, None

    def unread(self) -> bytes:
        return super().unread() + self._held

    def hand_over(self) -> Any:
        """Give the connection to another process (``evolution.net.handover.take``): away from now on."""
        from evolution.net.handover import take

        self._cancel_deadline()
        handover = take(self)
        self.state, self.proxy, self._on_waiting_failure = AWAY, None, None
        return handover

    def connectionLost(self, reason: Failure = None) -> None:
        super().connectionLost(reason)
        self.factory.open_connections -= 1
        self._cancel_deadline()
        state, self.state = self.state, CLOSED
        if state == IN_LOBBY:
            self._waiting_failed("disconnected while waiting for a game")
        proxy, self.proxy = self.proxy, None  # a closed connection needs no player: no cycle is left
        if state == PLAYING and proxy is not None:
            proxy.connection_lost()

    # -- who holds the connection -------------------------------------------------------

    def wait(self, on_failure: Callable[[str], None]) -> None:
        """Wait for the next game; ``on_failure(reason)`` hears of a message, bad bytes or a disconnect."""
        if self.state == CLOSED:
            on_failure("disconnected while waiting for a game")
            return
        self.state, self.proxy, self._on_waiting_failure = IN_LOBBY, None, on_failure
        self._hand_on_held()

    def play(self, proxy: Any) -> None:
        """From now on every message goes to ``proxy``."""
        self.state, self.proxy, self._on_waiting_failure = PLAYING, proxy, None
        self._hand_on_held()

    def _waiting_failed(self, reason: str) -> None:
        on_failure, self._on_waiting_failure = self._on_waiting_failure, None
        if on_failure is not None:  # first, so that the holder may still tell the player why
            on_failure(reason)
        self.close()

    def refuse(self, reason: str) -> None:
        """A sign-up that failed: log it and hang up without a reply."""
        log.info("sign-up from {peer} refused: {reason}", peer=self.peer, reason=escape(reason))
        self.close()

    def signed_up(self, name: str, tell: bool = False) -> None:
        """In the lobby as ``name``: the dialect's reply ("ok", ``["ok", name]`` with ``tell``); later messages may be longer."""
        self.name = name
        self.set_max_bytes(self.factory.config.max_bytes)
        reply = self.factory.config.signup.reply
        if reply is not None:
            self.sendMessage([reply, name] if tell else reply)
        self.wait(lambda reason: self.factory.leave(self, reason))

    def close(self) -> None:
        """The host hangs up: whoever held the connection while it waited hears nothing of it (it knows)."""
        self._on_waiting_failure = None
        self._cancel_deadline()
        if self.state == AWAY and self.transport is None:  # in another process: closed when it comes back
            self._close_on_return = True
            return
        super().close()


class SignupFactory(ServerFactory):
    """Signs clients up into its lobby; the lobby's policy decides when they play."""

    protocol = HostProtocol
    noisy = False

    def __init__(self, config: SignupConfig, policy: Any, clock: IReactorTime) -> None:
        self.config = config
        self.clock = clock
        self.lobby: list[HostProtocol] = []
        self.open_connections = 0
        self.policy = policy
        self.policy.attach(self)

    def buildProtocol(self, addr: IAddress) -> Protocol | None:
        limit = self.config.max_connections
        if self.open_connections < limit:
            return super().buildProtocol(addr)
        log.info(
            "connection from {peer} answered 'game full': the host holds {limit} connections (--max-connections)",
            peer=show_address(addr),
            limit=limit,
        )
        return _GameFull()

    def is_full(self) -> bool:
        """True while the host takes no sign-ups (its policy says so)."""
        return not self.policy.accepting()

    def sign_up(self, connection: HostProtocol, value: Any) -> None:
        if self._full(connection):
            return
        try:
            sent, tell = self.config.signup.name(value)
        except ValueError as error:
            connection.refuse(str(error))
            return
        self._admit(connection, sent, tell)

    def sign_up_silent(self, connection: HostProtocol) -> None:
        """A client of a silent dialect kept silent: it signs up, named after its address."""
        if not self._full(connection):
            self._admit(connection, connection.peer, False)

    def _full(self, connection: HostProtocol) -> bool:
        """Answer "game full" and hang up if the host takes no more players."""
        if not self.is_full():
            return False
        log.info("sign-up from {peer} answered 'game full'", peer=connection.peer)
        connection.sendMessage("game full")
        connection.state = CLOSED
        connection.close()
        return True

    def _admit(self, connection: HostProtocol, sent: str, tell: bool) -> None:
        taken = {waiting.name for waiting in self.lobby} | self.policy.names_held()
        connection.signed_up(unique_name(sent, taken), tell)
        self.lobby.append(connection)
        log.info(
            "signed up {name}{sent} from {peer} ({count} waiting)",
            name=quoted(connection.name),
            sent="" if sent == connection.name else f" (it sent {quoted(sent)}, taken or of the host's form)",
            peer=connection.peer,
            count=len(self.lobby),
        )
        self.policy.joined()

    def rejoin(self, connection: HostProtocol) -> None:
        """A player back from its game waits in the lobby again, last, as if it had just signed up."""
        if connection.state == CLOSED:
            return
        connection.wait(lambda reason: self.leave(connection, reason))
        self.lobby.append(connection)
        self.policy.joined()

    def leave(self, connection: HostProtocol, reason: str) -> None:
        if connection in self.lobby:
            self.lobby.remove(connection)
            connection.state = CLOSED
            log.info(
                "{name} left the lobby: {reason}", name=quoted(connection.name), reason=escape(reason)
            )
            self.policy.left()

    def status(self) -> dict[str, Any]:
        """Who is waiting, and what for (the policy's ``status``)."""
        return {"waiting": [connection.name for connection in self.lobby], **self.policy.status()}

    def take_lobby(self, count: int | None = None) -> list[HostProtocol]:
        """Everyone in the lobby (or its first ``count``), in sign-up order; they leave the lobby."""
        if count is None or count >= len(self.lobby):
            players, self.lobby = self.lobby, []
        else:
            players, self.lobby = self.lobby[:count], self.lobby[count:]
        return players

    def stop(self) -> None:
        """Close the lobby: the policy stops its timers; everyone waiting is hung up on."""
        self.policy.stop()
        for connection in list(self.lobby):
            self.leave(connection, "the host is stopping")
            connection.close()


class _GameFull(Protocol):
    """A connection beyond the limit: "game full", then hang up without reading."""

    def connectionMade(self) -> None:
        self.transport.write(encode_message("game full"))
        self.transport.loseConnection()
