"""What the host's log and the tools say, read as an organiser reads them: real processes on loopback.

- counts are words: "1 game", "1 round", "1 tournament is over" (never "1 games");
- at the end of a tournament the log says the end was said and the connections closed (how many
  players were left in), and when the host is stopped, that it hung up on the players still in;
  never that they failed.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evolution.testing import HostProcess, free_port, run_clients, start_clients, wait_for_clients

pytestmark = pytest.mark.slow


def log_lines(path: Path) -> list[str]:
    """The log's messages, without the time and the logger's name."""
    return [line.split("] ", 1)[1] for line in path.read_text().splitlines() if "] " in line]


def evolution_results(db: Path, *args: str) -> str:
    result = subprocess.run([sys.executable, "-m", "evolution.cli.evolution_results", "--db", str(db), *args],
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


def test_the_players_left_in_at_the_end_hear_it_and_their_connections_close_none_failed(knockout_of_three):
    lines = log_lines(knockout_of_three / "host.log")
    assert [line for line in lines if " is out: " in line] == []
    [over] = [line for line in lines if line.startswith("tournament 1 is over")]
    assert over.endswith("; 0 failed; the end said, closing the connections (2 players left in)")  # the co-winners


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


def signed_up(port: int, name: str) -> socket.socket:
    """A player that signs up (and waits for "ok"), then never answers."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=30)
    connection.sendall(json.dumps(name).encode() + b"\n")
    assert connection.recv(64) == b'"ok"\n'
    return connection


def test_sigterm_mid_tournament_hangs_up_on_the_players_and_says_so(tmp_path):
    """Round 1 of a knockout: a game of three silent players (stuck) and one of three bots (over at once)."""
    port = free_port()
    log = tmp_path / "host.log"
    host = HostProcess(port, tmp_path / "r.sqlite", log, "--tournament", "knockout", "--players", "3-5",
                       "--min-signups", "6", "--max-signups", "6", "--timeout", "60", "--deck", "sorted")
    silent: list[socket.socket] = []
    try:
        host.wait_until_listening()
        silent = [signed_up(port, f"silent {k}") for k in range(3)]  # the first game: sign-up order
        clients = start_clients(port, ["a", "b", "c"])
        while "tournament 1 round 1 of about 2: 1 of 2 games done, 1 running" not in log_lines(log):
            assert host.process.poll() is None
            time.sleep(0.1)
        host.process.send_signal(signal.SIGTERM)
        assert host.wait() == -signal.SIGTERM
        wait_for_clients(clients, 30)
    finally:
        host.stop()
        for connection in silent:
            connection.close()
    lines = log_lines(log)
    assert [line for line in lines if " is out: " in line] == []
    assert "tournament 1 interrupted in round 1: the host is stopping; hanging up on 6 players still in" in lines


def test_a_knockout_s_guess_of_its_rounds_is_made_again_each_round_from_the_players_in_it():
    """Fish's knockout: nine players guess two rounds, but ties sent five on, so round 2 of about 3, then 3 of 3."""
    from types import SimpleNamespace

    from twisted.logger import capturedLogs, formatEvent

    from evolution.host.modes.tournament_run import TournamentRun, TournamentSettings

    def round_lines(run: TournamentRun, players: list[int]) -> list[str]:
        """What the log says as each round begins with that many players (in games of three and the rest)."""
        with capturedLogs() as events:
            for round, count in enumerate(players, start=1):
                run.round_begins(round, [run.entrants[k:min(k + 3, count)] for k in range(0, count, 3)])
        return [formatEvent(event) for event in events]

    players = [SimpleNamespace(name=f"p{k}") for k in range(9)]
    run = TournamentRun(1, TournamentSettings("knockout", 2, 4, runners_up=False), players, None, None)
    assert round_lines(run, [9, 5, 2]) == [
        "tournament 1 round 1 of about 2: 3 games, 9 players",
        "tournament 1 round 2 of about 3: 2 games, 5 players",
        "tournament 1 round 3 of about 3: 1 game, 2 players",
    ]
    swiss = TournamentRun(2, TournamentSettings("swiss", 2, 4, rounds=4), players, None, None)
    assert round_lines(swiss, [9, 9, 9, 9])[::3] == [
        "tournament 2 round 1 of 4: 3 games, 9 players", "tournament 2 round 4 of 4: 3 games, 9 players"]
