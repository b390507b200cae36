"""Validation cost: microseconds per feed-next State and per Action4; the worst hostile reply.

Messages come from real games of silly players (shuffled decks), as the host
encodes them. For each kind: the schema check alone (``SCHEMAS.check``:
jsonschema-rs, then the strict-integer pass), jsonschema-rs by itself, the
whole ``read_*`` pipeline (schema, codec, rules), and, for comparison, the
generic Python ``jsonschema`` validator walking the same schema.

Then Action4 replies built to be slow to reject (``_hostile``, each under the
1 MiB message limit): the milliseconds the host spends reading the bytes
(``JSONStreamDecoder``, the framing, for comparison) and rejecting the value
(``read_action4``: check and explanation), median of ``REPEATS`` runs each,
and the worst rejection.
The reactor does nothing else meanwhile.
"""

from __future__ import annotations

import json
import statistics
import time
from typing import Any, Callable, Sequence

import jsonschema_rs

from evolution.games.evolution.rules.actions import Action4
from evolution.games.evolution.rules.cards import Deck
from evolution.games.evolution.rules.dealer import Dealer
from evolution.games.evolution.rules.local import run_locally
from evolution.games.evolution.rules.player import FeedingState
from evolution.games.evolution.rules.player_state import PlayerView
from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.games.evolution.wire import codec
from evolution.games.evolution.wire.messages import read_action4, read_feed_next
from evolution.games.evolution.wire.schemas import SCHEMAS
from evolution.jsonwire.framing import JSONStreamDecoder, encode_message
from evolution.jsonwire.wire_errors import WireError

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


def _figures(name: str, values: Sequence[Any], reader: str, read: Callable[[Any], Any], reads: Sequence[Any]) -> None:
    sample = values[: max(1, len(values) // 10)]
    print(f"  schema check:            {_per_message_us(lambda v: SCHEMAS.check(name, v), values):8.1f} us")
    print(f"  jsonschema-rs alone:     {_per_message_us(_rust(name), values):8.1f} us")
    print(f"  {reader + ' (full):':<24} {_per_message_us(read, reads):8.1f} us")
    print(f"  generic jsonschema:      {_per_message_us(SCHEMAS.validator(name).is_valid, sample):8.1f} us")


def main() -> None:
    states, actions = _record()
    feeds = [codec.feed_next_to_json(state) for state in states]
    replies = [(codec.action4_to_json(action), view) for action, view in actions]
    action_values = [value for value, _ in replies]

    print(f"feed-next State: {len(feeds)} messages from games of 3 and {PLAYERS} players ({_size(feeds)})")
    _figures("feed-next", feeds, "read_feed_next", read_feed_next, feeds)
    print(f"Action4: {len(replies)} replies of the silly strategy ({_size(action_values)})")
    _figures("action4", action_values, "read_action4", lambda reply: read_action4(*reply), replies)
    hostile(replies[0][1])


def _nested(levels: int) -> Any:
    value: Any = 0
    for _ in range(levels):
        value = [value]
    return value


def _hostile() -> dict[str, Any]:
    """Action4 replies built to be slow to reject, each under 1 MiB."""
    deep = _nested(60)  # the framing refuses more than 64 levels
    return {
        "4,000 pairs and a string": [0, [[i, i + 1] for i in range(4000)] + ["x"], [], [], []],
        "8,000 pairs and a string": [0, [[i, i + 1] for i in range(8000)] + ["x"], [], [], []],
        "100,000 strings": [0, ["x"] * 100_000, [], [], []],
        "150,000 pairs": [0, [[i % 100, i % 7] for i in range(150_000)], [], [], []],
        "4,000 items no order sorts": [0, [[i, "a"] if i % 2 else ["a", i] for i in range(4000)], [], [], []],
        "every entry of every list wrong": [[deep]] + [[[{}, [deep], [], [], []] for _ in range(121)]] * 4,
        "nesting at every place": [deep, [[deep, deep]] * 121, [[deep, deep]] * 121, [[deep] * 4] * 121, []],
        "a 1 MiB string": [0, [[0, "x" * 1_000_000]], [], [], []],
    }


def _median_ms(run: Callable[[], Any]) -> float:
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1e3)
    return statistics.median(times)


def _reject(value: Any, me: PlayerView) -> None:
    try:
        read_action4(value, me)
    except WireError:
        return
    raise AssertionError("a hostile reply was accepted")


def hostile(me: PlayerView) -> None:
    print(f"Hostile Action4 replies (median of {REPEATS} runs; the host does nothing else meanwhile):")
    worst = 0.0
    for label, value in _hostile().items():
        data = encode_message(value)
        parse = _median_ms(lambda data=data: JSONStreamDecoder().feed(data))
        reject = _median_ms(lambda value=value: _reject(value, me))
        worst = max(worst, reject)
        print(f"  {label:34} {len(data) / 1024:7.0f} KiB  framing {parse:6.2f} ms  rejection {reject:6.2f} ms")
    print(f"  worst rejection:                                         {worst:6.2f} ms")
