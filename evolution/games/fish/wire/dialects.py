"""Fish's two dialects on the wire: the course protocol (our default) and seed 004's.

Offers ``Request`` (what the host writes for one call and how it reads the
reply), ``FishWire`` and ``DIALECTS`` (``course``, ``seed004``): for each call
of the player interface the request its dialect writes, and the messages
around games (``start``, ``end``, ``gameResult``, ``Disqualify``). The
replies are the same in both: a Position, an Action. A dialect is a codec
choice, nothing more; the referee, the proxy and the checks are the same
(protocol.md 4 and 5):

    course   ["start", [true]] -> "void"        once, before a player's first game
             ["playing-as", [Color]] -> "void"
             ["playing-with", [[Color, ...]]] -> "void"
             ["setup", [State]] -> Position
             ["take-turn", [State, [Action or "skip", ...]]] -> Action
             ["end", [Boolean]] -> "void"        once, at the end (true: a winner)
    seed004  {"Communication": "Color", "Color": Color} -> [true]
             {"Communication": "Placement", "State": State} -> Position
             {"Communication": "Action", "State": State} -> Action
             {"Communication": "gameResult", "Result": Boolean} -> [true]   after every game
             {"Communication": "Disqualify", "Result": true}                 before hanging up

Texts are compact JSON, objects' keys in the reference's order (``codec``).
Seed 004 has no message for the other players' colours: its ``playing_with``
is None. A client reads what its host writes with ``messages.read_call``
and ``messages.read_seed004``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Sequence

from evolution.games.fish.rules.state import Action, Color, GameState
from evolution.games.fish.wire import codec
from evolution.games.fish.wire.messages import read_ack, read_action, read_position, read_void
from evolution.jsonwire.framing import encode_text

Json = Any


class Request(NamedTuple):
    """One call as the host writes it: its kind (as failures name it), its JSON text, the reader of the reply."""

    kind: str
    text: str
    read: Callable[[Json], Any]


@dataclass(frozen=True)
class FishWire:
    """What a dialect writes for each call of the player interface (``evolution.games.fish.rules.player``).

    ``first_round_limit``: a move in a game's first round has its own, longer limit (the course's
    referee; seed 004 gives every call the same).
    """

    name: str
    first_round_limit: bool
    playing_as: Callable[[Color], Request]
    playing_with: Callable[[Sequence[Color]], Request | None]
    setup: Callable[[GameState], Request]
    take_turn: Callable[[GameState, Sequence[Action]], Request]


# -- the course protocol -------------------------------------------------------------------


def _course(call: Json, read: Callable[[Json], Any]) -> Request:
    """A course call (``codec``'s ``[method, [argument, ...]]``) as compact JSON text, named by its method."""
    return Request(call[0], encode_text(call), read)


def start_request() -> Request:
    return _course(["start", [True]], read_void)


def end_request(won: bool) -> Request:
    return _course(["end", [won]], read_void)


COURSE = FishWire(
    name="course",
    first_round_limit=True,
    playing_as=lambda color: _course(codec.playing_as_call(color), read_void),
    playing_with=lambda colors: _course(codec.playing_with_call(colors), read_void),
    setup=lambda state: _course(codec.setup_call(state), read_position),
    take_turn=lambda state, actions: _course(codec.take_turn_call(state, actions), read_action),
)


# -- seed 004 -------------------------------------------------------------------------------


def seed004_text(communication: str, **fields: Json) -> str:
    """A seed 004 message, ``{"Communication": ..., ...}``, as compact JSON text."""
    return encode_text({"Communication": communication, **fields})


def game_result_request(won: bool) -> Request:
    return Request("gameResult", seed004_text("gameResult", Result=won), read_ack)


DISQUALIFY: Json = {"Communication": "Disqualify", "Result": True}


def _seed004_state(communication: str, state: GameState, read: Callable[[Json], Any]) -> Request:
    return Request(communication, seed004_text(communication, State=codec.state_to_json(state)), read)


SEED004 = FishWire(
    name="seed004",
    first_round_limit=False,
    playing_as=lambda color: Request("Color", seed004_text("Color", Color=color.value), read_ack),
    playing_with=lambda colors: None,
    setup=lambda state: _seed004_state("Placement", state, read_position),
    take_turn=lambda state, actions: _seed004_state("Action", state, read_action),
)

DIALECTS = {wire.name: wire for wire in (COURSE, SEED004)}
