"""Names on a real host (``twistd evolution`` in its own process, bots on raw sockets).

A name already taken by a player waiting, or of the host's form (ending in ``#`` and digits), gets
``#2``, ``#3``...; a bot that signs up with ``["sign-up", name]`` is told the name it got
(``["ok", name]``, ``["ack", name]`` in seed 002); a plain string still gets the course's bare "ok".
The game is stored under the names given.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest

from evolution.testing import HostProcess, free_port

pytestmark = pytest.mark.slow

QUICK_GAME = ("--games", "1", "--deck", "sorted", "--timeout", "0.05", "--number-grace", "0.01")


def sign_up(port: int, message: object) -> tuple[socket.socket, object]:
    """Connect, send ``message``, read the host's first line: (the connection, the reply)."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=30)
    connection.sendall(json.dumps(message).encode() + b"\n")
    reply = b""
    while not reply.endswith(b"\n"):
        data = connection.recv(1)
        assert data, f"the host hung up on {message!r}"
        reply += data
    return connection, json.loads(reply)


def play_silently(tmp_path, options: tuple[str, ...], sign_ups: list[object]) -> tuple[list[object], list[str], str]:
    """Sign up one socket per message, in order, on a host that plays one game of them (every seat times out).

    Returns the replies, the stored game's names in seat order, and the host's log.
    """
    port, db, log = free_port(), tmp_path / "r.sqlite", tmp_path / "host.log"
    host = HostProcess(port, db, log, *options, *QUICK_GAME)
    connections = []
    try:
        host.wait_until_listening()
        replies = []
        for message in sign_ups:
            connection, reply = sign_up(port, message)
            connections.append(connection)
            replies.append(reply)
        assert host.wait() == 0
    finally:
        host.stop()
        for connection in connections:
            connection.close()
    games = subprocess.run([sys.executable, "-m", "evolution.cli.evolution_results", "--db", str(db), "--json"],
                           capture_output=True, text=True, check=True, timeout=60).stdout
    [game] = json.loads(games)
    return replies, [seat["name"] for seat in game["players"]], log.read_text()


def test_duplicates_and_names_of_the_hosts_form_get_a_number_and_a_bot_that_asks_is_told(tmp_path):
    replies, names, log = play_silently(tmp_path, ("--players", "6-6"), [
        "x", "x", ["sign-up", "x"], ["sign-up", "x#2"], "x#3", ["sign-up", "solo"],
    ])
    assert replies == ["ok", "ok", ["ok", "x#3"], ["ok", "x#2#2"], "ok", ["ok", "solo"]]
    assert sorted(names) == sorted(["x", "x#2", "x#3", "x#2#2", "x#3#2", "solo"])
    assert "signed up 'x#2' (it sent 'x', taken or of the host's form) from 127.0.0.1:" in log


def test_in_seed_002_the_told_name_comes_with_ack(tmp_path):
    replies, names, _log = play_silently(tmp_path, ("--players", "3-3", "--dialect", "seed002"), [
        ["sign-up", "Hello"], "Hello", ["sign-up", "Hello"],
    ])
    assert replies == [["ack", "Hello"], "ack", ["ack", "Hello#3"]]
    assert sorted(names) == ["Hello", "Hello#2", "Hello#3"]
