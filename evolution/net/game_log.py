"""The message log of one hosted game: every message to and from every seat, with times.

Offers ``GameLog``; ``GameLog.seat(k)`` gives the ``SeatLog`` a proxy player
records into. A log is a list of entries, in the order the host wrote or
read them (one log format, many readers: the results store keeps it,
``evolution-replay`` re-runs the game from it, the web view draws it):

    [ms, seat, "out", message]             the host wrote ``message`` to the seat
    [ms, seat, "in", message]              the host read ``message`` from the seat
    [ms, seat, "fail", reason, checkpoint] the seat failed; the dealer removes it
                                           at the first safe point after
                                           ``checkpoint`` (``Dealer.expel``), or
                                           at once if a call was waiting on it

``ms`` counts milliseconds since the game began, on the host's clock; seats
are numbered from 1 in the dealer's turn order (the player ids). A message
is the JSON value as sent or read; bytes that never became a value show up
only as the reason of a ``fail`` entry.

While the game runs, ``entries`` holds each entry as a tuple, and a message
written as the very JSON text the host wrote (it is encoded anyway): no
nested lists to keep alive for the length of a game. ``to_text()`` is the
whole log as JSON text (ASCII, the form the results store compresses),
made by joining those texts; ``to_json()`` is that text parsed, the list of
lists the store's readers get back.
"""

from __future__ import annotations

import json
from typing import Any

from twisted.internet.interfaces import IReactorTime

Entry = list[Any]
_ascii = json.JSONEncoder(separators=(",", ":"))


class GameLog:
    """Every message of one game, in order."""

    def __init__(self, clock: IReactorTime) -> None:
        self.clock = clock
        self.began = clock.seconds()
        self.entries: list[Entry] = []

    def _now(self) -> int:
        return round((self.clock.seconds() - self.began) * 1000)

    def add(self, seat: int, kind: str, *payload: Any) -> None:
        self.entries.append((self._now(), seat, kind, *payload))

    def seat(self, seat: int) -> SeatLog:
        return SeatLog(self, seat)

    def failed(self, seat: int, reason: str, checkpoint: int) -> None:
        self.add(seat, "fail", reason, checkpoint)

    def to_text(self) -> str:
        """The log as compact ASCII JSON text: each message written embedded as it was written."""
        return "[" + ",".join(map(_entry_text, self.entries)) + "]"

    def to_json(self) -> list[Entry]:
        return json.loads(self.to_text())


def _entry_text(entry: tuple) -> str:
    if entry[2] == "out" and entry[3].isascii():
        return f'[{entry[0]},{entry[1]},"out",{entry[3]}]'
    if entry[2] == "out":  # a message with non-ASCII characters: escaped, as the store keeps text ASCII
        return _ascii.encode([*entry[:3], json.loads(entry[3])])
    return _ascii.encode(entry)


class SeatLog:
    """One seat's view of a ``GameLog``: what a proxy player records into."""

    __slots__ = ("log", "number")

    def __init__(self, log: GameLog, number: int) -> None:
        self.log = log
        self.number = number

    def sent(self, text: str) -> None:
        """The host wrote the message whose JSON text is ``text``."""
        self.log.add(self.number, "out", text)

    def received(self, message: Any) -> None:
        self.log.add(self.number, "in", message)
