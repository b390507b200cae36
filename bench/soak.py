"""``make soak``: 2,000 bots on one host for two minutes; every honest bot kept, every game stored.

``python -m bench.soak [--bots N] [--seconds S] [--warmup W] [--host-option=OPTION ...] [--keep] [--progress S]``
plays the load benchmark's run (``bench.bench_load.run_load``: the same host,
bots, clock and figures) and then checks what the throughput issue requires
of a host under load, whatever its speed:

1. no honest bot removed: no seat of any stored game of the run has a
   ``removed_reason`` (every bot answers at once and legally, so every
   removal is the host's doing; the reasons are printed);
2. every game stored: each game a bot saw end is a stored game (names are
   unique per game), and nothing waits in the store writer's journal;
3. the load really ran: games were played, and nothing went wrong on the
   bots' side (a refused connect, a message of no known shape, bots still
   playing at the deadline).

Bots the host hung up on before answering their sign-up are honest bots
turned away, not removed from a game: a NOTE line reports them (under load
they are sign-ups whose first bytes the kernel dropped with a full listen
queue, which the host then timed out), without failing the soak.

While it runs it prints a progress line every 10 s (the time so far, the
phase, the games stored). It prints the figures, one line per check, and ``soak: N passed, M failed``;
it exits 1 when a check fails, 0 when all pass. It times nothing that it
asserts: the checks hold at any speed. It is not part of ``make test``.
"""

from __future__ import annotations

import argparse
import sys

from bench.bench_load import describe, run_load

BOTS = 2000
SECONDS = 120.0
PROGRESS = 10.0  # seconds between progress lines: the run lasts minutes


HOST_SIDE = ("the silly strategy", "hung up")  # bot errors that are the host's doing, reported elsewhere


def checks(result) -> list[tuple[bool, str]]:
    reasons = "; ".join(f"{count}x {reason}" for reason, count in list(result.removed_reasons.items())[:5])
    own_errors = {error: n for error, n in result.bot_errors.items() if not error.startswith(HOST_SIDE)}
    not_stored = result.ended_not_stored + result.pending_writes
    return [
        (
            result.removed == 0,
            "no honest bot removed" if result.removed == 0
            else f"{result.removed} honest bots removed: {reasons}",
        ),
        (
            not_stored == 0,
            f"every game the bots saw end is stored ({result.games_stored} games)" if not_stored == 0
            else f"{result.ended_not_stored} seats of games the bots saw end are in no stored game, "
                 f"{result.pending_writes} writes still in the journal",
        ),
        (
            result.games > 0 and not own_errors,
            f"the load ran: {result.games} games in the window, no bot error" if result.games > 0 and not own_errors
            else f"the load did not run as planned: {result.games} games in the window, bot errors {own_errors}",
        ),
    ]


def notes(result) -> list[str]:
    turned_away = {error: n for error, n in result.bot_errors.items() if error.startswith("hung up")}
    return [f"NOTE: {n} bots: {error}" for error, n in turned_away.items()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=BOTS, help=f"bots (default {BOTS})")
    parser.add_argument("--seconds", type=float, default=SECONDS, help=f"measured window (default {SECONDS:g} s)")
    parser.add_argument("--warmup", type=float, default=8.0, help="seconds of play before the window (default 8)")
    parser.add_argument("--host-option", action="append", default=[], metavar="OPTION",
                        help="one more twistd evolution option")
    parser.add_argument("--keep", action="store_true", help="keep the host's store and log and the bots' records")
    parser.add_argument("--progress", type=float, default=PROGRESS, metavar="SECONDS",
                        help=f"a progress line this often (default {PROGRESS:g} s)")
    args = parser.parse_args(argv)
    print(f"soak: {args.bots} bots, {args.warmup:g} s warm-up, {args.seconds:g} s measured", flush=True)
    result = run_load(args.bots, args.seconds, args.warmup, host_options=args.host_option, keep=args.keep,
                      progress=args.progress)
    print(describe(result))
    outcome = checks(result)
    for passed, text in outcome:
        print(f"{'PASS' if passed else 'FAIL'}: {text}")
    for note in notes(result):
        print(note)
    failed = sum(1 for passed, _ in outcome if not passed)
    print(f"soak: {len(outcome) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
