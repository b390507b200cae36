# -*- test-case-name: tests.cli.test_cluster_demo -*-
"""``make demo-cluster``: one ladder fed by three hosts behind HAProxy, sharing one PostgreSQL, on loopback.

Offers ``main(argv)``: starts a throw-away PostgreSQL, three hosts
(``twistd evolution --ladder --proxy-protocol``, on 127.0.0.2-4, the first
with the web view), HAProxy in front of them on 127.0.0.1, and 60
``evolution-client`` processes that play on the ladder through it
(``evolution.stock_servers.HostGroup``); prints the leaders as they change and
which host played how many games, then the ladder, and stops them all. Where
PostgreSQL or HAProxy is missing it says in one line what to install. The
same pieces on several machines: docs/deploy.md.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from argparse import Namespace
from pathlib import Path
from typing import Callable

from evolution.cli.arguments import ArgumentParser
from evolution.cli.demo import START_LIMIT, Lines, demo_bots, ended, ranked_by, starting
from evolution.cli.evolution_results import format_ladder
from evolution.stock_servers import HostGroup, haproxy_missing, postgres_missing
from evolution.store.results_store import ResultsStore
from evolution.testing import free_port, start_clients, wait_for_clients
from evolution.text import plural

HOSTS = 3
LEADERS = 5
SAID_EVERY = 3.0  # seconds at least between two lines of leaders
HOSTS_EVERY = 15.0  # seconds between the lines that say which host played how many games


def parser() -> ArgumentParser:
    p = ArgumentParser(
        prog="python -m evolution.cli.cluster_demo",
        description="One ladder fed by three hosts behind HAProxy, sharing one PostgreSQL, all on loopback and "
        "thrown away at the end: the leaders as they change, which host played how many games, then the ladder.",
    )
    p.add_argument("--bots", type=int, default=60, metavar="N", help="bot processes on the ladder (default 60)")
    p.add_argument("--seconds", type=float, default=60.0, help="how long the ladder runs, from its first game "
                   "(default 60)")
    p.add_argument("--think", type=float, default=0.02, metavar="SECONDS",
                   help="each bot's pause before an answer (default 0.02)")
    p.add_argument("--keep", action="store_true", help="keep the hosts' logs and journals (the folder is said)")
    return p


def missing() -> str | None:
    """What this machine lacks for the demo, in one line, or None."""
    why = [reason for reason in (postgres_missing(), haproxy_missing()) if reason is not None]
    if not why:
        return None
    return "demo-cluster needs PostgreSQL and HAProxy: " + "; ".join(why)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    lacking = missing()
    if lacking is not None:
        print(lacking, file=sys.stderr)
        return 1
    folder = Path(tempfile.mkdtemp(prefix="evolution-cluster-"))
    web = free_port()
    lines = Lines()
    group: HostGroup | None = None
    try:
        lines.say("starting a throw-away PostgreSQL, three hosts and HAProxy in front of them ...")
        group = HostGroup(folder, HOSTS, ("--ladder", "--players", "3-8"),
                          extra={1: ("--web", f"tcp:{web}:interface=127.0.0.1")})
        group.start(START_LIMIT)
        lines.say(f"PostgreSQL: {group.db} (a cluster in {group.database.folder})")
        for n, port in group.ports.items():
            lines.say(f"host{n}: twistd evolution --ladder --proxy-protocol on {group.address(n)}:{port}, "
                      f"log in {group.log(n)}")
        lines.say(f"HAProxy: 127.0.0.1:{group.port} spreads the bots over the three hosts (leastconn, send-proxy-v2)")
        lines.say(f"web view: http://127.0.0.1:{web}/  (host1's: the one ladder, every host's games)")
        run(group, args, lines)
    except RuntimeError as error:
        print(f"demo-cluster: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("demo-cluster: stopped")
        return 1
    finally:
        if group is not None:
            lines.say("stopping the hosts, HAProxy and PostgreSQL")
            group.stop()
        if args.keep:
            lines.say(f"the hosts' logs and journals are in {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


def run(group: HostGroup, args: Namespace, lines: Lines) -> None:
    bots = demo_bots(args.bots)
    lines.say(f"{len(bots)} bots join the ladder through HAProxy: " + ", ".join(list(bots)[:8]) + ", ...")
    starting(len(bots), lines)
    clients = start_clients(group.port, list(bots), bots, args.think)
    watch = Watch(group.db, lines)
    clock: list[float] = []  # when the ladder's --seconds end and the next hosts line is due, from its first game

    def over() -> bool:
        now = time.monotonic()
        for n, host in group.hosts.items():
            if host.process.poll() is not None:
                raise RuntimeError(f"host{n} stopped with status {host.process.returncode}; see {group.log(n)}")
        watch.poll(now)
        if not clock:
            if watch.games == 0:
                return False
            clock.extend([now + args.seconds, now + HOSTS_EVERY])
        if now >= clock[1]:
            lines.say(watch.hosts_line())
            clock[1] = now + HOSTS_EVERY
        return now >= clock[0]

    lines.wait_for(over, watch.status, args.seconds + START_LIMIT, "the cluster demo did not end", poll=0.5)
    lines.say("the demo stops the hosts: the games being played are stored as aborted")
    for n in group.hosts:
        group.stop_host(n)
    ended(clients, lines, "bot processes")
    wait_for_clients(clients, 10)
    watch.poll(time.monotonic())
    lines.say(watch.hosts_line(final=True))
    store = ResultsStore.open(group.db)
    try:
        lines.say("")
        lines.say(format_ladder(store.ladder(), "evolution"))
    finally:
        store.close()


class Watch:
    """Reads the shared store now and then: says the leaders when they change, and each host's games."""

    def __init__(self, db: str, lines: Lines, clock: Callable[[], float] = time.monotonic) -> None:
        self.db, self.lines = db, lines
        self.games = 0
        self.by_host: dict[str, int] = {}
        self.leaders: list[str] = []
        self.said_at = clock() - SAID_EVERY

    def poll(self, now: float) -> None:
        try:
            store = ResultsStore.open(self.db)
        except Exception:  # the database is starting: the next poll reads it
            return
        try:
            hosts = store.hosts()
            top = [(rank, standing) for rank, standing in store.ladder(limit=LEADERS)]
        finally:
            store.close()
        self.by_host = {row["host"] or "-": row["games"] for row in hosts}
        self.games = sum(self.by_host.values())
        names = [standing.name for _, standing in top]
        if names != self.leaders and now - self.said_at >= SAID_EVERY:
            self.leaders, self.said_at = names, now
            self.lines.say(f"leaders after {plural(self.games, 'game')} {ranked_by(top)}")

    def hosts_line(self, final: bool = False) -> str:
        each = ", ".join(f"{host} {count}" for host, count in sorted(self.by_host.items()))
        return f"{'in all' if final else 'so far'}, games played by each host: {each or '-'}"

    def status(self, waited: float) -> str:
        if self.games == 0:
            return "the bots' processes are starting and signing up through HAProxy"
        return f"the ladder: {plural(self.games, 'game')} stored so far"


if __name__ == "__main__":
    sys.exit(main())
