"""What the host's log and the tools say, read as an organiser reads them: real processes on loopback.

- counts are words: "1 game", "1 round", "1 tournament is over" (never "1 games").
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evolution.host.demo import HostProcess, free_port, run_clients

pytestmark = pytest.mark.slow


def log_lines(path: Path) -> list[str]:
    """The log's messages, without the time and the logger's name."""
    return [line.split("] ", 1)[1] for line in path.read_text().splitlines() if "] " in line]


def evolution_results(db: Path, *args: str) -> str:
    result = subprocess.run([sys.executable, "-m", "evolution.host.results_cli", "--db", str(db), *args],
                            capture_output=True, text=True, timeout=60, check=True)
    return result.stdout


@pytest.fixture(scope="module")
def knockout_of_three(tmp_path_factory) -> Path:
    """A knockout of three evolution-client processes: one game, one round; the folder with host.log, r.sqlite."""
    folder = tmp_path_factory.mktemp("knockout")
    port = free_port()
    host = HostProcess(port, folder / "r.sqlite", folder / "host.log", "--tournament", "knockout",
                       "--players", "3-5", "--min-signups", "3", "--max-signups", "3", "--deck", "sorted")
    try:
        host.wait_until_listening()
        clients = run_clients(port, ["a", "b", "c"])
        assert host.wait() == 0
    finally:
        host.stop()
    assert [client.returncode for client in clients] == [0, 0, 0], [client.stderr for client in clients]
    return folder


def test_a_tournament_of_one_game_counts_in_words(knockout_of_three):
    lines = log_lines(knockout_of_three / "host.log")
    assert "tournament 1 round 1 of about 1: 1 game, 3 players" in lines
    assert "tournament 1 round 1 of about 1: 1 of 1 game done, 0 running" in lines
    assert any(line.startswith("tournament 1 is over after 1 round: ") for line in lines), lines
    assert "1 tournament is over; stopping" in lines
    listed = evolution_results(knockout_of_three / "r.sqlite", "--tournaments")
    assert "  3 players  1 round  1 game  winners: " in listed


def test_a_host_that_stops_after_one_game_says_1_game(tmp_path):
    port = free_port()
    host = HostProcess(port, tmp_path / "r.sqlite", tmp_path / "host.log", "--players", "3-3", "--games", "1")
    try:
        host.wait_until_listening()
        run_clients(port, ["a", "b", "c"])
        assert host.wait() == 0
    finally:
        host.stop()
    assert "1 game is over; stopping" in log_lines(tmp_path / "host.log")
