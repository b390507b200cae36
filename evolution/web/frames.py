"""Replay frames: a finished game, step by step, from its stored message log.

Offers ``replay_frames(game, log) -> dict``, which re-runs the game with
``evolution.host.replay.replay`` (the same dealer, proxies and checks as the
live game, the deck of the stored seed) and keeps the table after every
step of the dealer. It runs on a worker thread (``evolution.web.reader``):
replaying costs about a millisecond per step, too long for the reactor.

    Replay = {"id": int, "frames": [Frame, ...], "reproduced": bool, "differences": [str, ...]}
    Frame  = Table (see ``evolution.web.tables``, with each player's "cards")
             + {"event": str, "lines": [Line, ...]}

``event`` is the dealer's step that ended (start, choose, start-of-feeding,
feed, end-of-turn); ``lines`` say what the players answered in it. A game's
hands are shown once it is over: the stored log holds them anyway.
``differences`` lists where the replay left the stored record (a damaged
log, or a game the host aborted), at most ``MAX_DIFFERENCES`` of them.
"""

from __future__ import annotations

from typing import Any

from twisted.internet.task import Clock

from evolution.host.records import GameRecord
from evolution.host.replay import replay
from evolution.net.game_log import GameLog
from evolution.rules.dealer import Dealer
from evolution.web.tables import Narrator, table_json

MAX_DIFFERENCES = 20


class _Recorder:
    """The replay's observer: a frame per step, with the lines of the replies read in it.

    The replay's players are proxy players, which record every message they
    read into a seat log when given one (their ``log`` attribute); the
    recorder gives them its own, so the narrator reads the replies as the
    live view reads a running game's log.
    """

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.log = GameLog(Clock())
        self.narrator = Narrator(names, keep=None)
        self.frames: list[dict[str, Any]] = []

    def __call__(self, event: str, dealer: Dealer) -> None:
        for state in dealer.table.players:
            if getattr(state.player, "log", False) is None:
                state.player.log = self.log.seat(state.id)
        lines = self.narrator.step(event, dealer, self.log.entries)
        frame = table_json(dealer, self.names, cards=True)
        frame["event"] = event
        frame["lines"] = lines
        self.frames.append(frame)


def replay_frames(game: GameRecord, log: list) -> dict[str, Any]:
    names = [seat.name for seat in game.players]
    recorder = _Recorder(names)
    outcome = replay(game, log, recorder)
    return {
        "id": game.id,
        "frames": recorder.frames,
        "reproduced": outcome.reproduced,
        "differences": outcome.differences[:MAX_DIFFERENCES],
    }
