"""Past one machine: the store process on SQLite and on PostgreSQL, and one host against two behind HAProxy.

``python -m bench cluster [--bots N ...] [--seconds S] [--games G]``; skipped, with what to install, where
PostgreSQL or HAProxy is missing. PostgreSQL is a throw-away cluster with its own durable settings
(``fsync`` and ``synchronous_commit=on``), as a deployment runs it. Printed side by side, never asserted:

1. The store process (``StoreWriter``) handed G finished 8-player ladder games at once (each game's start and
   end, its full message log; the ladder's ratings computed in the store): the wall time until all are stored
   (games a second it takes) and its CPU per game, on SQLite and on PostgreSQL; and, for comparison, one game
   a transaction written directly (what a store without groups would commit).
2. For each N of ``--bots`` (500, then 2,000), a ladder of N ``bench.swarm`` bots for S seconds on one host, then
   on two hosts behind HAProxy, one PostgreSQL: games a second played (the bots' game ends) and stored (ended in
   the window and in the store at its end), the hosts' CPU per game (host, workers and store processes) and
   PostgreSQL's. Then the arithmetic of N machines from those figures: what one host's core carries, what the
   database's core carries, and how many hosts one database core serves before it is the limit. On this
   machine's 2 cores the bots, the hosts and PostgreSQL share the CPU, so the games a second are a floor and
   the CPU per game is what scales.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.bench_store import games as played_games
from bench.load_processes import (
    CLOCK_TICK,
    cpu_by_kind,
    cpu_seconds,
    host_processes,
    raise_file_limit,
    sleep_until,
    start_swarms,
)
from evolution.stock_servers import HostGroup, PostgresCluster, haproxy_missing, postgres_missing
from evolution.store.operations import game_begun, game_operation
from evolution.store.results_store import ResultsStore

GAMES = 1000
BOTS = (500, 2000)
SECONDS = 20.0
POOL = 500  # ladder bots the store benchmark's games are dealt from


# -- 1. the store process ---------------------------------------------------------------------------------


def operations(count: int) -> list[dict]:
    """``count`` ladder games as the host hands them over: each game's start, then its end with its log."""
    made = played_games(min(count, 100))
    ops = []
    for k in range(count):
        record, log = made[k % len(made)]
        names = [f"bot {(7 * k + seat) % POOL}" for seat in range(len(record.players))]
        seats = tuple(seat.__class__(**{**seat.__dict__, "name": name}) for seat, name in zip(record.players, names))
        game = record.__class__(**{**record.__dict__, "players": seats, "ladder": True, "host": "bench", "id": k + 1,
                                   "ended_at": f"2026-01-01T00:{k // 3600 % 60:02d}:{k // 60 % 60:02d}.{k % 60:03d}"})
        ops.append(game_begun(k + 1, "bench", game.started_at, "evolution", names, game.deck, game.seed, {}, None,
                              True))
        ops.append(game_operation(game, json.dumps(log, separators=(",", ":"))))
    return ops


def store_process(db: str, count: int) -> dict[str, float]:
    """In a process of its own (a reactor runs once): the store process's wall time and CPU for ``count`` games
    handed at once."""
    from twisted.internet.task import react

    result: dict[str, float] = {}
    ops = operations(count)

    async def measure(reactor: Any) -> None:
        from evolution.store.writer import StoreWriter

        folder = Path(tempfile.mkdtemp(prefix="evolution-bench-store-"))
        writer = StoreWriter(db, reactor, host="bench", journal=folder / "bench.pending")
        writer.open()
        writer.start()
        await writer.idle()
        pid = writer._child.pid
        before, started = sum(cpu_seconds(pid)), time.perf_counter()
        for operation in ops:
            writer.write(operation)
        await writer.idle()
        result.update(wall=time.perf_counter() - started, cpu=sum(cpu_seconds(pid)) - before)
        await writer.close()

    try:
        react(measure)
    except SystemExit:
        pass
    return result


def one_a_transaction(db: str, count: int) -> float:
    """ms per game written directly, one transaction (one commit) each."""
    store = ResultsStore.open(db)
    try:
        ops = operations(count)[1::2]
        started = time.perf_counter()
        for operation in ops:
            store.apply(operation)
        return 1000 * (time.perf_counter() - started) / len(ops)
    finally:
        store.close()


def store_figures(games: int) -> None:
    cluster = PostgresCluster(durable=True)
    cluster.start()
    try:
        with tempfile.TemporaryDirectory(prefix="evolution-bench-") as scratch:
            dbs = {"SQLite": str(Path(scratch) / "bench.sqlite"), "PostgreSQL": cluster.create("grouped")}
            direct = {"SQLite": str(Path(scratch) / "direct.sqlite"), "PostgreSQL": cluster.create("direct")}
            figures = {name: _in_own_process(db, games) for name, db in dbs.items()}
            single = {name: one_a_transaction(db, min(games, 200)) for name, db in direct.items()}
    finally:
        cluster.remove()
    print(f"store process: {games:,} finished 8-player ladder games handed over at once (start, end and log each; "
          "ratings in the store)")
    print(f"  {'':44}{'SQLite':>12}{'PostgreSQL':>14}")
    _row("games a second it stores (grouped commits)", {n: games / f["wall"] for n, f in figures.items()}, "{:.0f}")
    _row("its CPU per game (ms)", {n: 1000 * f["cpu"] / games for n, f in figures.items()}, "{:.2f}")
    _row("one game a transaction, ms a game", single, "{:.2f}")


