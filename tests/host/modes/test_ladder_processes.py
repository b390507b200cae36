"""The ladder for real: ``twistd evolution --ladder`` and ``evolution-client`` processes on loopback.

Honest bots stay on one connection for game after game; a bot that cheats is
hung up on, comes back under its name and keeps its entry; SIGTERM stops the
host cleanly; ``evolution-results --ladder [--json]`` shows the standings the
store kept.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time

import pytest

from evolution.store.results_store import ResultsStore
from evolution.testing import HostProcess, free_port, start_clients, wait_for_clients
from tests.support.paths import REPO

pytestmark = pytest.mark.slow

HONEST = {"silly-1": "silly", "silly-2": "silly", "builder-1": "builder", "builder-2": "builder"}


def finished_games(db) -> int:
    if not db.is_file():
        return 0
    store = ResultsStore.open(db)
    try:
        return sum(1 for game in store.games() if game.finished)
    finally:
        store.close()


def results(db, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evolution.cli.evolution_results", "--db", str(db), *options],
                          capture_output=True, text=True, timeout=60)


def wait_until(predicate, limit: float = 90.0) -> None:
    deadline = time.monotonic() + limit
    while not predicate():
        assert time.monotonic() < deadline, "the ladder did not get that far in time"
        time.sleep(0.2)


def test_bots_come_and_go_on_a_ladder_until_it_is_stopped(tmp_path):
    db, log, port = tmp_path / "results.sqlite", tmp_path / "host.log", free_port()
    host = HostProcess(port, db, log, "--ladder", "--players", "3-4", "--signup-window", "0.2", "--timeout", "2")
    try:
        host.wait_until_listening()
        honest = start_clients(port, list(HONEST), HONEST)
        cheats = []
        for _ in range(2):  # it is hung up on in its first game, and comes back
            [cheat] = start_clients(port, ["cheater"], {"cheater": "cheater"})
            cheat.wait(timeout=90)
            cheats.append(cheat)
        wait_until(lambda: finished_games(db) >= 8)
        host.process.terminate()
        assert host.wait() == -signal.SIGTERM  # twistd ends by the signal it was stopped with
    finally:
        host.stop()
    outcomes = wait_for_clients(honest, 60)
    assert [outcome.returncode for outcome in outcomes] == [0] * len(HONEST), [o.stderr for o in outcomes]

    standings = json.loads(results(db, "--ladder", "--json").stdout)
    assert sorted(row["name"] for row in standings) == sorted([*HONEST, "cheater"])
    assert all(set(row) == {"name", "rank", "rating", "rating_sigma", "games", "wins", "removals", "provisional"}
               for row in standings)
    by_name = {row["name"]: row for row in standings}
    assert by_name["cheater"]["removals"] == by_name["cheater"]["games"] == 2
    for name in HONEST:  # one connection each, several games
        assert by_name[name]["games"] >= 2 and by_name[name]["removals"] == 0
        assert by_name[name]["provisional"] == (by_name[name]["games"] < 5)
    assert [row["rank"] for row in standings] == sorted(row["rank"] for row in standings)
    # Removed from both its games, the cheater ranks below every honest bot, however they fared (a silly bot that
    # loses eight games to builders has a lower mu - 3 sigma than a bot rated on two removals); the others are
    # established first, then provisional, each by mu - 3 sigma, as the table says.
    assert standings[-1]["name"] == "cheater" and by_name["cheater"]["provisional"]
    for group in (False, True):
        ordinals = [row["rating"] - 3 * row["rating_sigma"] for row in standings[:-1] if row["provisional"] == group]
        assert all(a >= b - 0.002 for a, b in zip(ordinals, ordinals[1:])), standings
    assert [row["provisional"] for row in standings] == sorted(row["provisional"] for row in standings)

    table = results(db, "--ladder")
    assert table.returncode == 0 and table.stderr == ""
    lines = table.stdout.splitlines()
    assert lines[0] == "  ladder of evolution: 5 bots, ranked by the rating mu - 3 sigma; equal values share a rank"
    assert lines[1].startswith("  ? marks a provisional rating (fewer than 5 games played to the end)")
    assert [line.split()[1] for line in lines[-len(standings):]] == [row["name"] for row in standings]
    assert lines[-1].split()[4].endswith("?")  # the cheater's sigma, marked
    text = log.read_text()
    assert "ladder of Evolution: 0 bots rated so far" in text
    assert re.search(r"the host is stopping: the ladder stops after \d+ rounds, hanging up on \d+ bots? waiting and"
                     r" \d+ in games", text)
    assert "left the lobby: the host is stopping" not in text  # one line for all, not one per bot
    assert "Traceback" not in text


def test_the_ladder_soak_passes_at_a_small_scale():
    result = subprocess.run(
        [sys.executable, "-m", "bench.ladder_soak", "--bots", "12", "--seconds", "3", "--progress", "1"],
        capture_output=True, text=True, timeout=120, cwd=REPO,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(":")[0] for line in lines if line.startswith(("PASS", "FAIL"))] == ["PASS"] * 5, lines
    assert lines[-1] == "ladder soak: 5 passed, 0 failed"
    assert any(line.startswith("ladder soak: 1 s, ") for line in lines), lines
