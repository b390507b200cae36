# -*- test-case-name: tests.web.test_api, tests.web.test_model -*-
"""Replay frames: a finished game, step by step, from its stored message log.

Offers ``replay_frames(game, log) -> dict``, which re-runs the game with
``evolution.replays.rerun.replay`` and keeps the table after every step of
the referee, drawn by its game (``evolution.games.Drawing``), as
``{"id", "frames", "reproduced", "differences"}`` (at most
``MAX_DIFFERENCES``); and the read functions the web view's read process runs
(``evolution.web.read_process``): ``stored_replay(store, id)``, a stored
game's, and ``replay_of_text(store, record, log_text)``, a game the host
still holds in memory.

A frame's fields, and what a replay costs: docs/web-view.md (the API's
``replay``).
"""

from __future__ import annotations

import json
from typing import Any

from twisted.internet.task import Clock

from evolution.games import Drawing, Referee, game as game_named
from evolution.net.game_log import GameLog
from evolution.replays.rerun import replay
from evolution.store.queries import Missing, game_and_log
from evolution.store.records import GameRecord

MAX_DIFFERENCES = 20


class _Recorder:
    """The replay's observer: a frame per step, with the lines of the replies read in it.

    The replay's players are proxy players, which record every message they
    read into a seat log when given one; the replay gives them the
    recorder's, so the narrator reads the replies as the live view reads a
    running game's log.
    """

    def __init__(self, names: list[str], drawing: Drawing) -> None:
        self.names = names
        self.drawing = drawing
        self.log = GameLog(Clock())
        self.narrator = drawing.narrator(names, keep=None)
        self.frames: list[dict[str, Any]] = []

    def __call__(self, event: str, referee: Referee) -> None:
        lines = self.narrator.step(event, referee, self.log.entries)
        frame = self.drawing.table(referee, self.names, hands=True)
        frame["event"] = event
        frame["lines"] = lines
        self.frames.append(frame)


def replay_frames(game: GameRecord, log: list) -> dict[str, Any]:
    names = [seat.name for seat in game.players]
    recorder = _Recorder(names, game_named(game.game).drawing())
    outcome = replay(game, log, recorder, recorder.log)
    return {
        "id": game.id,
        "frames": recorder.frames,
        "reproduced": outcome.reproduced,
        "differences": outcome.differences[:MAX_DIFFERENCES],
    }


def _frames(record: GameRecord, entries: list | None) -> dict[str, Any]:
    if entries is None:
        raise Missing(f"game {record.id} has no stored message log to replay")
    return replay_frames(record, entries)


def replay_of_text(_store: Any, record: GameRecord, log_text: str) -> dict[str, Any]:
    """A game the host still holds in memory (its log's JSON text), replayed."""
    return _frames(record, json.loads(log_text))


def stored_replay(store: Any, game_id: int) -> dict[str, Any]:
    """A stored game, replayed; ``Missing`` if there is no such game or it has no log."""
    record, entries = game_and_log(store, game_id)
    if record is None:
        raise Missing(f"there is no game {game_id}")
    return _frames(record, entries)
