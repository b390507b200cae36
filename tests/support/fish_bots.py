"""Fish clients for tests: a stand-in of the course's reference client, and clients that misbehave.

- ``StandIn``: what the course's reference client (Fish:Remote/client.rkt,
  SwDev:Testing/communication.rkt) does on the wire, in Python: it sends its
  name at once (compact JSON and a newline, no padding), then answers every
  call (``"void"``, a Position, an Action) with the reply preceded by 2,040
  spaces and written in pieces of a hundredth of its length (at least 10
  bytes), ``pause`` seconds apart; it reads the next call only once its
  reply is written; ``end`` is its last message (it answers and closes). It
  plays greedily, as the reference's greedy player, and records every
  message it received.
- ``FishAdversary``: the project's own client (either dialect, greedy) that,
  the first time the host sends a message of kind ``when`` (a course method,
  ``setup``, or a seed 004 ``Communication``, ``Placement``), runs ``act``
  instead of answering.
- ``Recorder``: a good client of ours that keeps what it receives;
  ``connect(port, make)`` connects one and gives its protocol;
- ``fish_client(port, name, dialect, player)``: a good client, as a Deferred
  of its outcome (or of its error).
"""

from __future__ import annotations

import json
from typing import Any, Callable

from twisted.internet import reactor
from twisted.internet.defer import CancelledError, Deferred, ensureDeferred
from twisted.internet.endpoints import TCP4ClientEndpoint
from twisted.internet.protocol import Factory
from twisted.internet.task import deferLater

from evolution.games import game
from evolution.net.client import ClientProtocol, LastReply, conversation
from tests.support.adversaries import Adversary, play
from tests.support.hosting import until

Act = Callable[[Adversary, Any], Any]
PADDING = 2040


def greedy() -> Any:
    return game("fish").strategy("greedy")


def humble() -> Any:
    """A player that takes the fewest fish it can: it places and moves where there are fewest (it loses)."""
    from evolution.games.fish.strategies.house import HousePlayer

    def place(state: Any) -> Any:
        free = [(fish, position) for position, fish in state.board.tiles_in_order() if not state.is_occupied(position)]
        return min(free)[1]

    def move(state: Any) -> Any:
        return min(state.legal_moves(), key=lambda m: (state.board.fish_at(m.target), m))

    return HousePlayer(place, move)


def message_kind(value: Any) -> str:
    """A course call's method, or a seed 004 message's ``Communication``."""
    if isinstance(value, list) and value and isinstance(value[0], str):
        return value[0]
    if isinstance(value, dict):
        return str(value.get("Communication"))
    return "unknown"


class Recorder(ClientProtocol):
    """A good client of ours (greedy) that keeps every message it receives, in ``received``."""

    def __init__(self, name: str, dialect: str = "course", player: Any = None) -> None:
        super().__init__(conversation(name, player or greedy(), "fish", dialect))
        self.received: list[Any] = []
        self.address = ""  # host:port of this end (the name a seed 004 host gives it)

    def connectionMade(self) -> None:
        local = self.transport.getHost()
        self.address = f"{local.host}:{local.port}"
        super().connectionMade()

    def _handle(self, value: Any) -> Any:
        self.received.append(value)
        return super()._handle(value)


class StandIn(Recorder):
    """The reference client's wire behaviour: name first, padded and trickled replies, ``end`` last."""

    def __init__(self, name: str, player: Any = None, pause: float = 0.005, pieces: int = 100) -> None:
        super().__init__(name, "course", player)
        self.pause = pause
        self.pieces = pieces
        self._waiting: Deferred | None = None  # the pause after a piece

    def connectionLost(self, reason: Any = None) -> None:
        if self._waiting is not None:
            self._waiting.cancel()
        super().connectionLost(reason)

    def sendMessage(self, value: Any) -> None:  # the name: compact JSON and a newline, at once
        self.transport.write(json.dumps(value, separators=(",", ":")).encode() + b"\n")

    def _answer(self, answer: Any) -> Deferred | None:
        last = isinstance(answer, LastReply)
        value = answer.value if last else answer
        written = ensureDeferred(self._trickle(json.dumps(value, separators=(",", ":")).encode()))
        return written.addCallback(lambda _: self.close() if last else None)

    async def _trickle(self, data: bytes) -> None:
        """2,040 spaces, then ``data`` in pieces a ``pause`` apart, then the newline."""
        if not self.connected:
            return
        self.transport.write(b" " * PADDING)
        size = max(len(data) // self.pieces, 10)
        for start in range(0, len(data), size):
            if not self.connected:
                return
            self.transport.write(data[start:start + size])
            self._waiting = deferLater(reactor, self.pause, lambda: None)
            try:
                await self._waiting
            except CancelledError:  # the host hung up
                return
            finally:
                self._waiting = None
        self.transport.write(b"\n")


class FishAdversary(Adversary):
    """A greedy Fish client (either dialect) that, at the first host message of kind ``when``, runs ``act``."""

    handled_first = ()

    def __init__(self, name: str, when: str, act: Act, dialect: str = "course") -> None:
        super().__init__(name, when, act, conversation(name, greedy(), "fish", dialect))

    def kind(self, value: Any) -> str:
        return message_kind(value)


async def fish_adversary(port: int, name: str, when: str, act: Act, dialect: str = "course") -> Any:
    """Connect an adversary; fires (with the outcome or its error) when the host hangs up."""
    return await play(port, lambda: FishAdversary(name, when, act, dialect))


async def connect(port: int, make: Callable[[], ClientProtocol]) -> Any:
    """A connected client protocol (``make()``); ``await protocol.done`` for its outcome."""
    endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1", port)
    return await endpoint.connect(Factory.forProtocol(make))


async def sign_up(host: Any, makers: list[Callable[[], ClientProtocol]]) -> list:
    """Connect the clients ``makers`` make, in order, each once the one before it is in the lobby.

    Seed 004's clients sign up by keeping silent for 2 s: they connect one right after another.
    """
    clients: list = []
    for make in makers:
        clients.append(await connect(host.port, make))
        if not host.factory.config.signup.silent:
            await until(lambda: len(host.factory.lobby) == len(clients) or host.tournaments.current is not None)
    return clients


def stand_in(port: int, name: str, **options: Any) -> Deferred:
    """A stand-in of the reference client; fires (with the outcome or its error) when the host hangs up."""
    return ensureDeferred(play(port, lambda: StandIn(name, **options)))


def fish_client(port: int, name: str, dialect: str = "course", player: Any = None) -> Deferred:
    """A good client of ours; fires (with the outcome or its error) when the host hangs up."""
    return ensureDeferred(play(port, lambda: ClientProtocol(conversation(name, player or greedy(), "fish", dialect))))


def answer_as(strategy: Callable[[Any], Any]) -> Act:
    """Answer with what ``strategy(message)`` gives (a JSON value: an illegal placement, a malformed move)."""
    return lambda client, message: client.sendMessage(strategy(message))
