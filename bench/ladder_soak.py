"""``make soak``, its ladder part: 2,000 bots on one ladder host; every bot kept, plays, every game stored and rated.

``python -m bench.ladder_soak [--bots N] [--seconds S] [--keep] [--progress S]``
starts ``twistd -n evolution --ladder --send-scores`` (every other option at
its default: games of 3-8 formed every second, a 1 s time limit) on a free
loopback port with a fresh store, and N silly bots in two ``bench.swarm
--ladder`` processes: each bot connects once, at 1,000 a second, and stays
for game after game under one name (the score message tells it a game is
over). After S seconds (default 60) of play the host gets SIGTERM (it stores
the games under way as aborted, hangs up, finishes its writes) and the store
is read. It checks, whatever the machine's speed:

1. no honest bot removed: no seat of any stored game has a ``removed_reason``
   (every bot answers at once and legally), and the host hung up on none
   between games (the bots count it);
2. every game stored: each bot's score messages (one per game it finished
   in) match, one for one, the finished stored games in which it sat, and
   nothing waits in the store writer's journal;
3. the ladder kept every game: each bot's standing counts exactly its
   finished games, and holds the rating its last game's seat was stored with;
4. every bot played about as often as the others: all of them played, and
   the fewest games of a bot are at least half the median (a bot is seated
   whenever it waits at a round, so the spread comes only from games of
   different lengths);
5. the load ran: games were played with all N bots connected, and the bots
   saw nothing unexpected.

It prints a progress line every 10 s, the figures (games, games per second,
games per bot: fewest, median, most; the host's CPU and memory), one line
per check and ``ladder soak: N passed, M failed``; exit status 1 when a check
fails.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.load_processes import (
    ProgressLines,
    SwarmProcess,
    cpu_seconds,
    memory_kib,
    raise_file_limit,
    sleep_until,
    start_swarms,
    stop_host,
)
from evolution.testing import free_port, HostProcess
from evolution.store.journal import Journal, held
from evolution.store.results_store import ResultsStore

BOTS = 2000
SECONDS = 60.0
PROGRESS = 10.0
HOST_OPTIONS = ("--ladder", "--send-scores")


def run(bots: int, seconds: float, folder: Path, progress: float) -> dict[str, Any]:
    """Play the ladder; return what the bots and the host's store say."""
    raise_file_limit(bots + 256)
    db, log, port = folder / "results.sqlite", folder / "host.log", free_port()
    host = HostProcess(port, db, log, *HOST_OPTIONS)
    ticker = ProgressLines("ladder soak", db, progress)
    swarms: list[SwarmProcess] = []
    figures: dict[str, Any] = {}
    try:
        host.wait_until_listening()
        t0, t1 = start_swarms(swarms, port, bots, 1 if bots <= 500 else 2, 0.0, seconds, folder / "bots", "--ladder")
        ticker.window = (t0, t1)
        sleep_until(t0)
        before = cpu_seconds(host.process.pid)
        sleep_until(t1)
        figures["host_cpu_percent"] = 100 * (sum(cpu_seconds(host.process.pid)) - sum(before)) / seconds
        figures["host_rss_mib"] = memory_kib(host.process.pid)["VmRSS"] / 1024
        time.sleep(0.6)  # the bots report their states from --stop (T1) on, every quarter second
        figures["connected"] = sum(s.status.get("lobby", 0) + s.status.get("playing", 0) for s in swarms)
    finally:
        ticker.stop()
        stop_host(host)
        outputs = [swarm.result(limit=60) for swarm in swarms]
    figures["ended"] = Counter(name for output in outputs for name, _ in output["ended"])
    figures["errors"] = sum((Counter(output["errors"]) for output in outputs), Counter())
    store_done = Journal(folder / "results.sqlite.pending")  # its lock is the store process's until it ends: a
    store_done.open(lock_wait=120)  # store process still writing when its host exits (after 5 s) finishes first
    store_done.close()
    figures["pending"] = len(held(folder / "results.sqlite.pending"))  # the file stays, reserved: its writes
    store = ResultsStore.open(db)
    try:
        figures["games"] = store.games()
        figures["ladder"] = {standing.name: standing for _, standing in store.ladder()}
    finally:
        store.close()
    return figures


