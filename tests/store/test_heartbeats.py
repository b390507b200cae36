"""A host that never comes back: its store process's heartbeat, evolution-results --hosts saying how long ago
each host was heard from, and evolution-admin abort-host storing a killed host's running games as aborted."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

import pytest

from evolution.store.heartbeats import RECENT, beat, last_heard, silent_for
from evolution.store.results_store import ResultsStore, reading
from evolution.testing import HostProcess, free_port, start_clients, wait_for_clients


def command(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *arguments], capture_output=True, text=True, timeout=60)


def test_a_heartbeat_is_one_row_a_host_replaced_each_time(db):  # on SQLite and on PostgreSQL (conftest.py)
    store = ResultsStore.open(db)
    try:
        beat(store, "lab1", "2026-01-01T10:00:00+00:00")
        beat(store, "lab2", "2026-01-01T10:00:30+00:00")
        beat(store, "lab1", "2026-01-01T10:01:00+00:00")
        assert last_heard(store) == {"lab1": "2026-01-01T10:01:00+00:00", "lab2": "2026-01-01T10:00:30+00:00"}
    finally:
        store.close()
    assert silent_for("2026-01-01T10:01:00+00:00", datetime(2026, 1, 1, 10, 3, tzinfo=timezone.utc)) == 120


@pytest.mark.slow
def test_a_host_killed_for_good_is_shown_silent_and_its_running_game_is_aborted_by_the_organiser(tmp_path):
    db = tmp_path / "r.sqlite"
    host = HostProcess(free_port(), db, tmp_path / "host.log", "--host-name", "dead1", "--players", "3-3",
                       "--timeout", "30", "--workers", "1", own_group=True)
    clients = []
    try:
        host.wait_until_listening()
        clients = start_clients(host.port, ["a", "b", "c"], None, 5.0)  # a game that is still on when killed
        deadline = time.monotonic() + 60
        while "game 1 begins" not in (tmp_path / "host.log").read_text():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        deadline = time.monotonic() + 60
        while "dead1" not in reading(db, last_heard):  # the store process's first heartbeat, at its start
            assert time.monotonic() < deadline
            time.sleep(0.05)
        host.kill_group()  # for good: no restart will mark its game
    finally:
        host.stop()
        wait_for_clients(clients, 60)
    [row] = json.loads(command("evolution.cli.evolution_results", "--db", str(db), "--hosts", "--json").stdout)
    assert (row["host"], row["running"]) == ("dead1", 1)
    assert row["last_heard"] is not None and 0 <= row["silent_s"] < RECENT
    shown = command("evolution.cli.evolution_results", "--db", str(db), "--hosts").stdout
    assert "s ago" in shown

    refused = command("evolution.cli.evolution_admin", "--db", str(db), "abort-host", "dead1")
    assert refused.returncode == 1 and "was heard from" in refused.stderr and "--force" in refused.stderr

    store = ResultsStore.open(db)  # as if heard from long ago: the host's last heartbeat, ten minutes back
    try:
        beat(store, "dead1", (datetime.now(timezone.utc) - timedelta(minutes=10)).isoformat(timespec="seconds"))
    finally:
        store.close()
    listed = command("evolution.cli.evolution_results", "--db", str(db), "--hosts").stdout
    assert "10 min ago" in listed and "evolution-admin --db DB abort-host dead1" in listed
    aborted = command("evolution.cli.evolution_admin", "--db", str(db), "abort-host", "dead1")
    assert aborted.returncode == 0, aborted.stderr
    assert aborted.stdout == "host dead1: 1 game stored as aborted (#1), 0 tournaments marked interrupted\n"
    [row] = json.loads(command("evolution.cli.evolution_results", "--db", str(db), "--hosts", "--json").stdout)
    assert row["running"] == 0 and row["games"] == 1
    [game] = json.loads(command("evolution.cli.evolution_results", "--db", str(db), "--json").stdout)
    assert game["outcome"].startswith("aborted: its host dead1 never came back")
    unknown = command("evolution.cli.evolution_admin", "--db", str(db), "abort-host", "nobody")
    assert unknown.returncode == 1 and "no host nobody" in unknown.stderr
