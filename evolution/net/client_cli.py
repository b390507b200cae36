"""``evolution-client``: a bot that signs up with a host and plays one game.

Exit status: 0 when the host closed the connection at the end of the game;
1 when the sign-up was refused ("game full"), the connection failed, or the
host sent something that breaks the protocol; 2 for bad arguments.

``--strategy`` names a built-in strategy (``silly``) or ``module:Class`` for a
class of your own with the player interface (start, choose, feed_next).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from twisted.internet.defer import ensureDeferred
from twisted.internet.task import react

from evolution.cli import ArgumentParser
from evolution.net.client import ClientError, play_remote
from evolution.rules.silly import SillyPlayer

STRATEGIES = {"silly": SillyPlayer}


def load_strategy(spec: str) -> Any:
    """A player object for ``silly`` or ``package.module:Class``."""
    if spec in STRATEGIES:
        return STRATEGIES[spec]()
    module_name, _, class_name = spec.partition(":")
    if not class_name:
        raise ValueError(f"unknown strategy {spec!r}: use {', '.join(STRATEGIES)} or module:Class")
    try:
        return getattr(importlib.import_module(module_name), class_name)()
    except (ImportError, AttributeError) as error:
        raise ValueError(f"cannot load strategy {spec!r}: {error}") from None


def parser() -> ArgumentParser:
    p = ArgumentParser(prog="evolution-client", description="Sign up with an Evolution host and play one game.")
    p.add_argument("--host", default="127.0.0.1", help="the host's address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=45678, help="the host's port (default 45678)")
    p.add_argument("--name", default="silly bot", help="the name to sign up with (any string)")
    p.add_argument("--strategy", default="silly", help="silly, or module:Class of your own player")
    p.add_argument("--retries", type=int, default=3, help="retries of a refused connection, 2 s apart (default 3)")
    p.add_argument("--quiet", action="store_true", help="print nothing when the game ends normally")
    return p


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    try:
        player = load_strategy(args.strategy)
    except ValueError as error:
        parser().error(str(error))

    async def run(reactor: Any) -> None:
        try:
            outcome = await play_remote(reactor, args.host, args.port, args.name, player, args.retries)
        except ClientError as error:
            print(f"evolution-client {args.name!r}: {error}", file=sys.stderr)
            raise SystemExit(1) from None
        if not args.quiet:
            scores = f", scores {outcome.scores}" if outcome.scores is not None else ""
            print(f"evolution-client {args.name!r}: game over after {outcome.turns} turns{scores}")

    react(lambda reactor: ensureDeferred(run(reactor)))


if __name__ == "__main__":
    main()
