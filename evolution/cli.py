"""Conventions shared by the project's command-line tools.

Offers ``ArgumentParser``: argparse, but a bad argument prints one line,
``<prog>: error: <what> (see --help)``, and exits with status 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors fit on one line."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        sys.exit(2)
