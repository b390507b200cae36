"""``evolution-client``: a bot that signs up with a host and plays until the host hangs up.

It plays one game, or, in a tournament, every game the host gives it on the
same connection: as the course's reference client, a ``start`` after a turn
simply begins the next turn, whichever game it belongs to.

Exit status: 0 when the host closed the connection at the end of the game;
1 when the sign-up was refused ("game full"), the connection failed, the
host sent something that breaks the protocol, or the client was stopped
(SIGTERM, Ctrl-C) before the game ended; 2 for bad arguments.

``--tls`` connects over TLS and checks the host's certificate against the
system's trusted authorities, ``--ca FILE`` against the certificate in FILE
(for a host with a self-signed certificate). What the client prints of the
host's words and of its own name is escaped (``evolution.text``).

``--strategy`` names a built-in strategy (``silly``, the course's reference;
``builder``, a stronger one; ``cheater`` and ``sleeper``, which fail on
purpose) or ``module:Class`` for a class of your own with the player
interface (start, choose, feed_next).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

from twisted.internet.defer import CancelledError, ensureDeferred
from twisted.internet.task import deferLater, react

from evolution.cli import ArgumentParser
from evolution.net.client import ClientError, play_remote
from evolution.net.endpoints import EndpointUnavailable, client_tls
from evolution.strategies import BY_NAME as STRATEGIES
from evolution.text import escape, quoted
from evolution.wire.dialects import DIALECTS


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


def _whole_number(text: str, low: int, high: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"{value} is not within {low}..{high}")
    return value


def port_number(text: str) -> int:
    return _whole_number(text, 1, 65535)


def retry_count(text: str) -> int:
    return _whole_number(text, 0, 1000)


def think_time(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"{value:g} is not within 0..60 seconds")
    return value


class Thinking:
    """A player that waits ``seconds`` before each answer (to watch games at a human pace)."""

    def __init__(self, player: Any, seconds: float, clock: Any) -> None:
        self.player, self.seconds, self.clock = player, seconds, clock

    def start(self, watering_hole: Any, me: Any) -> Any:
        return self.player.start(watering_hole, me)

    def choose(self, before: Any, after: Any) -> Any:
        return deferLater(self.clock, self.seconds, self.player.choose, before, after)

    def feed_next(self, state: Any) -> Any:
        return deferLater(self.clock, self.seconds, self.player.feed_next, state)


def parser() -> ArgumentParser:
    p = ArgumentParser(
        prog="evolution-client",
        description="Sign up with an Evolution host and play until it hangs up: one game, or every game of a "
        "tournament.",
    )
    p.add_argument("--host", default="127.0.0.1", help="the host's address (default 127.0.0.1)")
    p.add_argument("--port", type=port_number, default=45678, help="the host's port (default 45678)")
    p.add_argument("--name", default="silly bot", help="the name to sign up with (any string)")
    p.add_argument(
        "--strategy", default="silly", help=f"{', '.join(STRATEGIES)}, or module:Class of your own player (default silly)"
    )
    p.add_argument("--retries", type=retry_count, default=3,
                   help="retries of a refused connection, 2 s apart (default 3)")
    p.add_argument("--tls", action="store_true", help="connect over TLS; trust the host's certificate only if the "
                   "system's authorities do (or --ca does)")
    p.add_argument("--ca", metavar="FILE", help="connect over TLS, trusting the PEM certificate in FILE (e.g. the "
                   "host's self-signed one)")
    p.add_argument("--think", type=think_time, default=0.0, metavar="SECONDS",
                   help="wait this long before each answer, e.g. to watch the games (default 0; keep it under "
                   "the host's time limit)")
    p.add_argument("--dialect", choices=sorted(DIALECTS), default="seed000",
                   help="the host's dialect of the protocol (default seed000, the course's)")
    p.add_argument("--quiet", action="store_true", help="print nothing when the game ends normally")
    return p


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    try:
        player = load_strategy(args.strategy)
    except ValueError as error:
        parser().error(str(error))

    label = f"evolution-client {quoted(args.name)}"
    tls = None
    if args.tls or args.ca:
        try:
            tls = client_tls(args.host, args.ca)
        except EndpointUnavailable as error:
            print(f"{label}: {error}", file=sys.stderr)
            raise SystemExit(1) from None

    async def run(reactor: Any) -> None:
        nonlocal player
        if args.think:
            player = Thinking(player, args.think, reactor)
        game = ensureDeferred(play_remote(
            reactor, args.host, args.port, args.name, player, args.retries, tls=tls, dialect=DIALECTS[args.dialect]
        ))
        reactor.addSystemEventTrigger("before", "shutdown", game.cancel)  # a signal stops the game, not just the loop
        try:
            outcome = await game
        except CancelledError:
            print(f"{label}: stopped before the game ended", file=sys.stderr)
            raise SystemExit(1) from None
        except ClientError as error:
            print(f"{label}: {escape(str(error))}", file=sys.stderr)
            raise SystemExit(1) from None
        if not args.quiet:
            scores = f", last scores {outcome.scores}" if outcome.scores is not None else ""
            games = f"{outcome.games} games, " if outcome.games > 1 else ""
            print(f"{label}: the host hung up after {games}{outcome.turns} turns{scores}")

    react(lambda reactor: ensureDeferred(run(reactor)))


if __name__ == "__main__":
    main()
