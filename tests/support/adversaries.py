"""Real clients that misbehave: each plays like the silly player until its moment comes.

An ``Adversary`` is the project's own ``ClientProtocol`` with one twist: the
first time the host sends it a message of kind ``when`` ("start", "choose" or
"feed-next"), it runs ``act(client, message)`` instead of answering normally
(``fish_bots.FishAdversary`` is one for Fish).

``BadSignUps``: the bad sign-ups every game's host must shrug off, as tests
for a test case that says what a game beside them is (``game_beside``).
"""

from __future__ import annotations

import json
from typing import Any, Callable

from twisted.internet import reactor
from twisted.internet.defer import Deferred, ensureDeferred
from twisted.internet.endpoints import TCP4ClientEndpoint
from twisted.internet.protocol import Factory, Protocol

from evolution.games.evolution.wire import codec
from evolution.games.evolution.wire.messages import message_kind, read_feed_next
from evolution.jsonwire.framing import encode_message
from evolution.net.client import ClientProtocol, conversation
from tests.support.hosting import HonestSilly

Act = Callable[["Adversary", Any], Any]


class Adversary(ClientProtocol):
    """``talk``: the conversation it holds (a silly Evolution player's by default); ``kind`` names a host message."""

    handled_first = ("start",)  # kinds it also answers as usual before acting (the strategy sees its hand)

    def __init__(self, name: str, when: str, act: Act, talk: Any = None) -> None:
        super().__init__(talk or conversation(name, HonestSilly()))
        self.when = when
        self.act = act
        self.acted = False
        self.timers: list = []

    def kind(self, value: Any) -> str:
        return message_kind(value)

    def connectionLost(self, reason: Any = None) -> None:
        for timer in self.timers:
            if timer.active():
                timer.cancel()
        super().connectionLost(reason)

    def _handle(self, value: Any) -> Any:
        if not self.acted and self.kind(value) == self.when:  # a sign-up reply is of no kind it acts on
            self.acted = True
            if self.when in self.handled_first:
                super()._handle(value)
            return self.act(self, value)
        return super()._handle(value)


class Terse(ClientProtocol):
    """A silly player that writes each message as ``json.dumps`` gives it: no delimiter after it."""

    def sendMessage(self, value: Any) -> None:
        if self.transport is not None and self.connected:
            self.transport.write(json.dumps(value).encode())


async def play(port: int, make: Callable[[], ClientProtocol]) -> Any:
    """Connect a client; fires (with the outcome or its error) when the host hangs up."""
    endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1", port)
    protocol = await endpoint.connect(Factory.forProtocol(make))
    try:
        return await protocol.done
    except Exception as error:  # the client's own view of the end does not matter
        return error


async def adversary(port: int, name: str, when: str, act: Act) -> Any:
    """Connect an adversary; fires (with the outcome or its error) when the host hangs up."""
    return await play(port, lambda: Adversary(name, when, act))


def silent(client: Adversary, message: Any) -> None:
    """Never answer."""


def send(value: Any) -> Act:
    return lambda client, message: client.sendMessage(value)


def raw(data: bytes) -> Act:
    return lambda client, message: client.transport.write(data)


def disconnect(client: Adversary, message: Any) -> None:
    client.transport.loseConnection()


def trickle(data: bytes, interval: float) -> Act:
    """Write ``data`` one byte every ``interval`` seconds."""

    def act(client: Adversary, message: Any) -> None:
        def write(i: int) -> None:
            if i < len(data) and client.connected:
                client.transport.write(data[i:i + 1])
                client.timers.append(reactor.callLater(interval, write, i + 1))

        write(0)

    return act


def answer_twice(client: Adversary, message: Any) -> None:
    """Answer feed-next as the silly player would, twice, in one write."""
    choice = client.conversation.player.feed_next(read_feed_next(message))
    client.transport.write(encode_message(codec.feeding_choice_to_json(choice)) * 2)


def then_silly(extra: Any) -> Act:
    """Answer like the silly player, then send ``extra`` nobody asked for."""

    def act(client: Adversary, message: Any) -> Any:
        result = ClientProtocol._handle(client, message)
        client.sendMessage(extra)
        return result

    return act


class RawClient(Protocol):
    """A connection that only writes the given bytes and records what comes back."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.received = b""
        self.closed: Deferred[bytes] = Deferred()
        self.first_line: Deferred[bytes] = Deferred()

    def connectionMade(self) -> None:
        if self.data:
            self.transport.write(self.data)

    def dataReceived(self, data: bytes) -> None:
        self.received += data
        if b"\n" in self.received and not self.first_line.called:
            self.first_line.callback(self.received.split(b"\n")[0] + b"\n")

    def connectionLost(self, reason: Any = None) -> None:
        if not self.first_line.called:
            self.first_line.callback(self.received)
        self.closed.callback(self.received)


async def raw_connection(port: int, data: bytes = b"") -> RawClient:
    """An open connection that has written ``data``; close it with ``transport.loseConnection()``."""
    endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1", port)
    return await endpoint.connect(Factory.forProtocol(lambda: RawClient(data)))


async def raw_client(port: int, data: bytes) -> bytes:
    """Send ``data`` as the first bytes; return everything the host wrote before closing."""
    return await (await raw_connection(port, data)).closed


class BadSignUps:
    """Bad sign-ups: none joins a game or hears a word, and the game beside it is played.

    A ``unittest.TestCase`` mixes it in and gives ``game_beside(data)``: a raw
    client writes ``data`` while good ones play a game; it returns what the raw
    client received, having checked that the game was the good ones'.
    """

    async def game_beside(self, data: bytes) -> bytes:
        raise NotImplementedError

    async def test_never_signs_up(self) -> None:
        self.assertEqual(await self.game_beside(b""), b"")

    async def test_signs_up_with_a_number(self) -> None:
        self.assertEqual(await self.game_beside(b"42 "), b"")

    async def test_signs_up_with_ill_formed_json(self) -> None:
        self.assertEqual(await self.game_beside(b"{name: bad}\n"), b"")

    async def test_sends_half_a_name(self) -> None:
        self.assertEqual(await self.game_beside(b'"half a na'), b"")

    async def test_signs_up_with_a_10_mb_name(self) -> None:
        self.assertEqual(await self.game_beside(b'"' + b"n" * 10_000_000 + b'"'), b"")


__all__ = ["adversary", "raw_client", "encode_message", "ensureDeferred"]
