"""Scale: how far one host goes with more workers, and several hosts on one PostgreSQL, as issue 38's tables.

``python -m bench scale [--bots N] [--workers 1,2,4,8] [--ladder-bots M] [--hosts 1,2,4] [--seconds S]
[--warmup W] [--procs K] [--tables hosts,workers] [--json FILE]``. Two tables, printed as each is done:

1. One host on SQLite, N bots (default 2,000) in 8-player games, with 1, 2, 4 and 8 worker processes
   (``bench.bench_load.run_load`` with ``--workers=W`` and a listen queue of 1,024): games a second played
   and stored, the host's CPU per game played, the signing-up process's CPU per game played and its reactor's
   busy share, the store process's CPU per game stored, the bots still waiting to sign up at T1 and the listen
   queue's overflows in the window, the sign-up p99, the journal's backlog at T1 and the busiest bot process's
   CPU (near 100%: the bots, not the host, set the pace).
2. A ladder of M bots (default 4,000) on 1, 2 and 4 hosts behind HAProxy, one durable PostgreSQL
   (``bench.bench_cluster.hosts_run``; each host with its default workers, the machine's cores): games a
   second played and stored, the journals' backlog at T1, the hosts' CPU per game played and stored, the
   signing-up processes', and the store processes' and PostgreSQL's CPU per game stored.

Each run is a fresh host (and a fresh PostgreSQL), W seconds of warm-up (default 8) and an S-second window
(default 20). What the whole takes, and the sizes that fit a few minutes on 16 cores:
docs/performance.md, "bench scale". Nothing is asserted; the table 2 is skipped where PostgreSQL or HAProxy
is missing.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import sys
import time
from pathlib import Path
from typing import Any

from bench.bench_cluster import HOSTS_ROWS, hosts_run
from bench.bench_load import run_load
from bench.load_report import describe
from bench.load_result import LoadResult
from evolution.stock_servers import haproxy_missing, postgres_missing

ONLY_WHEN_NAMED = True  # not in `make bench` (python -m bench): minutes of a big machine
BACKLOG = "--port=tcp:{port}:interface=127.0.0.1:backlog=1024"


def _numbers(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of whole numbers such as 1,2,4") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give one or more numbers of 1 or more, such as 1,2,4")
    return values


def _figure(value: float, form: str) -> str:
    return "-" if isinstance(value, float) and math.isnan(value) else form.format(value)


WORKER_ROWS = (
    ("games a second played", lambda r: _figure(r.played_per_s, "{:.0f}")),
    ("games a second stored", lambda r: _figure(r.games_per_s, "{:.0f}")),
    ("host's CPU per game played (all processes)", lambda r: _figure(r.host_cpu_per_played_game_ms, "{:.2f} ms")),
    ("signing-up process's CPU per game", lambda r: _figure(r.signup_cpu_per_game_ms, "{:.2f} ms")),
    ("signing-up process's reactor busy", lambda r: _figure(r.reactor_run_percent, "{:.0f}%")),
    ("store process's CPU per game stored", lambda r: _figure(r.store_cpu_per_game_ms, "{:.2f} ms")),
    ("bots waiting to sign up at T1 / listen-queue overflows", lambda r: (
        f"{r.bots_at_t1.get('connecting', 0):,} / {r.listen_overflows:,}")),
    ("sign-up p99", lambda r: _figure(r.signup_s.get("p99", float("nan")), "{:.2f} s")),
    ("the store's backlog at T1 (games ended, not yet stored)", lambda r: f"{r.backlog_at_t1:,.0f}"),
    ("busiest bot process's CPU", lambda r: _figure(max(r.bot_cpu_percent, default=float("nan")), "{:.0f}%")),
)


def workers_table(results: dict[int, LoadResult], bots: int, seconds: float) -> str:
    """Issue 38's first table: one column per number of workers."""
    head = f"| one host, SQLite, {bots:,} bots, 8-player games, {seconds:g} s | " + " | ".join(
        f"{w} worker{'s' if w > 1 else ''}" for w in results) + " |"
    lines = [head, "|---" * (len(results) + 1) + "|"]
    for label, value in WORKER_ROWS:
        lines.append(f"| {label} | " + " | ".join(value(result) for result in results.values()) + " |")
    return "\n".join(lines)


