"""A game of Fish's table as JSON, and what its players did, in words: the web view's picture of it.

Offers ``DRAWING`` (``evolution.games.Drawing``: ``table``, ``narrator`` and
``drawing.js``, which draws the table in the page), ``table_json(referee,
names)`` and ``Narrator``.

Data definitions (the JSON the page draws)::

    Table   = {"turn": int, "step": str, "rows": int, "cols": int,
               "board": [[fish, ...], ...],          # 0 is a hole
               "players": [Player, ...],             # still in, the one to act first
               "removed": [Removal, ...]}
    Player  = {"seat": int, "name": str, "color": str, "score": int,
               "penguins": [[row, col], ...]}        # most recent first, as the wire has them
    Removal = {"seat", "name", "turn", "step", "reason"}
    Line    = {"turn": int, "step": str, "seat": int | None, "text": str}

Seats are numbered from 1, as the referee seats them (seat 1 plays red).
Nothing of Fish is hidden, so live pictures and replays show the same.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any, Sequence

from evolution.games.fish.rules.referee import FishReferee
from evolution.text import short

Json = Any
LINES_KEPT = 40
REASON_IN_TEXT = 300


def table_json(referee: FishReferee, names: Sequence[str], hands: bool = False) -> Json:
    state = referee.state
    board = state.board
    return {
        "turn": referee.turn,
        "step": referee.step,
        "rows": board.rows,
        "cols": board.cols,
        "board": board.to_rows(),
        "players": [
            {
                "seat": referee.seat_of(player.color),
                "name": names[referee.seat_of(player.color) - 1],
                "color": player.color,
                "score": player.score,
                "penguins": [[place.row, place.col] for place in player.places],
            }
            for player in state.players
        ],
        "removed": [
            {"seat": r.id, "name": names[r.id - 1], "turn": r.turn, "step": r.step, "reason": r.reason}
            for r in referee.removals
        ],
    }


def _position(value: Any) -> str:
    if isinstance(value, list) and len(value) == 2 and all(type(n) is int for n in value):
        return f"[{value[0]}, {value[1]}]"
    return "somewhere that is no position"


def describe_reply(value: Any) -> str | None:
    """What a player's reply says it does, in words (before the referee has judged it); None for "void"."""
    if value == "void":
        return None
    if isinstance(value, list) and len(value) == 2 and all(isinstance(part, list) for part in value):
        return f"moved from {_position(value[0])} to {_position(value[1])}"
    if isinstance(value, list) and len(value) == 2:
        return f"placed a penguin on {_position(value)}"
    return "sent a reply that is no move"


class Narrator:
    """Short lines saying what happened in a game, kept for its last ``keep`` lines."""

    def __init__(self, names: Sequence[str], keep: int | None = LINES_KEPT) -> None:
        self.names = list(names)
        self.lines: deque[Json] = deque(maxlen=keep)
        self._read = 0
        self._removals = 0

    def step(self, event: str, referee: FishReferee, entries: Sequence[list]) -> list[Json]:
        """The referee finished step ``event``: read the log entries it added; return (and keep) the new lines."""
        new: list[Json] = []

        def say(seat: int | None, text: str) -> None:
            new.append({"turn": referee.turn, "step": referee.step, "seat": seat, "text": text})

        for entry in entries[self._read:]:
            if entry[2] == "in":
                text = describe_reply(entry[3])
                if text is not None:
                    say(entry[1], text)
        self._read = len(entries)
        if event == "skipped":
            say(None, "a player who cannot move is skipped")
        for removal in referee.removals[self._removals:]:
            say(removal.id, f"removed: {short(removal.reason, REASON_IN_TEXT)}")
        self._removals = len(referee.removals)
        if event == "end":
            say(None, "No penguin can move: the game is over")
        self.lines.extend(new)
        return new


class FishDrawing:
    """Fish's picture in the web view (``evolution.games.Drawing``); ``drawing.js`` draws it in the page."""

    script = Path(__file__).with_name("drawing.js")

    def table(self, referee: FishReferee, names: Sequence[str], hands: bool = False) -> Json:
        return table_json(referee, names)

    def narrator(self, names: Sequence[str], keep: int | None = LINES_KEPT) -> Narrator:
        return Narrator(names, keep)


DRAWING = FishDrawing()
