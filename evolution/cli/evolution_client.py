# -*- test-case-name: tests.host.test_processes, tests.net.test_client -*-
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

``--game`` names the game (``evolution``, the default, or ``fish``);
``--strategy`` names one of the game's house strategies (Evolution:
``silly``, the course's reference; ``builder``, a stronger one; ``cheater``
and ``sleeper``, which fail on purpose; Fish: ``greedy``, the reference
client's, ``maximin``, and ``cheater`` and ``hole-placer``, which fail on
purpose) or ``module:Class`` for a class of your own with the game's player
interface (Evolution's: start, choose, feed_next; Fish's: playing_as,
playing_with, setup, take_turn). ``--dialect`` names the host's dialect
(Fish: ``course``, the default, or ``seed004``). A name the dialect does
not take (Fish's course protocol: 1 to 12 ASCII letters), or one that is
not UTF-8 text (a terminal's Latin-1 bytes), is a usage error.
``--key SECRET`` (or the environment variable ``EVOLUTION_KEY``) proves the
bot's account on a host with ``--accounts roster|closed``: the sign-up is
``["sign-up", name, {"key": SECRET}]`` (docs/accounts.md). The key goes to
whichever host the client connects to (in the clear without ``--tls``), an
open host's too: give it only for the host that issued it.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from twisted.internet.defer import CancelledError, ensureDeferred
from twisted.internet.task import deferLater, react

from evolution.cli.arguments import ArgumentParser, add_game, on_signals, seconds, whole_number
from evolution.games import DEFAULT_GAME, GAME_NAMES, Game, game
from evolution.net.client import RECONNECT_DELAY, ClientError, conversation, play_remote
from evolution.text import escape, plural, quoted


def load_strategy(spec: str, chosen: Game | None = None) -> Any:
    """A player of one of the game's house strategies (``silly``) or ``package.module:Class``.

    ``ValueError`` (one sentence) if there is none, or what it names is not a player of the game.
    """
    chosen = chosen or game(DEFAULT_GAME)
    if spec in chosen.strategies:
        return chosen.strategy(spec)
    module_name, _, class_name = spec.partition(":")
    if not class_name:
        raise ValueError(
            f"unknown strategy {spec!r}: use {', '.join(chosen.strategies)} (for {chosen.name}) or module:Class"
        )
    try:
        found = getattr(importlib.import_module(module_name), class_name)
    except Exception as error:  # whatever importing someone's module raises
        raise ValueError(f"cannot load strategy {spec!r}: {error}") from None
    if not callable(found):
        raise ValueError(f"strategy {spec!r} is a {type(found).__name__}, not a class")
    try:
        player = found()
    except Exception as error:
        raise ValueError(f"strategy {spec!r}: {class_name}() failed: {error}") from None
    missing = [name for name in chosen.player_methods if not callable(getattr(player, name, None))]
    if missing:
        raise ValueError(f"strategy {spec!r} is no player: it has no {', '.join(missing)}")
    return player


port_number = whole_number(1, 65535)
retry_count = whole_number(0, 1000)
think_time = seconds(0, 60)


class Thinking:
    """A player that waits ``seconds`` before each answer (to watch games at a human pace), in any game."""

    def __init__(self, player: Any, seconds: float, clock: Any) -> None:
        self.player, self.seconds, self.clock = player, seconds, clock

    def __getattr__(self, method: str) -> Any:
        answer = getattr(self.player, method)
        return lambda *args: deferLater(self.clock, self.seconds, answer, *args)


def parser() -> ArgumentParser:
    p = ArgumentParser(
        prog="evolution-client",
        description="Sign up with a host and play until it hangs up: one game, or every game of a tournament or a "
        "ladder.",
    )
    add_game(p)
    p.add_argument("--host", default="127.0.0.1", help="the host's address (default 127.0.0.1)")
    p.add_argument("--port", type=port_number, default=45678, help="the host's port (default 45678)")
    p.add_argument("--name", help="the name to sign up with (Evolution: any string, default 'silly bot'; Fish's "
                   "course dialect: 1 to 12 ASCII letters, default the strategy's letters, e.g. greedy)")
    p.add_argument(
        "--strategy",
        help="one of the game's strategies ("
        + "; ".join(f"{name}: {', '.join(game(name).strategies)}" for name in GAME_NAMES)
        + "), or module:Class of your own player (default: the game's first)",
    )
    p.add_argument("--retries", type=retry_count, default=3,
                   help="retries of a refused connection, 2 s apart (default 3)")
    p.add_argument("--reconnect", type=retry_count, default=0, metavar="TRIES",
                   help="when the host hangs up or goes away, sign up again, a line each try, until the dialect says "
                   "the tournament is over (Fish's course protocol), the host does not take the bot back (\"game "
                   "full\") or TRIES tries in a row cannot reach it: a host restarted with --resume takes its "
                   "tournament's entrants back (default 0: end when the host hangs up)")
    p.add_argument("--reconnect-delay", type=seconds(0.1, 600), default=RECONNECT_DELAY, metavar="SECONDS",
                   help=f"seconds between those tries (default {RECONNECT_DELAY:g})")
    p.add_argument("--tls", action="store_true", help="connect over TLS; trust the host's certificate only if the "
                   "system's authorities do (or --ca does)")
    p.add_argument("--ca", metavar="FILE", help="connect over TLS, trusting the PEM certificate in FILE (e.g. the "
                   "host's self-signed one)")
    p.add_argument("--think", type=think_time, default=0.0, metavar="SECONDS",
                   help="wait this long before each answer, e.g. to watch the games (default 0; keep it under "
                   "the host's time limit)")
    p.add_argument("--dialect", help="the host's dialect of the protocol ("
                   + "; ".join(f"{name}: {', '.join(game(name).dialects)}" for name in GAME_NAMES)
                   + "; default: the game's first, the course's)")
    p.add_argument("--key", help="the bot's secret on a host with --accounts (evolution-accounts issued it), sent "
                   "beside --name to whichever host this connects to (in the clear without --tls): give it only for "
                   "the host that issued it; better in the environment variable EVOLUTION_KEY (set for this command "
                   "alone), which other users cannot see")
    p.add_argument("--quiet", action="store_true", help="print nothing when the game ends normally")
    return p


def said(label: str) -> None:
    """The client's own lines (a connection retried, a reconnection tried) on standard error, after ``label``."""
    from twisted.logger import formatEvent, globalLogBeginner

    def observe(event: dict) -> None:
        if event.get("log_namespace") == "evolution.net.client":
            print(f"{label}: {escape(formatEvent(event))}", file=sys.stderr, flush=True)

    globalLogBeginner.beginLoggingTo([observe], redirectStandardIO=False)


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    chosen = game(args.game)
    if args.dialect is not None and args.dialect not in chosen.dialects:
        parser().error(f"--dialect of {chosen.name} is one of {', '.join(chosen.dialects)}, not {args.dialect!r}")
    strategy = args.strategy or chosen.strategies[0]
    try:
        player = load_strategy(strategy, chosen)
    except ValueError as error:
        parser().error(str(error))
    if args.name is None:
        args.name = chosen.bot_name(strategy)
    try:
        conversation(args.name, player, chosen.name, args.dialect)  # UTF-8 text, as the dialect takes it
    except ValueError as error:
        parser().error(f"--name: {error}")

    label = f"evolution-client {quoted(args.name)}"
    tls = None
    if args.tls or args.ca:
        from evolution.net.endpoints import EndpointUnavailable, client_tls  # TLS loads only when asked for

        try:
            tls = client_tls(args.host, args.ca)
        except EndpointUnavailable as error:
            print(f"{label}: {error}", file=sys.stderr)
            raise SystemExit(1) from None

    said(label)

    async def run(reactor: Any) -> None:
        nonlocal player
        if args.think:
            player = Thinking(player, args.think, reactor)
        game = ensureDeferred(play_remote(
            reactor, args.host, args.port, args.name, player, args.retries, tls=tls, dialect=args.dialect,
            game=args.game, reconnect=args.reconnect, reconnect_delay=args.reconnect_delay,
            key=args.key or os.environ.get("EVOLUTION_KEY") or None,
        ))
        on_signals(reactor, lambda number: game.cancel())  # a signal stops the game, which hangs up; then the loop
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
            games = f"{plural(outcome.games, 'game')}, " if outcome.games > 1 else ""
            won = {None: "", True: "; it won", False: "; it did not win"}[outcome.won]
            print(f"{label}: the host hung up after {games}{plural(outcome.turns, 'turn')}{scores}{won}")

    react(lambda reactor: ensureDeferred(run(reactor)))


if __name__ == "__main__":
    main()
