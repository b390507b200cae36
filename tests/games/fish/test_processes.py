"""Done when: ``twistd -n evolution --game fish --tournament knockout`` runs a whole tournament of
``evolution-client --game fish`` processes over loopback, in both dialects, stores it, and
``evolution-replay`` reproduces every game.

The host and every client are separate processes; the clients are the house's greedy and maximin
players and the two that fail on purpose (a cheater, a hole-placer), as ``make demo-fish`` runs them.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from evolution.cli.demo import demo_bots
from evolution.testing import HostProcess, free_port, start_clients, wait_for_clients

pytestmark = pytest.mark.slow


def cli(module: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("dialect", ["course", "seed004"])
def test_a_knockout_of_fish_client_processes_is_stored_and_every_game_replays(tmp_path, dialect):
    db, port = tmp_path / "results.sqlite", free_port()
    bots = demo_bots(9, "fish")
    host = HostProcess(port, db, tmp_path / "host.log", "--game", "fish", "--dialect", dialect, "--tournament",
                       "knockout", "--max-signups", str(len(bots)), "--signup-window", "30", "--seed", "17")
    try:
        host.wait_until_listening()
        clients = wait_for_clients(start_clients(port, list(bots), bots, 0.0, "--game", "fish", "--dialect", dialect),
                                   120)
        assert host.wait(60) == 0  # one tournament, then the host stops
    finally:
        host.stop()
    failing = {name for name, strategy in bots.items() if strategy in ("cheater", "hole-placer")}
    for name, client in zip(bots, clients):
        assert client.returncode == (1 if name in failing and dialect == "seed004" else 0), client.stderr
    [tournament] = json.loads(cli("evolution.cli.evolution_results", "--db", str(db), "--tournaments", "--json").stdout)
    assert (tournament["status"], tournament["format"]) == ("finished", "knockout")
    assert len(tournament["winners"]) >= 1
    assert len(tournament["failures"]) == 2  # the cheater and the hole-placer (seed 004 names players by address)
    if dialect == "course":
        assert {failure["name"] for failure in tournament["failures"]} == failing
    assert tournament["games"]
    for game in tournament["games"]:
        replayed = cli("evolution.cli.evolution_replay", str(game), "--db", str(db))
        assert replayed.returncode == 0, replayed.stdout + replayed.stderr
        assert "the stored result" in replayed.stdout
