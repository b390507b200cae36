# -*- test-case-name: tests.games.fish.net.test_dialects, tests.games.fish.net.test_time_limits -*-
"""A client's side of one connection to a Fish host, in either dialect (``evolution-client --game fish``).

Offers ``CourseConversation`` and ``Seed004Conversation`` (the client's
``conversation`` of ``evolution.net.client``: ``sign_up()``, ``handle(value)``,
``outcome``). Each reads the host's message through the wire layer
(``evolution.games.fish.wire.messages``: schema, then codec, so a bad
message is a ``ClientError`` naming the field), hands it to the player
(any object with Fish's player interface; its methods may return Deferreds)
and answers:

    course   its name first (1 to 12 ASCII letters, checked before it
             connects); "void" to start, playing-as, playing-with and end;
             setup -> the player's Position; take-turn -> its Move; after
             end's "void" it hangs up (``outcome.won`` says what end said)
    seed004  nothing to sign up; [true] to Color and gameResult (each
             gameResult counts a game and sets ``outcome.won``); Placement ->
             a Position; Action -> a Move (the player is shown no actions
             since its last turn: seed 004 sends none); Disqualify -> [true],
             then it hangs up and ends with ``Removed``

A course client counts a game when it is told its colour (the course
protocol says nothing at a game's end); ``outcome.turns`` counts the moves
it was asked for.
"""

from __future__ import annotations

from typing import Any, Callable

from evolution.games.fish.wire.messages import read_call, read_name, read_seed004
from evolution.jsonwire.schema_reasons import show
from evolution.jsonwire.wire_errors import WireError
from evolution.net.client import ClientError, ClientOutcome, LastReply, Removed, answered

Json = Any
VOID = "void"
ACK = [True]


def _acknowledge(ack: Json) -> Callable[[Any], Json]:
    return lambda _: ack


def _read(reader: Callable[[Json], Any], value: Json) -> Any:
    """``reader(value)``; a message the wire layer refuses breaks the protocol (``ClientError``)."""
    try:
        return reader(value)
    except WireError as error:
        raise ClientError(f"the host sent an invalid message: {error}") from None


class CourseConversation:
    """The course protocol, as the course's reference client speaks it (without its padding and trickling)."""

    def __init__(self, name: str, player: Any) -> None:
        try:
            read_name(name)
        except WireError:
            raise ValueError(
                f"the course's Fish protocol takes a name of 1 to 12 ASCII letters, not {show(name)}"
            ) from None
        self.name = name
        self.player = player
        self.outcome = ClientOutcome(name)

    def sign_up(self) -> Json:
        return self.name

    def handle(self, value: Json) -> Any:
        method, arguments = _read(read_call, value)
        return getattr(self, "_" + method.replace("-", "_"))(*arguments)

    def _start(self, started: bool) -> Json:
        return VOID

    def _playing_as(self, color: Any) -> Any:
        self.outcome.games += 1
        return answered(self.player.playing_as(color), _acknowledge(VOID))

    def _playing_with(self, colors: Any) -> Any:
        return answered(self.player.playing_with(colors), _acknowledge(VOID))

    def _setup(self, state: Any) -> Any:
        return self.player.setup(state)  # a Position: its tuple is sent as an array

    def _take_turn(self, state: Any, actions: Any) -> Any:
        self.outcome.turns += 1
        return self.player.take_turn(state, actions)

    def _end(self, won: bool) -> LastReply:
        self.outcome.won = won
        return LastReply(VOID)


class Seed004Conversation:
    """Seed 004's object messages: the client signs up by connecting and waiting."""

    def __init__(self, name: str, player: Any) -> None:
        self.name = name
        self.player = player
        self.outcome = ClientOutcome(name)

    def sign_up(self) -> None:
        return None  # seed 004's clients say nothing until asked

    def handle(self, value: Json) -> Any:
        communication, payload = _read(read_seed004, value)
        if communication == "Color":
            return answered(self.player.playing_as(payload), _acknowledge(ACK))
        if communication == "Placement":
            return self.player.setup(payload)
        if communication == "Action":
            self.outcome.turns += 1
            return self.player.take_turn(payload, ())
        if communication == "gameResult":
            self.outcome.games += 1
            self.outcome.won = payload
            return ACK
        return LastReply(ACK, Removed("the host disqualified this player"))
