"""A host stopped by SIGINT (Ctrl-C, which reaches its whole process group) or SIGTERM, with its web view's
process and its workers, while a ladder plays: no traceback, one stop, games stored as aborted; a game in a worker
when SIGTERM reaches the whole group (a service manager's stop) is reported by the worker as the host stops it,
stored with what was played, not lost with a worker that the signal ended first."""

from __future__ import annotations

import os
import signal
import socket
import time

import pytest

from evolution.store.results_store import reading
from evolution.testing import HostProcess, free_port, start_clients, wait_for_clients

pytestmark = pytest.mark.slow


def _wait_for(log, text: str, limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while text not in log.read_text():
        assert time.monotonic() < deadline, f"no {text!r} in the host's log within {limit:g} s:\n{log.read_text()}"
        time.sleep(0.05)


@pytest.mark.parametrize("number, twice", [(signal.SIGINT, False), (signal.SIGINT, True), (signal.SIGTERM, False)],
                         ids=["ctrl-c", "ctrl-c-twice", "sigterm"])
def test_a_host_with_workers_and_a_web_view_stops_on_a_signal_to_its_group_without_a_traceback(
        tmp_path, number, twice):
    log = tmp_path / "host.log"
    host = HostProcess(free_port(), tmp_path / "r.sqlite", log, "--ladder", "--players", "3-3", "--workers", "1",
                       "--web", f"tcp:{free_port()}:interface=127.0.0.1", own_group=True)
    clients = []
    try:
        host.wait_until_listening()
        _wait_for(log, "the web view is served by process")
        clients = start_clients(host.port, ["a", "b", "c"], None, 0.05)
        _wait_for(log, "ladder round 1")
        for _ in range(2 if twice else 1):
            os.killpg(host.process.pid, number)
        assert host.wait(60) == -number
    finally:
        host.stop()
        wait_for_clients(clients, 60)
    text = log.read_text()
    assert "Traceback" not in text and "ReactorNotRunning" not in text, text
    assert "#critical]" not in text and "#error]" not in text, text
    assert "stored as aborted" in text  # the games the ladder was playing
    assert "Server Shut Down." in text


def test_sigterm_to_the_whole_group_leaves_a_workers_game_to_the_hosts_stop(tmp_path):
    # A bot that signs up and, once its game's first message comes (from the worker: the host only says "ok"),
    # never answers: the game is surely in the worker, waiting for it (--timeout 30), when the signal comes.
    log, db = tmp_path / "host.log", tmp_path / "r.sqlite"
    host = HostProcess(free_port(), db, log, "--ladder", "--players", "3-3", "--workers", "1", "--timeout", "30",
                       own_group=True)
    clients = []
    try:
        host.wait_until_listening()
        with socket.create_connection(("127.0.0.1", host.port), timeout=60) as bot:
            bot.sendall(b'"zed"')
            clients = start_clients(host.port, ["a", "b"], None, 0.0)
            heard = b""
            deadline = time.monotonic() + 60
            while heard.strip() in (b"", b'"ok"'):  # the sign-up's reply, then the game's first message
                assert time.monotonic() < deadline, f"no game within 60 s: {heard!r}"
                more = bot.recv(65536)
                assert more, f"the host hung up: {heard!r}"
                heard += more
            os.killpg(host.process.pid, signal.SIGTERM)
            assert host.wait(60) == -signal.SIGTERM
    finally:
        host.stop()
        wait_for_clients(clients, 60)
    text = log.read_text()
    assert "is gone" not in text and "#error]" not in text, text  # no worker ended under its games
    [game] = reading(db, lambda store: [(game, store.game_log(game.id)) for game in store.games()])
    record, played = game
    assert record.outcome == "aborted: the host stopped", record
    assert played, "the game was stored without what was played (lost with its worker, not reported by it)"
