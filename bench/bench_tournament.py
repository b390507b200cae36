"""Whole tournaments on loopback: a 200-bot knockout and a 200-bot Swiss of 5 rounds.

``python -m bench tournament [--bots N] [--rounds R]``. For each format, one
``twistd evolution --tournament ...`` process (fresh store, default 1 s time
limit, 3-8 players per game) and one process of N bots (``play_remote`` with
the silly strategy, all on one reactor: lightweight clients that validate
every message as ``evolution-client`` does). Printed, never asserted:

- wall time from the host listening to the host stopping after the
  tournament (sign-up ends at once when the N-th bot has signed up);
- host CPU per game: the host process's user + system CPU time (from
  ``wait4`` when it exits: sign-up and the store's thread included) less
  what a host that starts and stops at once costs (start-up, measured
  first), divided by the games stored;
- peak host memory: the host's largest resident set (``ru_maxrss``);
- rounds, games, winners and failures, from the store.

``python -m bench.bench_tournament bots --port P --count N`` is the bots'
process on its own.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from evolution.testing import free_port, HostProcess
from evolution.store.results_store import ResultsStore


def run_bots(port: int, count: int) -> None:
    """N silly bots on one reactor; returns when every one has been hung up on."""
    from twisted.internet.defer import ensureDeferred, gatherResults
    from twisted.internet.task import react

    from evolution.net.client import play_remote
    from evolution.games.evolution.rules.silly import SillyPlayer

    async def all_bots(reactor: Any) -> None:
        async def bot(k: int) -> Any:
            try:
                return await play_remote(reactor, "127.0.0.1", port, f"bot{k:03}", SillyPlayer(), retries=5)
            except Exception as error:  # a bot's own end is the tournament's business
                return error

        await gatherResults([ensureDeferred(bot(k)) for k in range(count)])

    react(lambda reactor: ensureDeferred(all_bots(reactor)))


def one_tournament(folder: Path, bots: int, *options: str) -> dict[str, Any]:
    db, log, port = folder / "results.sqlite", folder / "host.log", free_port()
    host = HostProcess(
        port, db, log, "--max-signups", str(bots), "--signup-window", "120", "--players", "3-8", *options
    )
    try:
        host.wait_until_listening()
        began = time.monotonic()
        swarm = subprocess.Popen(
            [sys.executable, "-m", "bench.bench_tournament", "bots", "--port", str(port), "--count", str(bots)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        _, status, usage = os.wait4(host.process.pid, 0)
        wall = time.monotonic() - began
        host.process.returncode = os.waitstatus_to_exitcode(status)
        swarm.wait(timeout=60)
    finally:
        host.stop()
    store = ResultsStore.open(db)
    try:
        [tournament] = store.tournaments()
        games = len(store.games())
    finally:
        store.close()
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_kib": usage.ru_maxrss,
        "games": games,
        "rounds": len(tournament.rounds),
        "status": tournament.status,
        "winners": [entrant.name for entrant in tournament.winners],
        "failures": len(tournament.failures),
    }


def start_up_cpu(folder: Path) -> float:
    """The CPU seconds of a host that starts, listens and is stopped at once."""
    host = HostProcess(free_port(), folder / "idle.sqlite", folder / "idle.log", "--tournament", "knockout")
    host.wait_until_listening()
    host.process.terminate()
    _, _, usage = os.wait4(host.process.pid, 0)
    host.process.returncode = 0
    return usage.ru_utime + usage.ru_stime


def report(label: str, figures: dict[str, Any], idle: float) -> None:
    per_game = 1000 * (figures["cpu"] - idle) / max(figures["games"], 1)
    print(
        f"{label}: {figures['status']} in {figures['wall']:.1f} s, {figures['rounds']} rounds, "
        f"{figures['games']} games; host CPU {figures['cpu']:.2f} s in all ({idle:.2f} s of it start-up), "
        f"{per_game:.1f} ms per game; "
        f"peak host memory {figures['peak_kib'] / 1024:.0f} MiB; winners {', '.join(figures['winners']) or '-'}; "
        f"{figures['failures']} failed"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench tournament")
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv or [])
    with tempfile.TemporaryDirectory(prefix="evolution-bench-") as scratch:
        idle = start_up_cpu(Path(scratch))
        for label, options in (
            (f"knockout of {args.bots} bots", ("--tournament", "knockout")),
            (f"Swiss of {args.bots} bots, {args.rounds} rounds", ("--tournament", "swiss", "--rounds",
                                                                   str(args.rounds))),
        ):
            folder = Path(scratch) / label.split()[0]
            folder.mkdir()
            report(label, one_tournament(folder, args.bots, *options), idle)


if __name__ == "__main__":
    if sys.argv[1:2] == ["bots"]:
        bots = argparse.ArgumentParser()
        bots.add_argument("--port", type=int, required=True)
        bots.add_argument("--count", type=int, required=True)
        arguments = bots.parse_args(sys.argv[2:])
        run_bots(arguments.port, arguments.count)
    else:
        main(sys.argv[1:])
