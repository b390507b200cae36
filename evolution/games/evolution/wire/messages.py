"""Reading every message: schema first, then the codec, then the rules.

Offers one ``read_*`` function per incoming message. Each returns rules values
or raises ``WireError`` with one reason and the JSON path it is about:

- on the host: ``read_signup`` (a name), ``read_action4`` (checked against the
  hand and boards the player was shown; ``read_legal_action4`` keeps them with
  it, for the dealer), ``read_feeding_choice`` (checked
  against the feed-next state it answers);
- on a client: ``read_start``, ``read_choose``, ``read_feed_next``,
  ``read_signup_reply``, ``read_score``, and ``message_kind``, which tells the
  host's messages apart by their shape (messages.md 10).

The three gates, in order:

1. the schema (``evolution.jsonwire.schema_set``: jsonschema-rs, so a valid message
   costs microseconds): shapes, ranges, valid cards, traits at most once;
2. the codec: what a schema cannot say about one species (food <=
   population, fat-food <= body);
3. the rules, for replies, with the reasons the dealer itself gives
   (``check_action``, ``FeedingChoice.check``): every index in range, each
   card used at most once, growth limits, no duplicate trait, whether an
   attack is allowed. The path names the offending entry
   (``action4.grow-population[0]: card 0 is used twice``).
"""

from __future__ import annotations

from typing import Any, Callable

from evolution.games.evolution.rules.actions import Action4, LegalAction4, check_action, legal_action
from evolution.games.evolution.rules.errors import RulesViolation
from evolution.games.evolution.rules.feeding import FeedingChoice
from evolution.games.evolution.rules.player import LOB, FeedingState
from evolution.games.evolution.rules.player_state import PlayerView
from evolution.games.evolution.wire import codec
from evolution.games.evolution.wire.schemas import SCHEMAS
from evolution.jsonwire.wire_errors import WireError

Json = Any


def _rules_error(message: str, violation: RulesViolation) -> WireError:
    path = f"{message}.{violation.where}" if violation.where else message
    return WireError(path, violation.reason)


def read_signup(value: Json) -> str:
    """The name a sign-up gives (a string, or ``["sign-up", name]``)."""
    SCHEMAS.check("signup", value)
    return value if isinstance(value, str) else value[1]


def read_action4(value: Json, me: PlayerView) -> Action4:
    """An Action4 that is legal for a player holding ``me``'s boards and hand."""
    return _read_action4(value, me, check_action)


def read_legal_action4(value: Json, me: PlayerView) -> LegalAction4:
    """``read_action4``, keeping the boards and hand it was found legal against (the dealer checks no further)."""
    return _read_action4(value, me, legal_action)


def _read_action4(value: Json, me: PlayerView, check: Callable[[Action4, Any, Any], Action4]) -> Any:
    SCHEMAS.check("action4", value)
    action = codec.action4_from_json(value)
    try:
        return check(action, me.boards, me.hand)
    except RulesViolation as violation:
        raise _rules_error("action4", violation) from None


def read_feeding_choice(value: Json, state: FeedingState) -> FeedingChoice:
    """A feeding choice that is one of the options of ``state``."""
    SCHEMAS.check("feeding-choice", value)
    choice = codec.feeding_choice_from_json(value)
    try:
        choice.check(state.boards, state.others)
    except RulesViolation as violation:
        raise _rules_error("feeding-choice", violation) from None
    return choice


def read_start(value: Json) -> tuple[int, PlayerView]:
    SCHEMAS.check("start", value)
    return codec.start_from_json(value)


def read_choose(value: Json) -> tuple[LOB, LOB]:
    SCHEMAS.check("choose", value)
    return codec.choose_from_json(value)


def read_feed_next(value: Json) -> FeedingState:
    SCHEMAS.check("feed-next", value)
    return codec.feed_next_from_json(value)


def read_signup_reply(value: Json) -> str | list:
    """The host's answer to a sign-up: "ok", "ack", "game full", or ``["ok", name]`` (``["ack", name]``)."""
    SCHEMAS.check("signup-reply", value)
    return value


def read_score(value: Json) -> list[tuple[int, int]]:
    SCHEMAS.check("score", value)
    return codec.score_from_json(value)


def message_kind(value: Json) -> str:
    """Which host message ``value`` is, by shape: its schema name, or ``unknown``."""
    if isinstance(value, str) or (isinstance(value, list) and len(value) == 2 and value[0] in ("ok", "ack")):
        return "signup-reply"
    if not isinstance(value, list):
        return "unknown"
    if value and all(isinstance(entry, list) and entry and all(type(x) is int for x in entry) for entry in value):
        return "score"
    if len(value) == 4 and type(value[0]) is int:
        return "start"
    if len(value) == 5:
        return "feed-next"
    if len(value) == 2 and all(isinstance(lob, list) for lob in value):
        return "choose"
    return "unknown"


MESSAGE_CHECKS = (
    {
        "signup": read_signup,
        "signup-reply": read_signup_reply,
        "start": read_start,
        "choose": read_choose,
        "feed-next": read_feed_next,
        "score": read_score,
    },
    {
        "action4": ("start", lambda value: read_start(value)[1], read_action4),
        "feeding-choice": ("feed-next", read_feed_next, read_feeding_choice),
    },
)
"""What ``evolution-schema check`` runs beyond a message's schema: readers of the messages that need
nothing else, and for each reply the message it answers (``evolution.games.Game.message_checks``)."""
