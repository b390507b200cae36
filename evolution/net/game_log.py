"""The message log of one hosted game: every message to and from every seat, with times.

Offers ``GameLog``: ``seat(k)`` gives the ``SeatLog`` a proxy player records
into (``sent(text)``, ``received(message)``); ``failed(seat, reason,
checkpoint)`` records a seat's failure; ``entries``, the log so far;
``to_text()``, the whole log as JSON text (ASCII, the form the results store
compresses); ``to_json()``, that text parsed, the list of lists the store's
readers get back.

Its entries (``out``, ``in``, ``fail``), and who reads them: docs/store.md,
"Inside the store".
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
