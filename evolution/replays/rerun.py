"""Replaying a stored game of any game from its message log, in-process, and checking it reproduces the result.

Offers ``replay(game, log, observer=None) -> Replay``: the same referee, the
same proxy players (its dialect's) and the same checks as the live game,
set up as it was (its recorded setup and seed: the deck, the board), with
every seat's side of the conversation played back from the log
(``evolution.net.game_log``): each message the referee writes is compared
with the one the log says was written, each recorded reply is read through
the same validation, and each recorded failure happens again where it
happened (the referee's checkpoints). ``Replay.differences`` lists what did
not match, first difference first: a message, a removal, a score.

``observer(event, referee)`` sees the table after every step, as in a live
game, and with a ``GameLog`` in ``seat_log`` the proxies record into it what
they write and read, as they do in a live game (the web view draws replays
with both).
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

from twisted.internet.task import Clock

from evolution.games import Observer, game as game_named
from evolution.store.records import GameRecord, SeatRecord, seat_records
from evolution.net.game_log import GameLog
from evolution.net.remote_seat import CallSettings, RemoteSeat
from evolution.outcomes import GameResult
from evolution.coroutines import run_locally
from evolution.text import plural, short

_COMPARED = ("score", "rank", "removed_turn", "removed_step", "removed_reason")


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


@dataclass
class Replay:
    """What replaying a game gave: its result, the messages written, and every difference found."""

    game: GameRecord
    result: GameResult | None = None
    seats: tuple[SeatRecord, ...] = ()
    messages: int = 0
    differences: list[str] = field(default_factory=list)

    @property
    def reproduced(self) -> bool:
        return not self.differences


class ScriptedConnection:
    """One seat's side of a recorded conversation, played back to a proxy player as the dealer asks."""

    def __init__(self, seat: int, name: str, entries: list[list], replay: Replay) -> None:
        self.seat = seat
        self.name = name
        self.entries = deque(entries)
        self.replay = replay
        self.proxy: RemoteSeat | None = None
        self.messages_sent = 0

    def sendEncoded(self, text: str) -> None:
        value = json.loads(text)
        replay = self.replay
        replay.messages += 1
        self.messages_sent += 1
        entry = self.entries.popleft() if self.entries else None
        if entry is None or entry[2] != "out":
            self._differs(f"the host wrote message {replay.messages} to seat {self.seat} ({short(self.name, 40)}),"
                          f" which the log does not hold: {short(_compact(value), 200)}")
        elif _compact(entry[3]) != _compact(value):
            self._differs(f"message {replay.messages}, to seat {self.seat} ({short(self.name, 40)}), differs:"
                          f" stored {short(_compact(entry[3]), 200)}, replayed {short(_compact(value), 200)}")
        self.play_back()
        if self.proxy.asking is not None:  # the log went another way: no answer, no failure recorded
            self._differs(f"the log holds no answer of seat {self.seat} ({short(self.name, 40)})"
                          f" to message {replay.messages}")
            self.proxy.fail("the log holds no answer")

    def play_back(self) -> None:
        """Hand the proxy what the seat sent, and how it failed, up to the next message written to it."""
        while self.entries and self.entries[0][2] != "out":
            _, _, kind, payload, *rest = self.entries.popleft()
            if kind == "in":  # it came after the message just written
                self.proxy.message_received(payload, self.messages_sent)
            elif self.proxy.failure is None:
                self.proxy.fail(payload)
            elif self.proxy.failure != payload:
                self._differs(f"seat {self.seat} failed with {short(self.proxy.failure, 200)!r},"
                              f" the log says {short(payload, 200)!r}")

    def _differs(self, text: str) -> None:
        self.replay.differences.append(text)

    def read_waiting(self) -> None:
        pass  # every recorded reply is handed over as soon as its question is written

    def stop_reading(self) -> None:
        pass

    def close(self) -> None:
        pass


def replay(
    game: GameRecord, log: list[list], observer: Observer | None = None, seat_log: GameLog | None = None
) -> Replay:
    """Re-run ``game`` from its message log; compare every message written and the result."""
    outcome = Replay(game)
    kind = game_named(game.game)
    names = [seat.name for seat in game.players]
    calls = CallSettings(Clock(), game.settings.get("timeout", kind.default_timeout))
    connections = [
        ScriptedConnection(seat, name, [entry for entry in log if entry[1] == seat], outcome)
        for seat, name in enumerate(names, start=1)
    ]
    dialect = kind.dialect(game.settings.get("dialect", kind.dialects[0]))
    proxies = [dialect.proxy(connection, connection.name, connection.seat, calls) for connection in connections]
    for connection, proxy in zip(connections, proxies):
        connection.proxy = proxy
        if seat_log is not None:
            proxy.log = seat_log.seat(connection.seat)
    referee = kind.new_referee(proxies, kind.setup_of(game.settings), game.seed, observer)
    for _, seat, entry_kind, *payload in log:
        if entry_kind == "fail":
            reason, checkpoint = payload
            referee.expel(proxies[seat - 1], reason, after=checkpoint)
    outcome.result = run_locally(referee.play())
    outcome.seats = seat_records(names, outcome.result.ranking, outcome.result.removals)
    _compare(outcome, connections)
    return outcome


def _compare(outcome: Replay, connections: list[ScriptedConnection]) -> None:
    game = outcome.game
    for connection in connections:
        unread = [entry for entry in connection.entries if entry[2] == "out"]
        if unread:
            outcome.differences.append(
                f"the log holds {plural(len(unread), 'more message')} to seat {connection.seat} ({short(connection.name, 40)})"
                f" than the replay wrote, from {short(_compact(unread[0][3]), 200)}"
            )
    if outcome.result.turns != game.turns:
        outcome.differences.append(f"stored {plural(game.turns, 'turn')}, replayed {outcome.result.turns}")
    for stored, replayed in zip(game.players, outcome.seats):
        for name in _COMPARED:
            if getattr(stored, name) != getattr(replayed, name):
                outcome.differences.append(
                    f"seat {stored.seat} ({short(stored.name, 40)}): stored {name} {getattr(stored, name)!r},"
                    f" replayed {getattr(replayed, name)!r}"
                )