def _row(label: str, values: dict[str, float], form: str) -> None:
    print(f"  {label:<44}{form.format(values['SQLite']):>12}{form.format(values['PostgreSQL']):>14}")


def _in_own_process(db: str, games: int) -> dict[str, float]:
    run = subprocess.run([sys.executable, "-m", "bench.bench_cluster", "--store-process", db, str(games)],
                         capture_output=True, text=True, check=True)
    return json.loads(run.stdout.splitlines()[-1])


# -- 2. the hosts -----------------------------------------------------------------------------------------


def postgres_cpu(pid: int) -> float:
    """CPU seconds of a PostgreSQL server: the postmaster, its children now, and those that have ended."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    total = sum(int(fields[k]) for k in (11, 12, 13, 14)) / CLOCK_TICK
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    for child in children:
        try:
            total += sum(cpu_seconds(int(child)))
        except OSError:
            pass
    return total


def _epoch(stamp: str) -> float:
    return datetime.fromisoformat(stamp).timestamp()


def hosts_run(hosts: int, bots: int, seconds: float) -> dict[str, float]:
    """A ladder of ``bots`` bots on ``hosts`` hosts behind HAProxy for ``seconds``: the figures."""
    folder = Path(tempfile.mkdtemp(prefix="evolution-bench-hosts-"))
    group = HostGroup(folder, hosts, ("--ladder", "--send-scores"), durable=True)
    swarms: list = []
    try:
        group.start()
        kinds = {pid: kind for host in group.hosts.values()
                 for pid, kind in host_processes(host.process.pid, 3).items()}
        raise_file_limit(4 * bots + 256)
        t0, t1 = start_swarms(swarms, group.port, bots, 1 if bots <= 500 else 2, 3.0, seconds, folder / "bots",
                              "--ladder")
        sleep_until(t0)
        cpu0, pg0 = cpu_by_kind(kinds), postgres_cpu(group.database.pid)
        sleep_until(t1)
        cpu1, pg1 = cpu_by_kind(kinds), postgres_cpu(group.database.pid)
        store = ResultsStore.open(group.db)
        try:
            window = [game for game in store.games() if game.finished and t0 <= _epoch(game.ended_at) <= t1]
        finally:
            store.close()
    finally:
        group.stop()
        outputs = [swarm.result(limit=60) for swarm in swarms]
    seat_ends = sum(1 for output in outputs for _, at in output["ended"] if t0 <= at <= t1)
    seats = sum(len(game.players) for game in window) / max(len(window), 1)  # a game's bots, on average
    host_cpu = sum(cpu1.get(kind, 0.0) - cpu0.get(kind, 0.0) for kind in cpu1)
    games = max(len(window), 1)
    return {"played": seat_ends / max(seats, 1) / seconds, "stored": len(window) / seconds,
            "host_ms": 1000 * host_cpu / games, "pg_ms": 1000 * (pg1 - pg0) / games,
            "store_ms": 1000 * (cpu1.get("store", 0.0) - cpu0.get("store", 0.0)) / games}


def hosts_figures(bots: tuple[int, ...], seconds: float) -> None:
    for count in bots:
        results = {hosts: hosts_run(hosts, count, seconds) for hosts in (1, 2)}
        print(f"\nhosts: a ladder of {count:,} bots for {seconds:g} s on one PostgreSQL (durable), the bots and "
              "every server on this machine's cores")
        print(f"  {'':44}{'1 host':>12}{'2 hosts':>14}")
        for label, key, form in (("games a second played (the bots saw end)", "played", "{:.0f}"),
                                 ("games a second stored (ended in the window)", "stored", "{:.0f}"),
                                 ("hosts' CPU per game (ms: host, workers, store)", "host_ms", "{:.2f}"),
                                 ("  of which store processes (ms)", "store_ms", "{:.2f}"),
                                 ("PostgreSQL's CPU per game (ms)", "pg_ms", "{:.2f}")):
            print(f"  {label:<44}{form.format(results[1][key]):>12}{form.format(results[2][key]):>14}")
        arithmetic(results[2])


def arithmetic(figures: dict[str, float]) -> None:
    """What N machines carry, from the CPU per game measured (the two hosts' figures)."""
    host_core = 1000 / figures["host_ms"]
    database_core = 1000 / max(figures["pg_ms"], 1e-6)
    print(f"  so: one core of a host carries about {host_core:.0f} games a second (its bots elsewhere); one core "
          f"of PostgreSQL about {database_core:.0f}; a database of D cores serves about "
          f"{database_core / host_core:.1f} x D host cores before it is the limit (then: a bigger database "
          "machine, or one database per ladder)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench cluster", description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, nargs="+", default=list(BOTS), help="ladder sizes (default 500 2000)")
    parser.add_argument("--seconds", type=float, default=SECONDS, help=f"seconds of each run (default {SECONDS:g})")
    parser.add_argument("--games", type=int, default=GAMES, help=f"games handed to the store (default {GAMES})")
    args = parser.parse_args(argv or [])
    lacking = postgres_missing() or haproxy_missing()
    if lacking is not None:
        print(f"cluster: skipped: {lacking}")
        return
    store_figures(args.games)
    hosts_figures(tuple(args.bots), args.seconds)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--store-process"]:
        print(json.dumps(store_process(sys.argv[2], int(sys.argv[3]))))
    else:
        main(sys.argv[1:])
