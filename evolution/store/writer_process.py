# -*- test-case-name: tests.store.test_writer, tests.store.test_faults -*-
"""The store process: the host's child that writes the results database and its journal.

``python -m evolution.store.writer_process DB --journal PATH --journal-fd 3 ...``, started by
``evolution.store.writer.StoreWriter``. Offers ``main`` (the process),
``serve(keeper, inbox, out, delays, host)`` (its loop: the writes that have
arrived applied by a ``Keeper`` in one transaction, each answered; the host's ``Heartbeat`` about once a minute)
and ``Retries`` (when to apply the waiting writes again). It reads its input on a thread of its own at once, whatever the disk
does; SIGINT and SIGTERM are ignored (``stopping.heed_only_the_host``).

Its messages, and what it does when its input ends: docs/store.md,
"Inside the store".
"""

from __future__ import annotations

import argparse
import queue
import sys
import threading
import time
from pathlib import Path
from typing import BinaryIO

from evolution.processes.child import messages, send
from evolution.processes.stopping import heed_only_the_host
from evolution.store.heartbeats import BEAT_EVERY, beat
from evolution.store.journal import Journal
from evolution.store.results_store import ResultsStore
from evolution.store.keeper import Keeper


def _read_input(stream: BinaryIO, inbox: queue.Queue) -> None:
    for message in messages(stream):
        inbox.put(message)
    inbox.put(None)


class Retries:
    """When to apply the waiting writes again: after growing pauses while they keep waiting."""

    def __init__(self, delays: list[float]) -> None:
        self.delays = delays
        self.failures = 0
        self.due: float | None = None

    def timeout(self, waiting: bool) -> float | None:
        if not waiting:
            self.failures, self.due = 0, None
            return None
        if self.due is None:
            self.due = time.monotonic() + self.delays[min(self.failures, len(self.delays) - 1)]
            self.failures += 1
        return max(0.0, self.due - time.monotonic())

    def done(self) -> None:
        self.due = None


GROUP = 256  # writes at most in one transaction


class Heartbeat:
    """The host's sign of life in the store (``heartbeats.beat``): at start, then ``BEAT_EVERY`` seconds apart,
    after a transaction of games or alone; none while the database is away (its games wait in the journal)."""

    def __init__(self, keeper: Keeper, host: str | None) -> None:
        self.keeper, self.host = keeper, host
        self.due = time.monotonic()

    def wait(self) -> float | None:
        return None if self.host is None else max(0.0, self.due - time.monotonic())

    def beat_if_due(self) -> None:
        if self.host is None or time.monotonic() < self.due:
            return
        self.due = time.monotonic() + BEAT_EVERY
        if self.keeper.store is not None and not self.keeper.waiting:
            try:
                beat(self.keeper.store, self.host)
            except Exception:  # the database went away meanwhile: the next write finds out and says so
                pass


def _sooner(first: float | None, second: float | None) -> float | None:
    return second if first is None else first if second is None else min(first, second)


def serve(keeper: Keeper, inbox: queue.Queue, out: BinaryIO, delays: list[float], host: str | None = None) -> None:
    """Write what arrives (what has arrived meanwhile in one transaction), retry what waits, beat for ``host``,
    until the input ends."""
    retries = Retries(delays)
    heartbeat = Heartbeat(keeper, host)
    heartbeat.beat_if_due()
    while True:
        retry_in = retries.timeout(bool(keeper.waiting))
        try:
            message = inbox.get(timeout=_sooner(retry_in, heartbeat.wait()))
        except queue.Empty:
            if retry_in is not None and retries.due is not None and time.monotonic() >= retries.due:
                retries.done()
                keeper.retry()
                send(out, ("waiting", len(keeper.waiting)))
            heartbeat.beat_if_due()
            continue
        if message is None:
            return
        batch, ended = [message], False
        while len(batch) < GROUP:  # what waits already goes in the same transaction: one commit for them all
            try:
                more = inbox.get_nowait()
            except queue.Empty:
                break
            if more is None:
                ended = True
                break
            batch.append(more)
        stored = keeper.write_all([operation for _kind, _number, operation in batch])
        for (_kind, number, _operation), taken in zip(batch, stored):
            send(out, ("done", number, taken, len(keeper.waiting)))
        heartbeat.beat_if_due()
        if ended:
            return


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m evolution.store.writer_process")
    p.add_argument("db")
    p.add_argument("--journal", required=True)
    p.add_argument("--rejected", required=True)
    p.add_argument("--journal-fd", type=int, required=True)
    p.add_argument("--reserve", type=int, required=True)
    p.add_argument("--busy-timeout-ms", type=int, required=True)
    p.add_argument("--retry-delays", required=True, help="seconds, comma-separated")
    p.add_argument("--host", default=None, help="the host's name, for its heartbeat (evolution.store.heartbeats)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    heed_only_the_host()
    out = sys.stdout.buffer
    journal = Journal.adopt(args.journal, args.journal_fd, args.reserve)
    keeper = Keeper(lambda: ResultsStore.open(args.db, args.busy_timeout_ms), journal,
                    lambda level, text: send(out, ("log", level, text)), Path(args.rejected), time.monotonic)
    inbox: queue.Queue = queue.Queue()
    threading.Thread(target=_read_input, args=(sys.stdin.buffer, inbox), daemon=True).start()
    keeper.start()
    send(out, ("waiting", len(keeper.waiting)))
    serve(keeper, inbox, out, [float(delay) for delay in args.retry_delays.split(",")], args.host)
    keeper.finish()
    keeper.close()
    journal.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
