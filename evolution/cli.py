"""Conventions shared by the project's command-line tools.

Offers ``ArgumentParser``: argparse, but a bad argument prints one line,
``<prog>: error: <what> (see --help)``, and exits with status 2; and
``quiet_broken_pipe``, for commands whose output may go to ``head``.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from typing import Callable, NoReturn, TypeVar

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


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors fit on one line."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        sys.exit(2)
