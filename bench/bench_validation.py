"""Validation cost: microseconds per feed-next State and per Action4.

Messages come from real games of silly players (shuffled decks), as the host
encodes them. For each kind: the schema check alone (``SCHEMAS.check``:
jsonschema-rs, then the strict-integer pass), jsonschema-rs by itself, the
whole ``read_*`` pipeline (schema, codec, rules), and, for comparison, the
generic Python ``jsonschema`` validator walking the same schema.
"""

from __future__ import annotations

import json
import statistics
import time
from typing import Any, Callable, Sequence

import jsonschema_rs

from evolution.rules.actions import Action4
from evolution.rules.cards import Deck
from evolution.rules.dealer import Dealer
from evolution.rules.local import run_locally
from evolution.rules.player import FeedingState
from evolution.rules.player_state import PlayerView
from evolution.rules.silly import SillyPlayer
from evolution.wire import codec
from evolution.wire.messages import read_action4, read_feed_next
from evolution.wire.schemas import SCHEMAS

GAMES = 120
PLAYERS = 8
REPEATS = 5


class _Recorder(SillyPlayer):
    """A silly player that keeps what it was shown and what it answered."""

    def __init__(self, states: list[FeedingState], actions: list[tuple[Action4, PlayerView]]) -> None:
        super().__init__()
        self.states, self.actions = states, actions

    def choose(self, before: Any, after: Any) -> Action4:
        action = super().choose(before, after)
        self.actions.append((action, self.me))
        return action

    def feed_next(self, state: FeedingState) -> Any:
        self.states.append(state)
        return super().feed_next(state)


def _record() -> tuple[list[FeedingState], list[tuple[Action4, PlayerView]]]:
    states: list[FeedingState] = []
    actions: list[tuple[Action4, PlayerView]] = []
    for seed in range(GAMES):
        for players in (3, PLAYERS):
            recorders = [_Recorder(states, actions) for _ in range(players)]
            run_locally(Dealer.new_game(recorders, Deck.shuffled(seed)).play())
    return states, actions


def _per_message_us(check: Callable[[Any], Any], values: Sequence[Any]) -> float:
    """Median over REPEATS passes of the mean microseconds per value."""
    passes = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        for value in values:
            check(value)
        passes.append((time.perf_counter() - started) * 1e6 / len(values))
    return statistics.median(passes)


def _size(values: Sequence[Any]) -> str:
    sizes = [len(json.dumps(value, separators=(",", ":"))) for value in values]
    return f"{statistics.mean(sizes):.0f} bytes mean, {max(sizes)} max"


def _rust(name: str) -> Callable[[Any], bool]:
    """jsonschema-rs alone on schema ``name``: JSON Schema's integers (3.0 passes)."""
    documents = SCHEMAS.documents.values()
    registry = jsonschema_rs.Registry((document["$id"], document) for document in documents)
    return jsonschema_rs.validator_for(SCHEMAS.documents[name], registry=registry).is_valid


def main() -> None:
    states, actions = _record()
    feeds = [codec.feed_next_to_json(state) for state in states]
    replies = [(codec.action4_to_json(action), view) for action, view in actions]
    action_values = [value for value, _ in replies]
    sample = max(1, len(feeds) // 10)

    print(f"feed-next State: {len(feeds)} messages from games of 3 and {PLAYERS} players ({_size(feeds)})")
    print(f"  schema check:            {_per_message_us(lambda v: SCHEMAS.check('feed-next', v), feeds):8.1f} us")
    print(f"  jsonschema-rs alone:     {_per_message_us(_rust('feed-next'), feeds):8.1f} us")
    print(f"  read_feed_next (full):   {_per_message_us(read_feed_next, feeds):8.1f} us")
    print(f"  generic jsonschema:      {_per_message_us(SCHEMAS.validator('feed-next').is_valid, feeds[:sample]):8.1f} us")
    print(f"Action4: {len(replies)} replies of the silly strategy ({_size(action_values)})")
    print(f"  schema check:            {_per_message_us(lambda v: SCHEMAS.check('action4', v), action_values):8.1f} us")
    print(f"  jsonschema-rs alone:     {_per_message_us(_rust('action4'), action_values):8.1f} us")
    print(f"  read_action4 (full):     {_per_message_us(lambda r: read_action4(*r), replies):8.1f} us")
    print(f"  generic jsonschema:      {_per_message_us(SCHEMAS.validator('action4').is_valid, action_values[:sample]):8.1f} us")
