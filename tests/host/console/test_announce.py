"""evolution-admin announce on a real host whose web view is a process of its own (``--workers 1``): the line reaches
the web view's API and its event streams at once, is logged with who asked from where, and is taken down with
``--clear``; a host without accounts refuses ``ban`` in one line."""

from __future__ import annotations

import json
import socket
import time
import urllib.request

import pytest

from evolution.testing import free_port
from tests.host.console.support import ConsoleHost
from tests.host.console.test_operator_port import until

pytestmark = pytest.mark.slow


def announcement(web: int) -> object:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{web}/api/announcement", timeout=30) as answer:
            return json.loads(answer.read())["announcement"]
    except OSError:  # the web view's process is not serving yet
        return "not yet"


def first_events(web: int, path: str, count: int, limit: float = 30.0) -> str:
    """The raw text of an event stream until ``count`` events came (or ``limit`` seconds passed)."""
    with socket.create_connection(("127.0.0.1", web), timeout=limit) as connection:
        connection.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode())
        text, deadline = "", time.monotonic() + limit
        while text.count("\nevent: ") + text.startswith("event: ") < count and time.monotonic() < deadline:
            text += connection.recv(65536).decode("utf-8", "replace")
        return text


def test_an_announcement_reaches_the_web_view_live_until_it_is_taken_down(tmp_path):
    web = free_port()
    host = ConsoleHost(tmp_path, "--ladder", "--workers", "1", "--web", f"tcp:{web}:interface=127.0.0.1")
    try:
        until(lambda: announcement(web) is None)
        announced = host.admin("announce", "Round", "2", "begins", "at", "14:00")
        assert announced.returncode == 0, announced.stderr
        assert announced.stdout == "announced on the web view: Round 2 begins at 14:00\n"
        until(lambda: (announcement(web) or {}).get("text") == "Round 2 begins at 14:00", 30)
        host.wait_for_log("announced by the test from 127.0.0.1: Round 2 begins at 14:00")
        stream = first_events(web, "/api/overview/events", 2)  # every stream begins with the announcement
        assert stream.index("event: announcement\ndata: {\"text\":\"Round 2 begins at 14:00\"") < stream.index(
            "event: overview")

        replaced = host.admin("announce", "Lunch: back at 13:30")
        assert replaced.returncode == 0
        until(lambda: (announcement(web) or {}).get("text") == "Lunch: back at 13:30", 30)
        too_long = host.admin("announce", "x" * 201)
        assert too_long.returncode == 1
        assert too_long.stderr == ("evolution-admin: announce: an announcement is one line of at most 200 characters,"
                                   " not 201\n")
        cleared = host.admin("announce", "--clear")
        assert cleared.returncode == 0 and cleared.stdout == "the announcement is taken down\n"
        until(lambda: announcement(web) is None, 30)
        host.wait_for_log("the announcement is taken down by the test from 127.0.0.1")
        assert "event: announcement" not in first_events(web, "/api/ladder/events", 1)

        refused = host.admin("ban", "somebody")
        assert refused.returncode == 1
        assert refused.stderr.startswith("evolution-admin: ban: this host has no bot accounts (twistd evolution "
                                         "--accounts roster|closed)")
        assert host.admin("announce").returncode == 2  # neither a line nor --clear
    finally:
        host.stop()
