# -*- test-case-name: tests.cli.test_evolution_try, tests.cli.test_evolution_schema -*-
"""Conventions shared by the project's command-line tools.

Offers ``ArgumentParser``: argparse, but a bad argument prints one line,
``<prog>: error: <what> (see --help)``, and exits with status 2;
``whole_number(low, high)`` and ``seconds(low, high)``, argument types with
a range that say what is wrong in one sentence; ``add_game(parser)``, the
``--game`` every command takes, said one way; and ``quiet_broken_pipe``,
for commands whose output may go to ``head``.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from typing import Callable, NoReturn, TypeVar

from evolution.games import DEFAULT_GAME, GAME_NAMES

T = TypeVar("T")


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
