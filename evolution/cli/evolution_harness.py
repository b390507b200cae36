"""``evolution-harness [--game GAME] NAME``: the course's test harnesses of any game.

Reads one JSON value from standard input and prints the answer as one JSON
value. Input that is not JSON, breaks its schema or the rules prints nothing
and exits 0, as the course's harnesses do; with ``--explain`` the reason goes
to standard error. Each game offers its own (``Game.harnesses``): Evolution's
``xattack``, ``xfeed``, ``xstep``, ``xstep4``, ``xsilly`` (the default game);
Fish's ``xboard``, ``xstate``, ``xtree``, ``xstrategy``, ``xref``.
"""

from __future__ import annotations

import json
import sys

from evolution.cli.arguments import ArgumentParser, add_game
from evolution.games import GAME_NAMES, game
from evolution.jsonwire.wire_errors import WireError


def parser() -> ArgumentParser:
    p = ArgumentParser(
        prog="evolution-harness",
        description="Run one of the course's test harnesses: one JSON value on stdin, the answer on stdout. "
        "Invalid input prints nothing (exit 0), as the course's harnesses do.",
    )
    add_game(p)
    p.add_argument(
        "name", metavar="NAME",
        help="which harness: " + "; ".join(f"{name}: {', '.join(sorted(game(name).harnesses()))}" for name in GAME_NAMES),
    )
    p.add_argument("--explain", action="store_true", help="say on stderr why an input is invalid")
    return p


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    harnesses = game(args.game).harnesses()
    if args.name not in harnesses:
        p.error(f"{args.game} has no harness {args.name!r}; it has {', '.join(sorted(harnesses))}")
    try:
        answer = harnesses[args.name](sys.stdin.read())
    except WireError as error:
        if args.explain:
            print(f"evolution-harness {args.name}: invalid input: {error}", file=sys.stderr)
        return 0
    sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
