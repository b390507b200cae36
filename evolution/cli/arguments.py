# -*- test-case-name: tests.cli.test_evolution_try, tests.cli.test_evolution_schema -*-
"""Conventions shared by the project's command-line tools.

Offers ``ArgumentParser``: argparse, but a bad argument prints one line,
``<prog>: error: <what> (see --help)``, and exits with status 2;
``whole_number(low, high)`` and ``seconds(low, high)``, argument types with
a range that say what is wrong in one sentence; ``add_game(parser)``, the
``--game`` every command takes, said one way; ``quiet_broken_pipe``, for
commands whose output may go to ``head``; and ``on_signals(reactor,
handle)``, for commands on the reactor that end what they started before
they stop (``SIGNAL_NAMES`` says each signal as a user knows it).
"""

from __future__ import annotations

import argparse
import functools
import os
import signal
import sys
from typing import Any, Callable, NoReturn, TypeVar

from evolution.games import DEFAULT_GAME, GAME_NAMES

T = TypeVar("T")
SIGNAL_NAMES = {signal.SIGINT: "SIGINT (Ctrl-C)", signal.SIGTERM: "SIGTERM"}


def quiet_broken_pipe(main: Callable[..., T]) -> Callable[..., T]:
    """Exit quietly when the reader of standard output goes away (``cmd | head``)."""

    @functools.wraps(main)
    def wrapper(*args, **kwargs):
        try:
            result = main(*args, **kwargs)
            sys.stdout.flush()
            return result
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1

    return wrapper


def _ranged(convert: Callable[[str], T], what: str, unit: str, low: T, high: T) -> Callable[[str], T]:
    def parse(text: str) -> T:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value:g} is not within {low:g}..{high:g}{unit}")
        return value

    return parse


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """An argument type: a whole number from ``low`` to ``high``."""
    return _ranged(int, "a whole number", "", low, high)


def seconds(low: float, high: float) -> Callable[[str], float]:
    """An argument type: a number of seconds from ``low`` to ``high``."""
    return _ranged(float, "a number of seconds", " seconds", low, high)


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors fit on one line."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        sys.exit(2)


def add_game(parser: argparse.ArgumentParser, help: str | None = None, default: str | None = DEFAULT_GAME) -> None:
    """The ``--game`` option: one of the games the host serves (Evolution by default)."""
    parser.add_argument("--game", choices=GAME_NAMES, default=default,
                        help=help or f"the game (default {DEFAULT_GAME})")


def on_signals(reactor: Any, handle: Callable[[int], None]) -> None:
    """SIGINT and SIGTERM call ``handle(number)`` on the reactor instead of stopping it at once.

    For a command that ends what it started (its connections, its child
    processes) before it returns, and ``react`` stops the reactor. The
    handlers go in once the reactor runs: ``react`` calls its function before
    ``reactor.run()`` puts the reactor's own handlers in.
    """

    def caught(number: int, frame: Any) -> None:
        reactor.callFromThread(handle, number)

    def install() -> None:
        for number in SIGNAL_NAMES:
            signal.signal(number, caught)

    reactor.callWhenRunning(install)
