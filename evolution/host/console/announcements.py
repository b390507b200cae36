# -*- test-case-name: tests.host.console.test_announce -*-
"""The organiser's announcement (``evolution-admin announce TEXT``): one line for everyone watching the web view.

Offers ``Announcement`` (the line, and since when, as the pages show it:
``to_json()``), ``NoticeBoard(clock)``: ``announce(text, who)``,
``clear(who)`` (each logged with who asked from where; what happened, in
one line), ``current``, ``to_json()`` (``{"text", "since"}`` or None) and
``watch(callback)`` (told each change: the web view's feed), and
``one_line(text)`` (the text as announced, or ``ValueError`` with why not).

The course's protocols give bots no message for it: it reaches people
(the web view's banner, the host's log), not bots. It lives as long as the
host; docs/operations.md.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any, Callable

from twisted.logger import Logger

from evolution.text import escape

log = Logger()
LONGEST = 200  # characters of an announcement


@dataclass(frozen=True)
class Announcement:
    text: str
    since: str  # ISO 8601, UTC

    def to_json(self) -> dict[str, str]:
        return {"text": self.text, "since": self.since}


def one_line(text: str) -> str:
    """``text`` as announced: its runs of white space one space; ``ValueError`` if empty or too long."""
    line = " ".join(text.split())
    if not line:
        raise ValueError("announce takes the line to show (announce --clear takes it down)")
    if len(line) > LONGEST:
        raise ValueError(f"an announcement is one line of at most {LONGEST} characters, not {len(line)}")
    return line


class NoticeBoard:
    """The host's one announcement, or none; its watchers hear each change."""

    def __init__(self, clock: Any) -> None:
        self.clock = clock
        self.current: Announcement | None = None
        self._watchers: list[Callable[[dict[str, str] | None], None]] = []

    def watch(self, callback: Callable[[dict[str, str] | None], None]) -> None:
        self._watchers.append(callback)

    def to_json(self) -> dict[str, str] | None:
        return self.current.to_json() if self.current is not None else None

    def announce(self, text: str, who: str) -> str:
        """Show ``text`` (``one_line``'s) from now on, in place of any other; what the host did, in one line."""
        since = datetime.datetime.fromtimestamp(self.clock.seconds(), datetime.timezone.utc)
        self.current = Announcement(one_line(text), since.isoformat(timespec="seconds"))
        log.info("announced by {who}: {text}", who=who, text=escape(self.current.text))
        self._tell()
        return f"announced on the web view: {self.current.text}"

    def clear(self, who: str) -> str:
        if self.current is None:
            return "there was no announcement"
        self.current = None
        log.info("the announcement is taken down by {who}", who=who)
        self._tell()
        return "the announcement is taken down"

    def _tell(self) -> None:
        for callback in list(self._watchers):
            try:
                callback(self.to_json())
            except Exception:
                log.failure("a watcher of the announcement failed")
