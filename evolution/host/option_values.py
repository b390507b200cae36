# -*- test-case-name: tests.host.test_options -*-
"""The values of ``twistd evolution``'s options: ranges, and the parsers that hold a value to them.

Offers ``SECONDS`` and ``WHOLE_NUMBERS`` (option: default, lowest, highest),
``parse_players(text, game)``, ``parse_seconds(name, text)`` and
``parse_whole(name, text)`` (``usage.UsageError`` in one sentence naming the
option and what it takes), ``quoted_value(text)`` (a value from the command
line as a message shows it), and the ``optParameters`` rows that state each
range in ``--help`` (``seconds_option``, ``whole_option``), for
``evolution.host.options``.
"""

from __future__ import annotations

import os
from typing import Any

from twisted.python import usage

from evolution.games import DEFAULT_GAME, GAME_NAMES, Game, game
from evolution.jsonwire.framing import DEFAULT_MAX_DEPTH
from evolution.net.signup import (
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_REPLY,
    DEFAULT_NUMBER_GRACE,
)
from evolution.store.journal import RESERVE_MIB
from evolution.text import short

MAX_SEED = 2**53 - 1  # exact in any JSON reader
FEWEST_PLAYERS = min(game(name).min_players for name in GAME_NAMES)  # of any game's
MOST_PLAYERS = max(game(name).max_players for name in GAME_NAMES)

# option: (default, lowest, highest)
SECONDS = {
    "timeout": (None, 0.01, 3600.0),  # the game's own default: Evolution 1 s, Fish 10 s
    "signup-timeout": (None, 0.01, 3600.0),  # the dialect's own (Fish's course protocol: 10 s), else 5 s
    "signup-window": (None, 0.01, 3600.0),  # 10 s for single games, 30 s per tournament sign-up period
    "number-grace": (DEFAULT_NUMBER_GRACE, 0.001, 1.0),
    "linger": (None, 0.01, 1_000_000.0),  # with --web: until stopped
}
WHOLE_NUMBERS = {
    "games": (None, 1, 1_000_000),
    "seed": (None, 0, MAX_SEED),
    "max-message": (DEFAULT_MAX_REPLY, 1024, 64 * 1024 * 1024),
    "max-depth": (DEFAULT_MAX_DEPTH, 3, 512),  # an Action4 nests 3 deep
    "max-connections": (DEFAULT_MAX_CONNECTIONS, MOST_PLAYERS, 1_000_000),
    "max-per-address": (None, 1, 1_000_000),  # DEFAULT_MAX_PER_ADDRESS, the host's own machine not capped
    "max-per-owner": (None, 1, 1_000_000),  # MAX_PER_OWNER, with --accounts roster or closed
    "signup-periods": (2, 1, 100),
    "min-signups": (None, FEWEST_PLAYERS, 1_000_000),  # MIN of --players
    "max-signups": (1000, FEWEST_PLAYERS, 1_000_000),
    "rounds": (None, 1, 1000),
    "tournaments": (1, 1, 1_000_000),
    "journal-reserve": (RESERVE_MIB, 1, 65536),
    "workers": (os.cpu_count() or 1, 0, 256),
    "web-connections": (256, 1, 100_000),
}


def quoted_value(text: str, limit: int = 40) -> str:
    """A value from the command line, quoted, escaped and cut short for a message."""
    return repr(short(text, limit))


def parse_players(text: str, chosen: Game | None = None) -> tuple[int, int]:
    """``MIN-MAX`` (or ``N``) within the game's bounds (Evolution's 3..8, Fish's 2..4)."""
    chosen = chosen or game(DEFAULT_GAME)
    low_text, _, high_text = text.partition("-")
    try:
        low = int(low_text)
        high = int(high_text) if high_text else low
    except ValueError:
        raise usage.UsageError(f"--players takes MIN-MAX, such as 3-8, not {quoted_value(text)}") from None
    fewest, most = chosen.min_players, chosen.max_players
    if not fewest <= low <= high <= most:
        raise usage.UsageError(
            f"--players {short(text, 40)}: a game needs between {fewest} and {most} players ({chosen.title}),"
            " MIN <= MAX"
        )
    return low, high


def _number(name: str, text: str, kind: type, what: str) -> Any:
    try:
        return kind(text)
    except ValueError:
        raise usage.UsageError(f"--{name} takes {what}, not {quoted_value(text)}") from None


def parse_seconds(name: str, text: str) -> float:
    """A number of seconds within the range ``SECONDS`` gives ``--name``."""
    _default, low, high = SECONDS[name]
    value = _number(name, text, float, "a number of seconds")
    if value <= 0:
        raise usage.UsageError(f"--{name} must be more than 0 seconds (allowed: {low:g} to {high:g})")
    if not low <= value <= high:  # also NaN and infinity
        raise usage.UsageError(f"--{name} must be {low:g} to {high:g} seconds, not {quoted_value(text)}")
    return value


def parse_whole(name: str, text: str) -> int:
    """A whole number within the range ``WHOLE_NUMBERS`` gives ``--name``."""
    _default, low, high = WHOLE_NUMBERS[name]
    value = _number(name, text, int, "a whole number")
    if value < low:
        raise usage.UsageError(f"--{name} must be at least {low} (allowed: {low} to {high})")
    if value > high:
        raise usage.UsageError(f"--{name} must be at most {high} (allowed: {low} to {high})")
    return value


def seconds_option(name: str, what: str) -> list:
    default, low, high = SECONDS[name]
    return [name, None, None if default is None else f"{default:g}", f"{what} ({low:g} to {high:g})"]


def whole_option(name: str, what: str) -> list:
    default, low, high = WHOLE_NUMBERS[name]
    return [name, None, None if default is None else str(default), f"{what} ({low} to {high})"]
