# -*- test-case-name: tests.games.fish.wire.test_dialects, tests.games.fish.wire.test_sent_messages -*-
"""Reading every Fish message of both dialects: the schema first, then the codec.

Offers one ``read_*`` function per incoming message; each returns rules
values or raises ``WireError`` naming the field's JSON path and why:

- on the host: ``read_name`` (the course protocol's sign-up: 1 to 12 ASCII
  letters), ``read_void`` (its acknowledgement), ``read_ack`` (seed 004's
  ``[true]``), ``read_position`` and ``read_action`` (the replies to a
  placement and a move request, in both dialects). These check the shape
  only: whether a placement or a move is legal is the referee's to say
  (``FishReferee``'s choices), with the same words for a remote player as
  for a local one. ``read_placement(value, state)`` and ``read_move(value,
  state)`` add the referee's judgement, for ``evolution-schema check
  --context``;
- on a client: ``read_call`` (a course call: its method and its arguments
  as rules values) and ``read_seed004`` (a seed 004 message: its
  ``Communication`` and what it carries).

``MESSAGE_CHECKS`` is what ``evolution-schema check --game fish`` runs
beyond a message's schema (``evolution.games.Game.message_checks``).
"""

from __future__ import annotations

from typing import Any, Callable

from evolution.games.fish.rules.board import Position
from evolution.games.fish.rules.state import Action, Color, GameState, Move
from evolution.games.fish.wire import codec
from evolution.games.fish.wire.schemas import SCHEMAS
from evolution.jsonwire.schema_reasons import show
from evolution.jsonwire.wire_errors import WireError

Json = Any

NAME_LENGTH = 12
"""The longest name the course's server takes (Fish:Remote/server.rkt, ``short-string?``)."""

# -- the host reads --------------------------------------------------------------------


def read_name(value: Json) -> str:
    """The name a course client signs up with: a string of 1 to 12 ASCII letters."""
    if SCHEMAS.is_valid("name", value):
        return value
    if type(value) is not str:
        raise WireError("name", f"{show(value)} is not a string")
    if not 1 <= len(value) <= NAME_LENGTH:
        raise WireError("name", f"{show(value)} has {len(value)} characters; a name has 1 to {NAME_LENGTH}")
    raise WireError("name", f"{show(value)} holds more than ASCII letters (A-Z, a-z)")


def read_void(value: Json) -> None:
    SCHEMAS.check("void", value)


def read_ack(value: Json) -> None:
    SCHEMAS.check("seed004/ack", value)


def read_position(value: Json) -> Position:
    """A position ``[row, column]`` (the reply to setup, or to seed 004's Placement)."""
    SCHEMAS.check("position", value)
    return codec.position_from_json(value, "position")


def read_action(value: Json) -> Move:
    """A move ``[from, to]`` (the reply to take-turn, or to seed 004's Action)."""
    SCHEMAS.check("action", value)
    return codec.move_from_json(value, "action")


def read_placement(value: Json, state: GameState) -> Position:
    """``read_position``, legal for the first player of ``state`` (as the referee judges it)."""
    position = read_position(value)
    return _legal(position, state.placement_problem(position), "position")


def read_move(value: Json, state: GameState) -> Move:
    """``read_action``, legal for the first player of ``state`` (as the referee judges it)."""
    move = read_action(value)
    return _legal(move, state.move_problem(move), "action")


def _legal(choice: Any, problem: str | None, path: str) -> Any:
    if problem is not None:
        raise WireError(path, problem)
    return choice


# -- a client reads: the course protocol -------------------------------------------------

CALLS = ("start", "playing-as", "playing-with", "setup", "take-turn", "end")


def call_method(value: Json) -> str | None:
    """The method a course call names (``["setup", [...]]`` -> ``setup``), if it is one of ``CALLS``."""
    if type(value) is list and value and value[0] in CALLS:
        return value[0]
    return None


def read_call(value: Json) -> tuple[str, tuple[Any, ...]]:
    """A course call: its method and its arguments as rules values (a Color, a GameState, ...)."""
    method = call_method(value)
    if method is None:
        raise WireError("call", f"{show(value)} is not a call of the course protocol ({', '.join(CALLS)})")
    SCHEMAS.check(method, value)
    arguments = value[1]
    return method, _CALL_ARGUMENTS[method](arguments, method)


def _state(value: Json, path: str) -> GameState:
    return codec.state_from_json(value, path)


def _actions(value: Json, path: str) -> tuple[Action, ...]:
    return tuple(codec.action_from_json(action, f"{path}[{i}]") for i, action in enumerate(value))


_CALL_ARGUMENTS: dict[str, Callable[[list, str], tuple[Any, ...]]] = {
    "start": lambda arguments, path: (arguments[0],),
    "end": lambda arguments, path: (arguments[0],),
    "playing-as": lambda arguments, path: (codec.color_from_json(arguments[0], f"{path}.colour"),),
    "playing-with": lambda arguments, path: (
        tuple(codec.color_from_json(color, f"{path}.others[{i}]") for i, color in enumerate(arguments[0])),
    ),
    "setup": lambda arguments, path: (_state(arguments[0], f"{path}.state"),),
    "take-turn": lambda arguments, path: (
        _state(arguments[0], f"{path}.state"), _actions(arguments[1], f"{path}.actions"),
    ),
}


# -- a client reads: seed 004 -----------------------------------------------------------------

COMMUNICATIONS = {
    "Color": "seed004/color",
    "Placement": "seed004/placement",
    "Action": "seed004/action",
    "Disqualify": "seed004/disqualify",
    "gameResult": "seed004/game-result",
}
"""Seed 004's messages by their ``Communication``, and the schema of each."""


def read_seed004(value: Json) -> tuple[str, Any]:
    """A seed 004 message: its ``Communication`` and what it carries (a Color, a GameState, a Boolean)."""
    communication = value.get("Communication") if type(value) is dict else None
    if communication not in COMMUNICATIONS:
        raise WireError(
            "message", f"{show(value)} is not a seed 004 message (Communication: {', '.join(COMMUNICATIONS)})"
        )
    name = COMMUNICATIONS[communication]
    SCHEMAS.check(name, value)
    if communication == "Color":
        return communication, Color(value["Color"].lower())
    if communication in ("Placement", "Action"):
        return communication, _state(value["State"], f"{name.split('/')[1]}.State")
    return communication, value["Result"]


def _call_reader(method: str) -> Callable[[Json], Any]:
    return lambda value: _checked_call(method, value)


def _checked_call(method: str, value: Json) -> tuple[Any, ...]:
    SCHEMAS.check(method, value)
    return read_call(value)[1]


def _seed004_reader(name: str) -> Callable[[Json], Any]:
    def read(value: Json) -> Any:
        SCHEMAS.check(name, value)
        return read_seed004(value)[1]

    return read


MESSAGE_CHECKS = (
    {
        "name": read_name,
        "void": read_void,
        "seed004/ack": read_ack,
        **{method: _call_reader(method) for method in CALLS},
        **{name: _seed004_reader(name) for name in COMMUNICATIONS.values()},
    },
    {
        "position": ("setup", lambda value: _checked_call("setup", value)[0], read_placement),
        "action": ("take-turn", lambda value: _checked_call("take-turn", value)[0], read_move),
    },
)
"""What ``evolution-schema check --game fish`` runs beyond a message's schema: the readers of the
messages that need nothing else, and for each reply the message it answers (a placement is checked
against a setup's state, a move against a take-turn's)."""