def checks(figures: dict[str, Any], bots: int) -> list[tuple[bool, str]]:
    games, ladder, ended = figures["games"], figures["ladder"], figures["ended"]
    finished = [game for game in games if game.finished]
    reasons = Counter(seat.removed_reason for game in games for seat in game.players if seat.removed_reason)
    hung_up = sum(count for error, count in figures["errors"].items() if error.startswith("hung up"))
    seats: dict[str, list] = {}
    for game in finished:
        for seat in game.players:
            seats.setdefault(seat.name, []).append(seat)
    unmatched = {name: (ended.get(name, 0), len(seats.get(name, ()))) for name in set(ended) | set(seats)
                 if ended.get(name, 0) != sum(1 for seat in seats.get(name, ()) if seat.removed_reason is None)}
    miscounted = [name for name, standing in ladder.items()
                  if standing.games != len(seats.get(name, ()))
                  or (standing.rating_mu, standing.rating_sigma) != (seats[name][-1].rating_mu, seats[name][-1].rating_sigma)]
    played = sorted(len(seats.get(f"L{k}", ())) for k in range(bots))
    median = statistics.median(played) if played else 0
    own = {error: n for error, n in figures["errors"].items() if not error.startswith("hung up")}
    return [
        (not reasons and not hung_up,
         "no honest bot removed, none hung up on" if not reasons and not hung_up
         else f"{sum(reasons.values())} removals ({dict(list(reasons.items())[:3])}), {hung_up} bots hung up on"),
        (not unmatched and not figures["pending"],
         f"every game stored: the bots' {sum(ended.values())} game ends are the stored games' seats"
         if not unmatched and not figures["pending"]
         else f"{len(unmatched)} bots' game ends differ from the store (seen, stored: {dict(list(unmatched.items())[:3])}),"
              f" {figures['pending']} writes left in the journal"),
        (not miscounted and len(ladder) == bots,
         f"the ladder holds {len(ladder)} bots, each with its games and last rating" if not miscounted
         and len(ladder) == bots else f"the ladder holds {len(ladder)} bots; miscounted: {miscounted[:3]}"),
        (bool(played) and played[0] > 0 and played[0] >= median / 2,
         f"every bot played about as often: fewest {played[0]}, median {median:g}, most {played[-1]} games"
         if played else "no bot played"),
        (bool(finished) and figures["connected"] == bots and not own,
         f"the load ran: {len(finished)} games with all {bots} bots connected, nothing unexpected"
         if finished and figures["connected"] == bots and not own
         else f"the load did not run as planned: {len(finished)} games, {figures['connected']} of {bots} bots "
              f"connected at the end, bot errors {own}"),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ladder_soak", description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=BOTS, help=f"bots (default {BOTS})")
    parser.add_argument("--seconds", type=float, default=SECONDS, help=f"seconds of play (default {SECONDS:g})")
    parser.add_argument("--keep", action="store_true", help="keep the host's store and log and the bots' records")
    parser.add_argument("--progress", type=float, default=PROGRESS, metavar="SECONDS",
                        help=f"a progress line this often (default {PROGRESS:g} s)")
    args = parser.parse_args(argv)
    print(f"ladder soak: {args.bots} bots on one twistd evolution {' '.join(HOST_OPTIONS)}, {args.seconds:g} s of play",
          flush=True)
    folder = Path(tempfile.mkdtemp(prefix="evolution-ladder-soak-"))
    started = time.monotonic()
    try:
        figures = run(args.bots, args.seconds, folder, args.progress)
    finally:
        if args.keep:
            print(f"ladder soak: the host's store and log, and the bots' records, are in {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    finished = sum(1 for game in figures["games"] if game.finished)
    print(f"ladder soak: {finished} games finished ({finished / args.seconds:.0f}/s), "
          f"{len(figures['games']) - finished} aborted at the stop; host CPU {figures['host_cpu_percent']:.0f}% of a "
          f"core, RSS {figures['host_rss_mib']:.0f} MiB; {time.monotonic() - started:.0f} s in all")
    outcome = checks(figures, args.bots)
    for passed, text in outcome:
        print(f"{'PASS' if passed else 'FAIL'}: {text}")
    failed = sum(1 for passed, _ in outcome if not passed)
    print(f"ladder soak: {len(outcome) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
