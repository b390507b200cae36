# -*- test-case-name: tests.store.test_writer, tests.store.test_faults -*-
"""The store process: the host's child that writes the results database and its journal.

``python -m evolution.store.writer_process DB --journal PATH --journal-fd 3 ...``, started by
``evolution.store.writer.StoreWriter``. Offers ``main`` (the process),
``serve(keeper, inbox, out, delays)`` (its loop: the writes that have
arrived applied by a ``Keeper`` in one transaction, each answered) and ``Retries`` (when to apply the waiting writes
again). It reads its input on a thread of its own at once, whatever the disk
does; SIGINT and SIGTERM are ignored (``child.quiet_child``).

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

from evolution.processes.child import messages, quiet_child, send
from evolution.store.database import open_database
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


def serve(keeper: Keeper, inbox: queue.Queue, out: BinaryIO, delays: list[float]) -> None:
    """Write what arrives (what has arrived meanwhile in one transaction), retry what waits, until the input
    ends."""
    retries = Retries(delays)
    while True:
        try:
            message = inbox.get(timeout=retries.timeout(bool(keeper.waiting)))
        except queue.Empty:
            retries.done()
            keeper.retry()
            send(out, ("waiting", len(keeper.waiting)))
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
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    quiet_child()
    out = sys.stdout.buffer
    journal = Journal.adopt(args.journal, args.journal_fd, args.reserve)
    keeper = Keeper(lambda: ResultsStore(open_database(args.db, args.busy_timeout_ms), args.db), journal,
                    lambda level, text: send(out, ("log", level, text)), Path(args.rejected), time.monotonic)
    inbox: queue.Queue = queue.Queue()
    threading.Thread(target=_read_input, args=(sys.stdin.buffer, inbox), daemon=True).start()
    keeper.start()
    send(out, ("waiting", len(keeper.waiting)))
    serve(keeper, inbox, out, [float(delay) for delay in args.retry_delays.split(",")])
    keeper.finish()
    keeper.close()
    journal.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
