# -*- test-case-name: tests.net.test_time_limits, tests.net.test_hardening, tests.net.test_signup -*-
"""The host's end of one client connection, through its whole life: signing up, waiting, playing, away, closed.

Offers ``HostProtocol`` (one per connection; its factory is the sign-up
factory, ``evolution.net.signup.SignupFactory``; ``wait(on_failure)``,
``fail_waiting(reason)``, ``play(proxy)``, ``hand_over()``, ``close()``, and
``arriving(name, factory)`` for a connection adopted from another process),
its states (``SIGNING_UP``, ``IN_LOBBY``, ``PLAYING``, ``CLOSED``, ``AWAY``),
``SIGNUP_MAX_BYTES`` (a sign-up's largest size) and ``show_address``.

What each state does with a message: docs/architecture.md,
"A connection in the host".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from twisted.internet.interfaces import IAddress, IDelayedCall
from twisted.logger import Logger
from twisted.python.failure import Failure

from evolution.net.json_protocol import JSONStreamProtocol
from evolution.text import escape

if TYPE_CHECKING:
    from evolution.net.signup import SignupFactory

log = Logger()

SIGNING_UP, IN_LOBBY, PLAYING, CLOSED, AWAY = "signing-up", "in-lobby", "playing", "closed", "away"
SIGNUP_MAX_BYTES = 4096


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
        self.address: str | None = None  # the peer's IP address, as its factory counts it
        self.shown_peer = ""  # the peer as first seen (behind a balancer the bot's, not the balancer's)
        self.waiting_since: float | None = None  # when it last came into its factory's lobby (the lobby's clock)
        self._on_waiting_failure: Callable[[str], None] | None = None
        self._holder_closes = False  # wait(closes=True): the holder hangs up on it once its failure is stored
        self._unheard = False  # failed so, and not hung up on yet
        self._deadline: IDelayedCall | None = None
        self._got_bytes = False
        self._sign_up_read = False  # its sign-up message has come (perhaps being proven: --accounts)
        self._held = b""  # read while away (arriving): handed on at play() or wait()
        self._close_on_return = False

    @classmethod
    def arriving(cls, name: str, factory: Any, peer: str = "") -> HostProtocol:
        """A signed-up connection about to be adopted from another process (``evolution.net.handover``)."""
        connection = cls()
        connection.factory, connection.name, connection.state = factory, name, AWAY
        connection.shown_peer = peer
        return connection

    @property
    def peer(self) -> str:
        """The client's ``host:port`` (behind a balancer, as its PROXY header named it)."""
        if self.shown_peer:
            return self.shown_peer
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
        peer = self.transport.getPeer() if self.transport is not None else None
        self.address = getattr(peer, "host", None)
        self.shown_peer = show_address(peer) if peer is not None else ""
        self.factory.opened(self)
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
        if self._unheard:
            return
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
            if self.state == SIGNING_UP and not self._sign_up_read and self._reading():
                self._set_deadline("sign-up message incomplete")

    def messageReceived(self, value: Any) -> None:
        if self.state == SIGNING_UP:
            self._cancel_deadline()
            self._sign_up_read = True
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
        elif getattr(self.factory, "identity", None) is None:  # (a worker's connections have no identity step)
            self.refuse(f"malformed sign-up: {reason}")
        else:  # --accounts: what it sent may hold a secret, and a framing error may quote some of it
            self.refuse(f"malformed sign-up: {reason.split(':')[0]} (what it sent is not shown)")

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
        self.factory.closed(self)
        self._cancel_deadline()
        state, self.state = self.state, CLOSED
        if state == IN_LOBBY:
            self._waiting_failed("disconnected while waiting for a game")
        proxy, self.proxy = self.proxy, None  # a closed connection needs no player: no cycle is left
        if state == PLAYING and proxy is not None:
            proxy.connection_lost()

    # -- who holds the connection -------------------------------------------------------

    def wait(self, on_failure: Callable[[str], None], closes: bool = False) -> None:
        """Wait for the next game; ``on_failure(reason)`` hears of a message, bad bytes or a disconnect, or at once
        of a bot's proof that no longer holds (``SignupFactory.no_longer_proven``: banned, a new secret); then the
        connection is hung up on, or, with ``closes``, left to its holder to hang up on (once what it decided is
        stored), what it sends meanwhile unread."""
        if self.state == CLOSED:
            on_failure("disconnected while waiting for a game")
            return
        self.state, self.proxy, self._on_waiting_failure = IN_LOBBY, None, on_failure
        self._holder_closes = closes
        revoked = self.factory.no_longer_proven(self)
        if revoked is not None:  # a ban or a new secret read while it played: it waits no more
            self._waiting_failed(revoked)
            return
        self._hand_on_held()

    def fail_waiting(self, reason: str) -> None:
        """If it waits for a game: whoever holds it hears ``reason`` (as of a message it sent), and it is hung up on."""
        if self.state == IN_LOBBY:
            self._waiting_failed(reason)

    def play(self, proxy: Any) -> None:
        """From now on every message goes to ``proxy`` (one closed already: ``proxy`` hears so at once, and fails its
        first question then, rather than waiting out its time limit for a peer that is gone)."""
        if self.state == CLOSED:  # (its proxy was let go as it closed)
            proxy.connection_lost()
            return
        self.state, self.proxy, self._on_waiting_failure = PLAYING, proxy, None
        self._hand_on_held()

    def _waiting_failed(self, reason: str) -> None:
        on_failure, self._on_waiting_failure = self._on_waiting_failure, None
        if on_failure is not None:  # first, so that the holder may still tell the player why
            on_failure(reason)
            if self._holder_closes:
                self._unheard = True  # out: nothing it sends is read now; its holder hangs up on it
                return
        self.close()

    def refuse(self, reason: str) -> None:
        """A sign-up that failed: log it, tell whoever watches the factory's refusals, hang up without a reply."""
        log.info("sign-up from {peer} refused: {reason}", peer=self.peer, reason=escape(reason))
        for watcher in list(self.factory.refusals):
            watcher(self, reason)
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
