# -*- test-case-name: tests.cli.test_demo_log, tests.cli.test_make_targets -*-
"""The demo's reading of the host's log: ``LogFollower`` and the lines it picks out.

Offers ``LogFollower`` (the sign-up count as bots sign up, the tournament's round and game lines as the host
logs them, and where things stand when the demo has been quiet: the round under way and how many of its
games are over) and the patterns of the lines it reads (``ROUND_LINE``, ``ROUND_BEGINS``, ``SIGNUP_LINE``,
``GAME_OVER_LINE``).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from evolution.text import plural

if TYPE_CHECKING:
    from evolution.cli.demo import Lines
    from evolution.testing import HostProcess

ROUND_LINE = re.compile(
    r"\] (tournament \d+ (?:round \d+(?: of [^:]*)?: \d+ games?, \d+ players?(?: \(play-off .*\))?$"
    r"|round \d+(?: of [^:]*)?: \d+ of \d+ games? done.*|round \d+: .*|is over.*))"
)
SIGNUP_LINE = re.compile(r"\] signed up .* \((\d+) waiting\)$")
GAME_OVER_LINE = re.compile(r"\] game \d+ (?:finished|aborted)")
ROUND_BEGINS = re.compile(r"^tournament \d+ round \d+(?: of [^:]*)?: (\d+) games?, ")


class LogFollower:
    """Reads the host's log as it grows: says the sign-up count as bots sign up (at most every 2 s, and when all
    have) and the tournament's round and game lines; ``poll()`` is True once the first tournament is over;
    ``status(waited)`` says where things stand (``ladder``: the store of a ladder, whose games it counts)."""

    def __init__(self, log: Path, host: HostProcess, lines: Lines, total: int, ladder: Path | None = None,
                 every: float = 2.0) -> None:
        self.log, self.host, self.lines, self.total, self.ladder, self.every = log, host, lines, total, ladder, every
        self.seen = 0
        self.signed_up = self.shown = 0
        self.shown_at = time.monotonic()
        self.games = 0
        self.round_games = self.round_done = 0  # the games of the round under way, and those of them over
        self.latest: str | None = None  # the last round line said

    def poll(self) -> bool:
        if self.host.process.poll() is not None:
            raise RuntimeError(f"the host stopped with status {self.host.process.returncode}; see {self.log}")
        text = self.log.read_text(errors="replace") if self.log.is_file() else ""
        new = text.splitlines()[self.seen:] if text.endswith("\n") else text.splitlines()[self.seen:-1]
        self.seen += len(new)
        over = False
        for line in new:
            signup = SIGNUP_LINE.search(line)
            if signup:
                self.signed_up = max(self.signed_up, int(signup.group(1)))
            over_now = bool(GAME_OVER_LINE.search(line))
            self.games += over_now
            self.round_done += over_now
            match = ROUND_LINE.search(line)
            if match:
                self._signups(force=True)
                self.latest = match.group(1)
                begins = ROUND_BEGINS.match(self.latest)
                if begins:
                    self.round_games, self.round_done = int(begins.group(1)), 0
                self.lines.say(self.latest)
                over = over or " is over" in self.latest
        self._signups()
        return over

    def _signups(self, force: bool = False) -> None:
        now = time.monotonic()
        done = self.signed_up >= self.total
        if self.signed_up > self.shown and (done or force or now - self.shown_at >= self.every):
            self.lines.say(f"sign-up: {self.signed_up} of {plural(self.total, 'bot')} signed up")
            self.shown, self.shown_at = self.signed_up, now

    def status(self, waited: float) -> str:
        if self.games == 0 and self.signed_up < self.total and self.latest is None:
            return (f"sign-up: {self.signed_up} of {plural(self.total, 'bot')} signed up; the others' processes are "
                    "still starting")
        if self.ladder is not None:
            return f"ladder: {plural(self.games, 'game')} played so far"
        if self.latest is None:
            return "waiting for the tournament to begin"
        if self.round_games:
            return (f"{self.latest.split(':')[0]}: still playing ({self.round_done} of its "
                    f"{plural(self.round_games, 'game')} over)")
        return f"{self.latest.split(':')[0]}: still playing"