def hosts_markdown(results: dict[int, dict[str, float]], bots: int, seconds: float) -> str:
    """Issue 38's second table, in markdown: one column per number of hosts."""

    head = f"| ladder of {bots:,} bots, durable PostgreSQL, behind HAProxy, {seconds:g} s | " + " | ".join(
        f"{n} host{'s' if n > 1 else ''}" for n in results) + " |"
    lines = [head, "|---" * (len(results) + 1) + "|"]
    for label, key, form in HOSTS_ROWS:
        lines.append(f"| {label.strip()} | " + " | ".join(form.format(r[key]) for r in results.values()) + " |")
    return "\n".join(lines)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench scale", description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=2000, help="bots of the one-host table (default 2000)")
    parser.add_argument("--workers", type=_numbers, default=(1, 2, 4, 8), metavar="1,2,4,8",
                        help="worker processes of the one-host table's runs (default 1,2,4,8)")
    parser.add_argument("--ladder-bots", type=int, default=4000, help="bots of the hosts' ladder (default 4000)")
    parser.add_argument("--hosts", type=_numbers, default=(1, 2, 4), metavar="1,2,4",
                        help="hosts behind HAProxy in the ladder's runs (default 1,2,4)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured window of each run (default 20)")
    parser.add_argument("--warmup", type=float, default=8.0, help="seconds of play before each window (default 8)")
    parser.add_argument("--procs", type=int, default=None,
                        help="bot processes (default one per 500 bots, at least 2 from 1,000 bots)")
    parser.add_argument("--tables", default="workers,hosts", metavar="workers,hosts",
                        help="which tables to run (default both)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    return parser.parse_args(argv)


def bot_processes(bots: int, procs: int | None) -> int:
    """One bot process per 500 bots (so the bots are not the limit on a big machine), 1 up to 500."""
    return procs or max(1, math.ceil(bots / 500))


def main(argv: list[str] | None = None) -> None:
    """``python -m bench scale [options]``: the one-host table, then the hosts' table."""
    args = parse(argv or [])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # timeout's SIGTERM: the hosts and servers stopped too
    tables = {name.strip() for name in args.tables.split(",")}
    figures: dict[str, Any] = {}
    began = time.monotonic()
    if "workers" in tables:
        results = {}
        for workers in args.workers:
            results[workers] = run_load(args.bots, args.seconds, args.warmup, 8, bot_processes(args.bots, args.procs),
                                        [f"--workers={workers}", BACKLOG], calls=False)
            print(describe(results[workers]), flush=True)
            print(f"scale: {time.monotonic() - began:.0f} s so far", flush=True)
        print("\n" + workers_table(results, args.bots, args.seconds) + "\n", flush=True)
        figures["workers"] = {str(w): vars(r) for w, r in results.items()}
    if "hosts" in tables:
        lacking = postgres_missing() or haproxy_missing()
        if lacking is not None:
            print(f"scale: the hosts' table skipped: {lacking}")
        else:
            runs = {}
            for hosts in args.hosts:
                runs[hosts] = hosts_run(hosts, args.ladder_bots, args.seconds, args.warmup,
                                        bot_processes(args.ladder_bots, args.procs))
                done = runs[hosts]
                print(f"scale: {hosts} host(s): {done['played']:.0f} games a second played, "
                      f"{done['stored']:.0f} stored, backlog {done['backlog']:.0f}; "
                      f"{time.monotonic() - began:.0f} s so far", flush=True)
            print("\n" + hosts_markdown(runs, args.ladder_bots, args.seconds) + "\n", flush=True)
            figures["hosts"] = {str(n): r for n, r in runs.items()}
    print(f"scale: done in {time.monotonic() - began:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1, default=str))
