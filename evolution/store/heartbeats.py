# -*- test-case-name: tests.store.test_heartbeats -*-
"""Each host's last sign of life in the store, and what an organiser does with a host that never comes back.

Offers ``beat(store, host, when)`` (a host's store process writes its name and
the time, ``BEAT_EVERY`` seconds apart, with its games or alone when it has
none: never a write of its own per game), ``last_heard(store)`` (host: when),
``silent_for(last_seen, now)`` and ``abort_host(store, host)``: the games a dead
host left running stored as aborted, its running tournaments interrupted (as
its own restart would). The table is ``host_heartbeats`` (store version 8).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from evolution.store.database import stored

BEAT_EVERY = 60.0  # seconds between a store process's heartbeats
RECENT = 3 * BEAT_EVERY  # a host heard from this recently may be alive: abort-host asks for --force


def now_text() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def beat(store: Any, host: str, when: str | None = None) -> None:
    """``host`` is alive ``when`` (now): one row, replaced."""
    with store.connection:
        store.connection.execute(
            "INSERT INTO host_heartbeats (host, last_seen) VALUES (CAST(? AS TEXT), ?)"
            " ON CONFLICT (host) DO UPDATE SET last_seen = excluded.last_seen", (stored(host), when or now_text()))


def last_heard(store: Any) -> dict[str, str]:
    """Each host that ever wrote a heartbeat: when it last did (ISO 8601 UTC)."""
    return {host: seen for host, seen in store.connection.execute("SELECT host, last_seen FROM host_heartbeats")}


def silent_for(last_seen: str, now: datetime | None = None) -> float:
    """Seconds since ``last_seen``."""
    return ((now or datetime.now(timezone.utc)) - datetime.fromisoformat(last_seen)).total_seconds()


def abort_host(store: Any, host: str) -> tuple[list[int], list[int]]:
    """The games ``host`` left running, stored as aborted, and its running tournaments, interrupted: their ids."""
    games = store.abort_running(host, f"its host {host} never came back (evolution-admin abort-host)")
    return games, store.mark_interrupted(host)
