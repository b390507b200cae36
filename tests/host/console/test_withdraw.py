"""evolution-admin withdraw on a real host: a bot out of a running tournament (recorded as withdrawn by the
organiser, its remaining games lost) and out of the ladder (hung up on, the others play on)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evolution.testing import start_clients, wait_for_clients
from tests.host.console.support import ConsoleHost
from tests.host.console.test_operator_port import scrape, until

pytestmark = pytest.mark.slow


def stored_tournament(db: Path) -> dict:
    """The store's one tournament, as ``evolution-results --tournaments --json`` prints it."""
    listed = subprocess.run([sys.executable, "-m", "evolution.cli.evolution_results", "--db", str(db), "--tournaments",
                             "--json"], capture_output=True, text=True, check=True)
    [tournament] = json.loads(listed.stdout)
    return tournament


def test_a_bot_withdrawn_from_a_running_tournament_is_out_with_the_organisers_reason(tmp_path):
    host = ConsoleHost(tmp_path, "--tournament", "swiss", "--rounds", "3", "--players", "3-5", "--max-signups", "4",
                       "--timeout", "10", "--workers", "1")
    clients = []
    try:
        clients = start_clients(host.host.port, ["a", "b", "c", "d"], None, 0.1)
        until(lambda: scrape(host)[("evolution_games_running", ())] == 1)
        withdrawn = host.admin("withdraw", "d", "--reason", "cheating, said its author")
        assert withdrawn.returncode == 0, withdrawn.stderr
        assert "'d' is withdrawn from tournament 1 by the test from 127.0.0.1: cheating" in withdrawn.stdout
        again = host.admin("withdraw", "d")
        assert again.returncode == 1 and "no bot 'd'" in again.stderr
        assert host.host.wait(180) == 0  # the tournament goes on to its end without d
    finally:
        host.stop()
        wait_for_clients(clients, 60)
    tournament = stored_tournament(tmp_path / "r.sqlite")
    assert tournament["status"] == "finished"
    assert {failure["name"]: failure["reason"] for failure in tournament["failures"]} == {
        "d": "withdrawn by the organiser: cheating, said its author"}


def test_a_bot_withdrawn_from_the_ladder_is_hung_up_on_and_the_others_play_on(tmp_path):
    host = ConsoleHost(tmp_path, "--ladder", "--players", "3-3", "--workers", "1", "--timeout", "10")
    clients = []
    try:
        clients = start_clients(host.host.port, ["a", "b", "c", "d"], None, 0.01)
        until(lambda: scrape(host)[("evolution_games_finished_total", (("game", "evolution"), ("kind", "ladder")))] >= 2)
        withdrawn = host.admin("withdraw", "d", "--reason", "asked by its author")
        assert withdrawn.returncode == 0 and "'d' is withdrawn from the ladder" in withdrawn.stdout
        until(lambda: clients[3].poll() is not None)  # d is hung up on (now, or after its game)
        until(lambda: "'d' left the ladder" in host.log.read_text() or "'d' left the lobby" in host.log.read_text())
        before = scrape(host)[("evolution_games_begun_total", (("game", "evolution"), ("kind", "ladder")))]
        until(lambda: scrape(host)[("evolution_games_begun_total", (("game", "evolution"), ("kind", "ladder")))]
              > before + 1)
        assert "d" not in host.admin("bots").stdout.split("\n", 1)[1].replace("(", " ").split()
    finally:
        host.stop()
        wait_for_clients(clients, 60)


def test_a_tournament_ended_early_keeps_its_standings_and_the_host_goes_on_to_stop(tmp_path):
    host = ConsoleHost(tmp_path, "--tournament", "swiss", "--rounds", "5", "--players", "3-5", "--max-signups", "3",
                       "--timeout", "10", "--workers", "1")
    clients = []
    try:
        clients = start_clients(host.host.port, ["a", "b", "c"], None, 0.05)
        until(lambda: "round 2" in host.log.read_text())
        ended = host.admin("end-tournament")
        assert ended.returncode == 0 and "tournament 1 is ended early" in ended.stdout, ended.stderr
        assert host.host.wait(120) == 0  # its one tournament over: the host stops
    finally:
        host.stop()
        wait_for_clients(clients, 60)
    tournament = stored_tournament(tmp_path / "r.sqlite")
    assert tournament["status"] == "ended-early" and tournament["winners"] == []
    assert len(tournament["standings"]) == 3
    assert "tournament 1 ended early, asked by the test from 127.0.0.1" in host.log.read_text()
