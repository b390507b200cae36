"""Draining a real host process (evolution-admin drain, or SIGUSR1) while a game runs: HAProxy's agent-check and
/readyz say so at once, the bot port takes no one, the game finishes and is stored as played, then the host stops."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys

import pytest

from evolution.stock_servers import Balancer, haproxy_missing
from evolution.testing import free_port, start_clients, wait_for_clients
from tests.host.console.support import ConsoleHost
from tests.host.console.test_operator_port import scrape, until

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("asked", ["evolution-admin", "SIGUSR1"])
def test_a_drained_host_stops_only_once_its_running_game_is_over_and_says_so_first(tmp_path, asked):
    host = ConsoleHost(tmp_path, "--players", "3-3", "--timeout", "10", "--workers", "1")
    clients = []
    try:
        clients = start_clients(host.host.port, ["a", "b", "c"], None, 0.3)  # a game of several seconds
        until(lambda: scrape(host)[("evolution_games_running", ())] == 1)
        if asked == "SIGUSR1":
            os.kill(host.host.process.pid, signal.SIGUSR1)
            until(lambda: host.agent() == "drain")
        else:
            drained = host.admin("drain")
            assert drained.returncode == 0 and "draining, asked by the test from 127.0.0.1" in drained.stdout
            assert host.agent() == "drain"
        assert host.get("/readyz")[0] == 503
        figures = scrape(host)
        assert figures[("evolution_draining", ())] == 1 and figures[("evolution_games_running", ())] == 1
        assert host.host.process.poll() is None  # the game is still on
        with pytest.raises(OSError):  # no new bots
            socket.create_connection(("127.0.0.1", host.host.port), timeout=5).close()
        assert host.host.wait(120) == 0
    finally:
        host.stop()
        results = wait_for_clients(clients, 60)
    assert [result.returncode for result in results] == [0, 0, 0], [result.stderr for result in results]
    games = json.loads(subprocess.run([sys.executable, "-m", "evolution.cli.evolution_results", "--db",
                                       str(tmp_path / "r.sqlite"), "--json"], capture_output=True, text=True,
                                      check=True).stdout)
    assert [game["outcome"] for game in games] == ["finished"]
    log = host.log.read_text()
    assert "drained: every game is over; stopping" in log
    assert log.index("draining, asked by") < log.index("game 1 finished") < log.index("drained: every game")


@pytest.mark.skipif(haproxy_missing() is not None, reason=str(haproxy_missing()))
def test_haproxy_sees_a_draining_host_as_drain_before_its_game_is_over(tmp_path):
    host = ConsoleHost(tmp_path, "--players", "3-3", "--timeout", "10", "--workers", "1", "--proxy-protocol")
    balancer = AgentCheckedBalancer(tmp_path / "haproxy", free_port(), [("127.0.0.1", host.host.port)],
                                    host.agent_port)
    clients = []
    try:
        balancer.start()
        until(lambda: balancer.status() == "UP")
        clients = start_clients(balancer.port, ["a", "b", "c"], None, 0.3)  # through HAProxy
        until(lambda: scrape(host)[("evolution_games_running", ())] == 1)
        assert host.admin("drain").returncode == 0
        # HAProxy's next agent-check (every 200 ms), before its next check of the port (every 2 s), which the drain
        # closed: the log says which came first
        until(lambda: "host1 enters drain state" in balancer.log.read_text() or "host1 is DOWN" in
              balancer.log.read_text(), 30)
        said = balancer.log.read_text()
        assert "host1 enters drain state" in said.split("host1 is DOWN")[0], said
        assert host.host.process.poll() is None and scrape(host)[("evolution_games_running", ())] == 1
        assert host.host.wait(120) == 0
    finally:
        balancer.stop()
        host.stop()
        results = wait_for_clients(clients, 60)
    assert [result.returncode for result in results] == [0, 0, 0], [result.stderr for result in results]


class AgentCheckedBalancer(Balancer):
    """The tests' HAProxy, each server also asked by agent-check five times a second, with a stats socket to read."""

    def __init__(self, folder, port, hosts, agent_port) -> None:
        super().__init__(folder, port, hosts)
        self.agent_port = agent_port
        self.socket = self.folder / "stats.sock"

    def configuration(self) -> str:
        text = super().configuration().replace("check inter 2s", f"check inter 2s agent-check agent-port "
                                               f"{self.agent_port} agent-inter 200ms")
        return f"global\n    stats socket {self.socket} level admin\n\n{text}"

    def status(self) -> str | None:
        """The first server's status as HAProxy's stats say it (UP, DRAIN, DOWN...), or None before it answers."""
        try:
            with socket.socket(socket.AF_UNIX) as stats:
                stats.settimeout(5)
                stats.connect(str(self.socket))
                stats.sendall(b"show stat\n")
                text = b"".join(iter(lambda: stats.recv(65536), b"")).decode()
        except OSError:
            return None
        lines = [line.split(",") for line in text.splitlines() if line]
        if not lines:
            return None
        fields = [lines[0][0].lstrip("# "), *lines[0][1:]]
        for row in lines[1:]:
            if row[1] == "host1":
                return row[fields.index("status")]
        return None
