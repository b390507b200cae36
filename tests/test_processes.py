"""The real thing: ``twistd evolution`` and ``evolution-client`` as separate processes on loopback."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest

from evolution.host.demo import HostProcess, free_port, run_clients
from evolution.rules.cards import Deck
from evolution.rules.local import play_local_game
from evolution.rules.silly import SillyPlayer

pytestmark = pytest.mark.slow


def stored_games(db) -> list[dict]:
    result = subprocess.run(
        [sys.executable, "-m", "evolution.host.results_cli", "--db", str(db), "--json"],
        capture_output=True, text=True, check=True,
    )
    return json.loads(result.stdout)


def test_three_then_eight_client_processes_play_full_games(tmp_path):
    db = tmp_path / "results.sqlite"
    port = free_port()
    host = HostProcess(port, db, tmp_path / "host.log",
                       "--players", "3-8", "--games", "2", "--deck", "sorted", "--signup-window", "1")
    try:
        host.wait_until_listening()
        three = run_clients(port, [f"three-{i}" for i in range(3)])
        eight = run_clients(port, [f"eight-{i}" for i in range(8)])
        assert host.wait() == 0
    finally:
        host.stop()
    assert [r.returncode for r in three + eight] == [0] * 11, [r.stderr for r in three + eight]
    games = stored_games(db)
    assert [len(game["players"]) for game in games] == [3, 8]
    for game, size in zip(games, (3, 8)):
        assert game["outcome"] == "finished"
        assert game["deck"] == "sorted" and game["seed"] is None
        local = play_local_game([SillyPlayer() for _ in range(size)], Deck.sorted())
        expected = {entry.id: (entry.rank, entry.score) for entry in local.ranking}
        assert {p["seat"]: (p["rank"], p["score"]) for p in game["players"]} == expected
        assert game["turns"] == local.turns


def test_a_client_with_no_host_says_so_and_fails(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "evolution.net.client_cli", "--port", str(free_port()), "--retries", "0"],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 1
    assert "cannot connect to 127.0.0.1" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_port_already_taken_stops_the_host_with_one_sentence(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        host = HostProcess(port, tmp_path / "r.sqlite", tmp_path / "host.log")
        assert host.wait(limit=30) == 1
    log = (tmp_path / "host.log").read_text()
    assert f"twistd evolution: cannot listen on tcp:{port}:interface=127.0.0.1: [Errno 98]" in log
    assert "Traceback" not in log
