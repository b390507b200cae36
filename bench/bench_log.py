"""The host's log: CPU per line, twistd's own text observer against the host's (``evolution.host.log_lines``).

Each line is a sign-up line as the host logs ten a game (``Logger.info`` to
a file observer writing to a file, flushed each line as twistd's is), made
the same in both; the lines are checked to be alike. Median of alternating
rounds of 5,000 lines.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Callable

from twisted.logger import FileLogObserver, LogPublisher, Logger, textFileLogObserver

from evolution.host.log_lines import classic_line

LINES = 5000
ROUNDS = 9


def _writer(path: Path, observer_of: Callable) -> tuple[Logger, Callable[[], None]]:
    out = path.open("a", encoding="utf-8")
    return Logger(namespace="evolution.net.signup", observer=LogPublisher(observer_of(out))), out.close


def _round(log: Logger) -> float:
    """CPU microseconds per line."""
    started = time.process_time()
    for count in range(LINES):
        log.info("signed up {name}{sent} from {peer} ({count} waiting)", name="'bot 1'", sent="",
                 peer="127.0.0.1:45678", count=count % 8)
    return (time.process_time() - started) * 1e6 / LINES


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        theirs, ours = Path(folder, "twistd.log"), Path(folder, "host.log")
        twistd, close_theirs = _writer(theirs, textFileLogObserver)
        host, close_ours = _writer(ours, lambda out: FileLogObserver(out, classic_line))
        times: dict[str, list[float]] = {"twistd": [], "host": []}
        for _ in range(ROUNDS):
            times["twistd"].append(_round(twistd))
            times["host"].append(_round(host))
        close_theirs()
        close_ours()
        alike = _without_time(theirs) == _without_time(ours)
    twisted_us, host_us = (statistics.median(times[key]) for key in ("twistd", "host"))
    print(f"a log line (Logger.info to a file, flushed): twistd's observer {twisted_us:.1f} us, the host's "
          f"{host_us:.1f} us ({twisted_us / host_us:.1f}x less CPU); lines alike: {'yes' if alike else 'NO'}")


def _without_time(path: Path) -> list[str]:
    return [line.split(" ", 1)[1] for line in path.read_text().splitlines()]
