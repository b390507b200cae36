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
   the window and in the store at T1) and the stores' backlog at T1 (games ended, not yet stored), the hosts'
   CPU per game played and per game stored (every process below each host), the store processes' and
   PostgreSQL's per game stored. Then the arithmetic of N machines from those figures: what one host's core
   carries, what the database's core carries, and how many hosts one database core serves before it is the
   limit. On this
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
    ended_before,
    journal_backlog,
    more_processes,
    raise_file_limit,
    sleep_until,
    start_swarms,
    stored_games,
    workers_of,
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


def hosts_run(hosts: int, bots: int, seconds: float, warmup: float = 3.0, procs: int | None = None,
              options: tuple[str, ...] = ()) -> dict[str, float]:
    """A ladder of ``bots`` bots on ``hosts`` hosts behind HAProxy for ``seconds`` after ``warmup``: the figures.

    Played: the games the bots saw end in the window. Stored: those of the window in the store at T1 (read
    then). The stores' backlog at T1: the games the bots saw end before T1 that the store did not hold at T1
    (handed to the hosts' store processes, not yet written), and of them those in the hosts' journals. CPU per
    game played and per game stored side by side.
    Every process below each host counts (its workers default to the machine's cores), read again at T0.
    """
    folder = Path(tempfile.mkdtemp(prefix="evolution-bench-hosts-"))
    group = HostGroup(folder, hosts, ("--ladder", "--send-scores", *options), durable=True)
    swarms: list = []
    raise_file_limit(4 * bots + 256)  # before the hosts start: they inherit it
    try:
        group.start()
        kinds = {pid: kind for host in group.hosts.values()
                 for pid, kind in host_processes(host.process.pid, 1 + workers_of(list(options))).items()}
        procs = procs or (1 if bots <= 500 else 2)
        t0, t1 = start_swarms(swarms, group.port, bots, procs, warmup, seconds, folder / "bots", "--ladder")
        sleep_until(t0)
        kinds = more_processes(kinds)
        cpu0, pg0 = cpu_by_kind(kinds), postgres_cpu(group.database.pid)
        sleep_until(t1)
        cpu1, pg1 = cpu_by_kind(kinds), postgres_cpu(group.database.pid)
        at_t1, total = _stored_ends(group.db, t0, t1), stored_games(group.db)
        journals = sum(journal_backlog(folder / f"host{n}.pending") for n in group.hosts)
    finally:
        group.stop()
        outputs = [swarm.result(limit=60) for swarm in swarms]
    seats = sum(at_t1) / len(at_t1) if at_t1 else 8  # a game's bots, on average
    backlog = {"backlog": max(0.0, ended_before(outputs, t1, seats) - total), "journals": journals}
    return _figures(outputs, t0, t1, at_t1, backlog, {kind: cpu1[kind] - cpu0.get(kind, 0.0) for kind in cpu1},
                    pg1 - pg0, bots)


def _stored_ends(db: str, t0: float, t1: float) -> list[int]:
    """The seats of each finished game in the store that ended in the window [t0, t1]."""
    store = ResultsStore.open(db)
    try:
        rows = store.connection.execute("SELECT g.ended_at, COUNT(*) FROM games g JOIN players p ON p.game_id = g.id "
                                        "WHERE g.outcome = 'finished' GROUP BY g.id, g.ended_at").fetchall()
    finally:
        store.close()
    return [seats for ended_at, seats in rows if t0 <= _epoch(ended_at) <= t1]


def _figures(outputs: list[dict], t0: float, t1: float, stored: list[int], backlog: dict[str, float],
             cpu: dict[str, float], pg: float, bots: int) -> dict[str, float]:
    """A hosts' run's figures: games a second played and stored, the backlog, CPU per game played and stored."""
    seconds = t1 - t0
    seat_ends = sum(1 for output in outputs for _, at in output["ended"] if t0 <= at <= t1)
    played = seat_ends / (sum(stored) / len(stored) if stored else 8)  # a game's bots, on average
    host_cpu = sum(cpu.values())
    per_played, per_stored = 1000 / max(played, 1), 1000 / max(len(stored), 1)
    return {"played": played / seconds, "stored": len(stored) / seconds, **backlog,
            "per_bot": seat_ends / seconds / max(bots, 1),
            "host_ms": host_cpu * per_played, "host_stored_ms": host_cpu * per_stored,
            "signup_ms": cpu.get("host", 0.0) * per_played,
            "store_ms": cpu.get("store", 0.0) * per_stored, "pg_ms": pg * per_stored,
            "store_pg_ms": (cpu.get("store", 0.0) + pg) * per_stored,
            "bot_errors": sum(sum(output["errors"].values()) for output in outputs)}


HOSTS_ROWS = (
    ("games a second played (the bots saw end)", "played", "{:.0f}"),
    ("games a second stored (in the store at T1)", "stored", "{:.0f}"),
    ("games a bot played a second", "per_bot", "{:.2f}"),
    ("the stores' backlog at T1 (games ended, not stored)", "backlog", "{:.0f}"),
    ("  of which in the journals", "journals", "{:.0f}"),
    ("hosts' CPU per game played (ms, all processes)", "host_ms", "{:.2f}"),
    ("hosts' CPU per game stored (ms)", "host_stored_ms", "{:.2f}"),
    ("signing-up processes' CPU per game played (ms)", "signup_ms", "{:.2f}"),
    ("store processes + PostgreSQL, CPU per game stored", "store_pg_ms", "{:.2f}"),
    ("  of which PostgreSQL's (ms)", "pg_ms", "{:.2f}"),
)


def hosts_table(results: dict[int, dict[str, float]], title: str) -> str:
    """The hosts' runs side by side (one column per number of hosts), as lines."""
    lines = [title, f"  {'':52}" + "".join(f"{f'{n} host' + ('s' if n > 1 else ''):>12}" for n in results)]
    for label, key, form in HOSTS_ROWS:
        lines.append(f"  {label:<52}" + "".join(f"{form.format(figures[key]):>12}" for figures in results.values()))
    return "\n".join(lines)


def hosts_figures(bots: tuple[int, ...], seconds: float, hosts: tuple[int, ...] = (1, 2)) -> None:
    for count in bots:
        results = {n: hosts_run(n, count, seconds) for n in hosts}
        print()
        print(hosts_table(results, f"hosts: a ladder of {count:,} bots for {seconds:g} s on one PostgreSQL (durable), "
                                   "the bots and every server on this machine's cores"))
        arithmetic(results[max(results)])


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
